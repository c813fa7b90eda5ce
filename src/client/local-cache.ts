import { prefix32 } from '../url/hash.ts';
import type { SearchResponse } from './check.ts';
import type { FullHashMatch } from './threats.ts';

/** SB-8: a client may lengthen a cache duration only for empty responses, and never past 24 hours. */
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
    if (!(this.maxEntries >= 1)) throw new RangeError('the local cache needs room for at least one entry');
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
   * SB-8 step 7: caches a search response. Every queried prefix gets an entry holding the returned full
   * hashes that begin with it (none: a negative entry); returned full hashes under prefixes that were not
   * queried are cached under their own prefix too. v5 gives one duration for all; v4 gives one per match
   * and a negative one, which then apply to their prefixes.
   */
  store(queried: Iterable<number>, response: SearchResponse, now: number): void {
    const byPrefix = new Map<number, FullHashMatch[]>();
    for (const prefix of queried) byPrefix.set(prefix, []);
    for (const match of response.fullHashes) {
      const prefix = prefix32(match.fullHash);
      const list = byPrefix.get(prefix);
      if (list === undefined) byPrefix.set(prefix, [match]);
      else list.push(match);
    }
    for (const [prefix, fullHashes] of byPrefix) {
      const duration = this.durationFor(fullHashes, response);
      this.entries.delete(prefix);
      this.entries.set(prefix, { expiresAt: now + duration, fullHashes });
    }
    this.evict();
  }

  private durationFor(fullHashes: FullHashMatch[], response: SearchResponse): number {
    if (fullHashes.length > 0) {
      return Math.max(0, Math.min(...fullHashes.map((m) => m.cacheDurationMs ?? response.cacheDurationMs)));
    }
    const negative = Math.max(0, response.negativeCacheDurationMs ?? response.cacheDurationMs);
    // Only an answer without any full hash may be kept longer than the server said (SB-8).
    return response.fullHashes.length === 0 ? Math.max(negative, this.emptyResponseCacheMs) : negative;
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
