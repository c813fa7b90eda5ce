import type { SafeBrowsingClient } from '../../client/safe-browsing-client.ts';
import type { FullHashMatch, ThreatDetail } from '../../client/threats.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListCatalog } from '../catalog.ts';
import type { ApiSettings } from './settings.ts';

/** Full hashes under 4-byte prefixes with their threat details, and how long the answer holds. */
export interface FullHashAnswer {
  fullHashes: FullHashMatch[];
  cacheDurationMs: number;
}

/** Where `hashes:search`, `urls:search` and the v4 lookups get full hashes: our own lists, or an upstream. */
export interface FullHashSource {
  find(prefixes: readonly number[]): Promise<FullHashAnswer>;
}

/**
 * Full hashes from the current threat lists of the catalog; only lists that really hold a hash answer
 * for it (API.md §3 pitfall 7), each with the threat types of its lists.
 */
export function catalogFullHashes(catalog: ListCatalog, settings: ApiSettings): FullHashSource {
  return {
    find: async (prefixes) => {
      const byHash = new Map<string, ThreatDetail[]>();
      const snapshots = catalog.threatSnapshots();
      for (const prefix of new Set(prefixes)) {
        for (const { definition, snapshot } of snapshots) {
          for (const fullHash of snapshot.fullHashesWithPrefix(prefix)) {
            const details = byHash.get(fullHash) ?? [];
            for (const threatType of definition.threatTypes) {
              if (!details.some((d) => d.threatType === threatType)) details.push({ threatType, attributes: [] });
            }
            byHash.set(fullHash, details);
          }
        }
      }
      return { fullHashes: [...byHash].map(([fullHash, details]) => ({ fullHash, details })), cacheDurationMs: settings.cacheDurationMs };
    },
  };
}

/**
 * Full hashes from an upstream server through sbkit's own client (a proxy is a client of its
 * upstream): its cache answers first, negative answers included, and the request-frequency rules hold
 * towards the upstream. An upstream that cannot answer makes the search 503, so clients retry later.
 */
export function upstreamFullHashes(client: SafeBrowsingClient): FullHashSource {
  return {
    find: async (prefixes) => {
      try {
        return await client.searchPrefixes(prefixes);
      } catch (err) {
        throw new WireError('UNAVAILABLE', `the upstream server cannot be asked now: ${(err as Error).message}`);
      }
    },
  };
}
