import { MAX_CACHE_DURATION_MS } from '../../wire/duration-caps.ts';
import type { FullHashMatch, ThreatDetail } from '../../lists/threat-details.ts';
import type { ListCatalog } from '../catalog.ts';
import type { ApiSettings } from './settings.ts';
import type { Requester } from '../guard/requester.ts';
import { type UpstreamSearchClient, type UpstreamSearchLimits, UpstreamSearches } from '../proxy/upstream-searches.ts';
import type { UpstreamBudget } from '../proxy/upstream-budget.ts';
import { type MonotonicClock, systemClock } from '../../time/clock.ts';
import { ClaimedSearches } from './claimed-searches.ts';

/** Full hashes under 4-byte prefixes with their threat details, and how long the answer holds. */
export interface FullHashAnswer {
  fullHashes: FullHashMatch[];
  cacheDurationMs: number;
  /** How long an answer holds that, once filtered for the asker, has no full hash; `cacheDurationMs` when absent. */
  negativeCacheDurationMs?: number;
}

/** Where `hashes:search`, `urls:search` and the v4 lookups get full hashes: our own lists, or an upstream. */
export interface FullHashSource {
  /**
   * The full hashes under `prefixes`. `requester` is who asks, for a source whose searches cost
   * something (an upstream); searches without one share one anonymous budget.
   */
  find(prefixes: readonly number[], requester?: Requester): Promise<FullHashAnswer>;
  /**
   * The same answer at once, from a source that holds its full hashes in memory (a server's own lists),
   * where a search costs nothing that needs a requester: the busiest route then answers without waiting.
   */
  findNow?: (prefixes: readonly number[]) => FullHashAnswer;
}

/** Everyone who asks without saying who: one requester, so that unattributed searches cannot add up. */
const UNATTRIBUTED: Requester = { id: 'unattributed', keyed: false };

/** `source` as one request sees it: every search it makes is that requester's. */
export function searchesOf(source: FullHashSource, requester: Requester): FullHashSource {
  return { find: (prefixes) => source.find(prefixes, requester) };
}

/**
 * Full hashes from the current threat lists of the catalog; only lists that really hold a hash answer
 * for it (docs/api.md §3 pitfall 7), each with the threat types of its lists.
 */
export function catalogFullHashes(catalog: ListCatalog, settings: ApiSettings): FullHashSource {
  const findNow = (prefixes: readonly number[]) => fullHashesInCatalog(catalog, settings, prefixes);
  return { find: async (prefixes) => findNow(prefixes), findNow };
}

/**
 * catalogFullHashes' answer, worked out at once. Written for the busiest route: nothing is allocated
 * for a prefix no list holds, which is most of them.
 */
function fullHashesInCatalog(catalog: ListCatalog, settings: ApiSettings, prefixes: readonly number[]): FullHashAnswer {
  let byHash: Map<string, ThreatDetail[]> | undefined;
  const lists = catalog.threatLists();
  for (const prefix of prefixes.length === 1 ? prefixes : new Set(prefixes)) {
    for (const history of lists) {
      const found = history.current().fullHashesWithPrefix(prefix);
      if (found.length === 0) continue;
      byHash ??= new Map();
      for (const fullHash of found) {
        const details = byHash.get(fullHash) ?? [];
        for (const threatType of history.definition.threatTypes) {
          if (!details.some((d) => d.threatType === threatType)) details.push({ threatType, attributes: [] });
        }
        byHash.set(fullHash, details);
      }
    }
  }
  const { positiveCacheDurationMs: positive, negativeCacheDurationMs: negative } = settings;
  // SB-8: the duration covers every prefix asked, found or not; a positive answer's is the operator's positive one.
  return {
    fullHashes: byHash === undefined ? [] : [...byHash].map(([fullHash, details]) => ({ fullHash, details })),
    cacheDurationMs: byHash !== undefined ? positive : negative,
    negativeCacheDurationMs: negative,
  };
}

