import { BoundedMap } from '../store/bounded-map.ts';
import { prefix32 } from '../url/hash-string.ts';
import { MAX_CACHE_DURATION_MS } from '../wire/duration-caps.ts';
import { ClientOptionError } from './client-errors.ts';
import type { SearchResponse } from './transport/transport.ts';
import type { FullHashMatch } from '../lists/threat-details.ts';

export interface CacheEntry {
  /** Milliseconds on the client's clock after which the entry is void. */
  expiresAt: number;
  /** Full hashes the server returned under this prefix; empty for a negative (nothing found) entry. */
  fullHashes: FullHashMatch[];
  /** Its weight, as `maxBytes` counts it. */
  bytes: number;
}

/**
 * What an entry weighs in memory, by the measure of V8 (test/client/local-cache.test.ts holds the cache to
 * it): a Map slot (store/bounded-map.ts) with its entry and array, and per full hash its 32-character
 * string, its object and the details it refers to.
 */
const ENTRY_BYTES = 160;
const FULL_HASH_BYTES = 160;
const DETAIL_BYTES = 80;

/** The weight of an entry, in bytes: what `maxBytes` counts. */
function entryBytes(fullHashes: readonly FullHashMatch[]): number {
  let bytes = ENTRY_BYTES;
  for (const match of fullHashes) bytes += FULL_HASH_BYTES + match.details.length * DETAIL_BYTES;
  return bytes;
}

/** The least `cache.maxBytes` allowed: room for a prefix with as many full hashes as an answer may give it. */
const MIN_CACHE_BYTES = 1024 * 1024;

export interface LocalCacheOptions {
  /** Upper bound of cached prefixes; the least recently used go first. */
  maxEntries?: number;
  /**
   * Upper bound of the cache's memory in bytes, as estimated per entry (32 MiB by default; at least 1 MiB):
   * the least recently used go first. 100,000 prefixes without full hashes weigh some 16 MB.
   */
  maxBytes?: number;
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
 * duration, found or not (negative caching). Bounded in bytes as well as in prefixes: a server decides
 * how many full hashes a prefix holds (issue 26, S7; search-answer-bounds.ts bounds them per prefix).
 */
export class LocalCache {
  /** By prefix, the least recently looked up or stored first. */
  private readonly entries: BoundedMap<number, CacheEntry>;
  private readonly emptyResponseCacheMs: number;

  constructor(options: LocalCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? 100_000;
    const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.emptyResponseCacheMs = Math.min(options.emptyResponseCacheMs ?? 0, MAX_CACHE_DURATION_MS);
    if (!(maxEntries >= 1))
      throw new ClientOptionError(`cache.maxEntries is ${maxEntries}; the local cache needs room for at least one entry`, {
        option: 'cache.maxEntries',
      });
    if (!(maxBytes >= MIN_CACHE_BYTES))
      throw new ClientOptionError(`cache.maxBytes is ${maxBytes}; the local cache needs at least ${MIN_CACHE_BYTES} bytes`, {
        option: 'cache.maxBytes',
      });
    this.entries = new BoundedMap(maxEntries, { max: maxBytes, of: (_prefix, entry) => entry.bytes });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entries' weight in bytes, as `maxBytes` counts it. */
  get sizeBytes(): number {
    return this.entries.byteLength;
  }

  /**
   * SB-8 step 5: the live entry for a prefix. An expired entry is deleted and reported as absent; an
   * entry is live while now <= its expiration.
   */
  lookup(prefix: number, now: number): CacheEntry | undefined {
    const entry = this.entries.get(prefix);
    if (entry === undefined || now <= entry.expiresAt) return entry;
    this.entries.forget(prefix);
    return undefined;
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
      for (const match of entry.fullHashes) fullHashes.push(match);
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
      this.entries.keep(prefix, { expiresAt: now + this.durationFor(fullHashes, response), fullHashes, bytes: entryBytes(fullHashes) });
    }
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
      let shortest = negative;
      for (const match of fullHashes) shortest = Math.min(shortest, match.cacheDurationMs ?? response.cacheDurationMs);
      return shortest;
    }
    // Only an answer that had no full hash at all on the wire may be kept longer than the server said (SB-8).
    return response.serverFullHashCount === 0 ? Math.max(negative, this.emptyResponseCacheMs) : negative;
  }

  /** Drops everything, e.g. under memory pressure (SB-4 allows it at any time). */
  clear(): void {
    this.entries.clear();
  }
}
