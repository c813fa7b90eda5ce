import { prefix32 } from '../url/hash-string.ts';
import { ClientOptionError } from './client-errors.ts';
import type { SearchResponse } from './transport.ts';
import type { FullHashMatch } from './threats.ts';

/**
 * SB-8: a client may lengthen a cache duration only for empty responses, and never past 24 hours. sbkit
 * keeps no answer longer than that at all, whatever duration the server gives (SB-8's reading).
 */
export const MAX_CACHE_DURATION_MS = 24 * 60 * 60 * 1000;

export interface CacheEntry {
  /** Milliseconds on the client's clock after which the entry is void. */
  expiresAt: number;
  /** Full hashes the server returned under this prefix; empty for a negative (nothing found) entry. */
  fullHashes: FullHashMatch[];
}

export interface LocalCacheOptions {
  /** Upper bound of cached prefixes; the least recently used go first. */
  maxEntries?: number;
  /**
   * Cache duration applied to responses without full hashes when the server's is shorter (SB-8 allows
   * lengthening those only), capped at 24 hours. 0 keeps the server's duration.
   */
  emptyResponseCacheMs?: number;
}

/**
 * The local cache of SB-4 and SB-8: search results by 4-byte prefix, in memory only (the spec forbids
 * persistent storage), bounded in size with least-recently-used eviction, and droppable at any time
 * under memory pressure (`clear`). Every prefix sent in a search is cached with the response's
 * duration, found or not (negative caching).
 */
export class LocalCache {
  private readonly entries = new Map<number, CacheEntry>();
  private readonly maxEntries: number;
  private readonly emptyResponseCacheMs: number;

  constructor(options: LocalCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.emptyResponseCacheMs = Math.min(options.emptyResponseCacheMs ?? 0, MAX_CACHE_DURATION_MS);
    if (!(this.maxEntries >= 1))
      throw new ClientOptionError(`cache.maxEntries is ${this.maxEntries}; the local cache needs room for at least one entry`, {
        option: 'cache.maxEntries',
      });
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * SB-8 step 5: the live entry for a prefix. An expired entry is deleted and reported as absent; an
   * entry is live while now <= its expiration.
   */
  lookup(prefix: number, now: number): CacheEntry | undefined {
    const entry = this.entries.get(prefix);
    if (entry === undefined) return undefined;
    this.entries.delete(prefix);
    if (now > entry.expiresAt) return undefined;
    this.entries.set(prefix, entry);
    return entry;
  }

  /**
   * SB-8 step 5 for several prefixes at once: the full hashes their live entries hold, the prefixes
   * without one (those must be asked about), and when the first of the live entries expires (Infinity
   * when none is live).
   */
  consult(prefixes: Iterable<number>, now: number): { remaining: Set<number>; fullHashes: FullHashMatch[]; expiresAt: number } {
    const remaining = new Set<number>();
    const fullHashes: FullHashMatch[] = [];
    let expiresAt = Infinity;
    for (const prefix of new Set(prefixes)) {
      const entry = this.lookup(prefix, now);
      if (entry === undefined) {
        remaining.add(prefix);
        continue;
      }
      fullHashes.push(...entry.fullHashes);
      expiresAt = Math.min(expiresAt, entry.expiresAt);
    }
    return { remaining, fullHashes, expiresAt };
  }

  /**
   * SB-8 step 7: caches a search response under every queried prefix, holding the returned full hashes
   * that begin with it (none: a negative entry). Full hashes under prefixes nobody asked about are not
   * cached: an entry there would pass for a complete answer about that prefix. v5 gives one duration for
   * all; v4 gives one per match and a negative one for the rest of the prefix.
   */
  store(queried: Iterable<number>, response: SearchResponse, now: number): void {
    const byPrefix = new Map<number, FullHashMatch[]>();
    for (const prefix of queried) byPrefix.set(prefix, []);
    for (const match of response.fullHashes) byPrefix.get(prefix32(match.fullHash))?.push(match);
    for (const [prefix, fullHashes] of byPrefix) {
      this.entries.delete(prefix);
      this.entries.set(prefix, { expiresAt: now + this.durationFor(fullHashes, response), fullHashes });
    }
    this.evict();
  }

  /**
   * How long an entry stays live: the server's duration, never past MAX_CACHE_DURATION_MS whatever the
   * server said (one answer must not pin a verdict for years), and never less than nothing (NaN too).
   */
  private durationFor(fullHashes: FullHashMatch[], response: SearchResponse): number {
    const durationMs = this.serverDurationFor(fullHashes, response);
    return durationMs > 0 ? Math.min(durationMs, MAX_CACHE_DURATION_MS) : 0;
  }

  private serverDurationFor(fullHashes: FullHashMatch[], response: SearchResponse): number {
    const negative = response.negativeCacheDurationMs ?? response.cacheDurationMs;
    if (fullHashes.length > 0) {
      // The entry also says the prefix's other full hashes are safe, which holds only as long as the
      // negative duration (v4); a match's own duration may be shorter still.
      return Math.min(negative, ...fullHashes.map((m) => m.cacheDurationMs ?? response.cacheDurationMs));
    }
    // Only an answer that had no full hash at all on the wire may be kept longer than the server said (SB-8).
    return response.serverFullHashCount === 0 ? Math.max(negative, this.emptyResponseCacheMs) : negative;
  }

  /** Drops everything, e.g. under memory pressure (SB-4 allows it at any time). */
  clear(): void {
    this.entries.clear();
  }

  private evict(): void {
    for (const prefix of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(prefix);
    }
  }
}
