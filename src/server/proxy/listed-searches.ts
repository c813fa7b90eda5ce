// Searches of a mirror whose lists are its upstream's whole database. A Web Risk client asks
// `hashes:search` only for the prefixes its local lists hold: Web Risk has no real-time searches beyond
// its lists, so no full hash lies under any other prefix. A proxy holding a copy of those lists answers
// every other prefix itself, with no upstream call — Web Risk bills per search call — and sends upstream
// only the prefixes a list holds. Until every list holds a copy, and whenever one's copy is not current
// (its updates failed for too long, or it was dropped: upstream-mirror.ts listCopies), every prefix goes
// up as before: an empty list is not the upstream's, and an old copy lacks what the upstream listed since.

import type { SortedHashes } from '../../store/hash-list.ts';
import { sortedHashesInclude } from '../../store/hash-list.ts';
import type { FullHashAnswer, FullHashSource } from '../api/full-hash-source.ts';

/**
 * How long a prefix no list holds is answered as unlisted: the time the proxy takes at least between two
 * copies of the lists (SB-11's five minutes), after which the copy may hold it.
 */
export const UNLISTED_PREFIX_CACHE_MS = 5 * 60_000;

/** A 4-byte prefix as the byte string sortedHashesInclude reads. */
function prefixString(prefix: number): string {
  return String.fromCharCode(prefix >>> 24, (prefix >>> 16) & 0xff, (prefix >>> 8) & 0xff, prefix & 0xff);
}

/**
 * `upstream` asked only for the prefixes one of `lists()` holds; `lists()` gives the mirrored lists'
 * hashes, or undefined while some list has no current copy (then every prefix goes up).
 */
export function listedSearches(upstream: FullHashSource, lists: () => readonly SortedHashes[] | undefined): FullHashSource {
  return {
    find: async (prefixes, requester): Promise<FullHashAnswer> => {
      const held = lists();
      if (held === undefined) return upstream.find(prefixes, requester);
      const listed = prefixes.filter((prefix) => {
        const key = prefixString(prefix);
        return held.some((hashes) => hashes.width === 4 && sortedHashesInclude(hashes, key));
      });
      if (listed.length === 0) return { fullHashes: [], cacheDurationMs: UNLISTED_PREFIX_CACHE_MS };
      const answer = await upstream.find(listed, requester);
      // The prefixes answered here as unlisted hold no longer than the lists' copy: neither duration may outlast it.
      const capped = { ...answer, cacheDurationMs: Math.min(answer.cacheDurationMs, UNLISTED_PREFIX_CACHE_MS) };
      if (answer.negativeCacheDurationMs !== undefined)
        capped.negativeCacheDurationMs = Math.min(answer.negativeCacheDurationMs, UNLISTED_PREFIX_CACHE_MS);
      return capped;
    },
  };
}
