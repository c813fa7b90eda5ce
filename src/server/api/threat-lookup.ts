import type { ThreatTypeName } from '../../client/threats.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { ListCatalog } from '../catalog.ts';

/** A full hash that some threat lists hold, with the lists that hold it. */
export interface ListedFullHash {
  fullHash: string;
  lists: ListDefinition[];
}

/**
 * The full hashes under each 4-byte prefix in the current threat lists, grouped by hash. Only lists that
 * really hold a hash answer for it (API.md §3 pitfall 7).
 */
export function fullHashesForPrefixes(catalog: ListCatalog, prefixes: Iterable<number>): ListedFullHash[] {
  const byHash = new Map<string, ListDefinition[]>();
  const snapshots = catalog.threatSnapshots();
  for (const prefix of new Set(prefixes)) {
    for (const { definition, snapshot } of snapshots) {
      for (const fullHash of snapshot.fullHashesWithPrefix(prefix)) {
        const lists = byHash.get(fullHash);
        if (lists === undefined) byHash.set(fullHash, [definition]);
        else if (!lists.includes(definition)) lists.push(definition);
      }
    }
  }
  return [...byHash].map(([fullHash, lists]) => ({ fullHash, lists }));
}

/** The threat types of the lists holding any of these full hashes (exact-URL lookups: urls:search, threatMatches). */
export function threatTypesOfHashes(catalog: ListCatalog, fullHashes: readonly string[]): ThreatTypeName[] {
  const types = new Set<ThreatTypeName>();
  for (const { definition, snapshot } of catalog.threatSnapshots()) {
    if (fullHashes.some((hash) => snapshot.hasFullHash(hash))) for (const type of definition.threatTypes) types.add(type);
  }
  return [...types];
}