/** A full-hash answer for one prefix, as a shared cache holds it, with the time it expires. */
export interface CachedSearch {
  fullHashes: FullHashMatch[];
  expiresAt: number;
}

/**
 * Searches answered by an upstream, kept where several proxy instances find them (Redis). Neither
 * method rejects: a cache that cannot answer knows nothing, and one that cannot store forgets.
 */
export interface SharedSearchCache {
  /** The unexpired answers it holds for these prefixes, by prefix. */
  lookup(prefixes: readonly number[], now: number): Promise<Map<number, CachedSearch>>;
  /** Keeps the answer for each of these prefixes (none listed is a negative answer) until `expiresAt`. */
  store(prefixes: readonly number[], fullHashes: readonly FullHashMatch[], expiresAt: number): Promise<void>;
  /**
   * Claims the asking of these prefixes upstream for this instance, for `ttlMs`; resolves to those
   * another instance claimed first (claimed-searches.ts). A cache that cannot claim says none.
   */
  claim?(prefixes: readonly number[], ttlMs: number): Promise<Set<number>>;
}

/**
 * Full hashes from an upstream server (SB-11): first from the cache that proxy instances share, when
 * there is one, then through sbkit's own client parts (a proxy is a client of its upstream,
 * proxy/upstream.ts), whose memory cache answers next, negative answers included, and which keep the
 * request-frequency rules towards the upstream; what goes up is coalesced (across instances too, when
 * the shared cache takes claims: claimed-searches.ts), batched and rationed (upstream-searches.ts, from
 * `budget`, this instance's memory by default). An upstream that cannot answer, or a requester over its share, makes the
 * search 503, so clients retry later.
 */
export function upstreamFullHashes(
  upstream: UpstreamSearchClient,
  shared?: SharedSearchCache,
  limits?: Partial<UpstreamSearchLimits>,
  clock: MonotonicClock = systemClock,
  budget?: UpstreamBudget,
): FullHashSource {
  const searches = new UpstreamSearches(upstream, limits, clock, budget);
  const claims = shared === undefined ? undefined : new ClaimedSearches(shared, clock);
  return {
    find: async (prefixes, requester = UNATTRIBUTED) => {
      const asked = [...new Set(prefixes)];
      const at = clock.now();
      const started = clock.monotonic();
      const cached = shared === undefined ? new Map<number, CachedSearch>() : await shared.lookup(asked, at);
      if (claims !== undefined) {
        const claimed = await claims.answersOf(asked.filter((prefix) => !cached.has(prefix)));
        for (const [prefix, answer] of claimed) cached.set(prefix, answer);
      }
      const fullHashes: FullHashMatch[] = [];
      let expiresAt = Infinity;
      for (const entry of cached.values()) {
        for (const match of entry.fullHashes) fullHashes.push(match);
        expiresAt = Math.min(expiresAt, entry.expiresAt);
      }
      const missing = asked.filter((prefix) => !cached.has(prefix));
      if (missing.length > 0) {
        // The time spent on the shared cache and on other instances' claims is part of the search's wait.
        const answer = await searches.search(missing, requester, clock.monotonic() - started);
        // One by one: a spread of an upstream's array into a call overflows the stack past some 100,000.
        for (const match of answer.fullHashes) fullHashes.push(match);
        expiresAt = Math.min(expiresAt, at + answer.cacheDurationMs);
        // Not awaited: the answer need not wait for Redis, and store() never rejects.
        if (shared !== undefined && answer.cacheDurationMs > 0) void shared.store(missing, answer.fullHashes, at + answer.cacheDurationMs);
      }
      // What is left of the shortest duration now, after the lookups took their time; never past 24 h (SB-4).
      const validForMs = Number.isFinite(expiresAt) ? expiresAt - clock.now() : 0;
      return { fullHashes, cacheDurationMs: Math.min(MAX_CACHE_DURATION_MS, Math.max(0, validForMs)) };
    },
  };
}
