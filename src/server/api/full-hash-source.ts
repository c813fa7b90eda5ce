import type { SafeBrowsingClient } from '../../client/safe-browsing-client.ts';
import { MAX_CACHE_DURATION_MS } from '../../client/local-cache.ts';
import type { FullHashMatch, ThreatDetail } from '../../client/threats.ts';
import { SbkitError } from '../../sbkit-error.ts';
import { hashStringOfHex } from '../../url/hash.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListCatalog } from '../catalog.ts';
import type { ApiSettings } from './settings.ts';

/** Full hashes under 4-byte prefixes with their threat details, and how long the answer holds. */
interface FullHashAnswer {
  fullHashes: FullHashMatch[];
  cacheDurationMs: number;
}

/** Where `hashes:search`, `urls:search` and the v4 lookups get full hashes: our own lists, or an upstream. */
export interface FullHashSource {
  find(prefixes: readonly number[]): Promise<FullHashAnswer>;
}

/**
 * Full hashes from the current threat lists of the catalog; only lists that really hold a hash answer
 * for it (docs/api.md §3 pitfall 7), each with the threat types of its lists.
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
}

/**
 * Full hashes from an upstream server (SB-11): first from the cache that proxy instances share, when
 * there is one, then through sbkit's own client (a proxy is a client of its upstream), whose memory
 * cache answers next, negative answers included, and which keeps the request-frequency rules towards
 * the upstream. An upstream that cannot answer makes the search 503, so clients retry later.
 */
export function upstreamFullHashes(client: SafeBrowsingClient, shared?: SharedSearchCache, now: () => number = Date.now): FullHashSource {
  return {
    find: async (prefixes) => {
      const asked = [...new Set(prefixes)];
      const at = now();
      const cached = shared === undefined ? new Map<number, CachedSearch>() : await shared.lookup(asked, at);
      const fullHashes: FullHashMatch[] = [];
      let expiresAt = Infinity;
      for (const entry of cached.values()) {
        fullHashes.push(...entry.fullHashes);
        expiresAt = Math.min(expiresAt, entry.expiresAt);
      }
      const missing = asked.filter((prefix) => !cached.has(prefix));
      if (missing.length > 0) {
        let answer: Awaited<ReturnType<SafeBrowsingClient['searchPrefixes']>>;
        try {
          answer = await client.searchPrefixes(missing);
        } catch (err) {
          const cause = err instanceof SbkitError ? { cause: err } : {};
          throw new WireError('UNAVAILABLE', `the upstream server cannot be asked now: ${(err as Error).message}`, cause);
        }
        // The client answers in the public form, hex; the server works on byte strings.
        const matches = answer.fullHashes.map(({ fullHash, details }) => ({ fullHash: hashStringOfHex(fullHash), details }));
        fullHashes.push(...matches);
        expiresAt = Math.min(expiresAt, at + answer.cacheDurationMs);
        // Not awaited: the answer need not wait for Redis, and store() never rejects.
        if (shared !== undefined && answer.cacheDurationMs > 0) void shared.store(missing, matches, at + answer.cacheDurationMs);
      }
      // What is left of the shortest duration now, after the lookups took their time; never past 24 h (SB-4).
      const validForMs = Number.isFinite(expiresAt) ? expiresAt - now() : 0;
      return { fullHashes, cacheDurationMs: Math.min(MAX_CACHE_DURATION_MS, Math.max(0, validForMs)) };
    },
  };
}
