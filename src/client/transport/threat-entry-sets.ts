// v4's form of a list diff, which Web Risk's computeDiff shares: additions as raw or Rice-coded 4-byte
// prefixes, removals as raw or Rice-coded indices into the sorted old list (docs/api.md §2
// ThreatEntrySet). Both transports read their sets here; each names its own error through `fail`.

import { decodeV4RiceHashes, decodeV4RiceIndices, prefixesFromBytes, type RiceDeltaEncoding } from '../../codec/index.ts';
import { concatenated } from '../../codec/concatenated.ts';

/** One set of additions or removals, as v4's ThreatEntrySet holds it (Web Risk's fit the same shape). */
export interface EntrySet {
  rawHashes?: { prefixSize: number; rawHashes: Uint8Array } | undefined;
  riceHashes?: RiceDeltaEncoding | undefined;
  rawIndices?: { indices: readonly number[] } | undefined;
  riceIndices?: RiceDeltaEncoding | undefined;
}

/** What can be wrong with the sets themselves, whatever the protocol. */
type EntrySetFailure = 'prefix-size' | 'malformed-entry-set';

/** The protocol's error for a failure of its sets. */
export type EntrySetFail = (reason: EntrySetFailure, detail: string) => Error;

/**
 * The entries sets announce, from their headers alone: a Rice set is its first value plus `num_entries`
 * deltas (SB-10), a raw one as many prefixes or indices as it carries.
 */
export function announcedEntries(sets: readonly EntrySet[]): number {
  let entries = 0;
  for (const set of sets) {
    const rice = set.riceHashes ?? set.riceIndices;
    if (rice !== undefined) entries += rice.numEntries + 1;
    else if (set.rawHashes !== undefined) entries += Math.floor(set.rawHashes.rawHashes.length / Math.max(1, set.rawHashes.prefixSize));
    else entries += set.rawIndices?.indices.length ?? 0;
  }
  return entries;
}

/**
 * The additions of all sets, as big-endian 4-byte prefixes in ascending order. The data a set carries
 * decides how it is read; a compression type only labels it. v4 Rice data holds 4-byte prefixes only
 * (docs/api.md §2 RiceDeltaEncoding); RAW data may hold longer ones, which a 4-byte list cannot take.
 * Duplicates are left for the store to refuse (HashListUpdateError 'duplicate-addition').
 */
export function additionsOf(sets: readonly EntrySet[], fail: EntrySetFail): Uint32Array {
  const sizes = [...new Set(sets.map((set) => (set.rawHashes !== undefined ? set.rawHashes.prefixSize : 4)))];
  if (sizes.some((size) => size !== 4)) {
    const detail =
      sizes.length > 1 ? `the additions mix prefixes of ${sizes.join(', ')} bytes` : `the additions are ${sizes[0]}-byte prefixes`;
    throw fail('prefix-size', `${detail}; the list holds 4-byte prefixes only (use the v5 protocol for longer hashes)`);
  }
  const parts = sets.map((set, i) => {
    if (set.rawHashes !== undefined && set.riceHashes !== undefined)
      throw fail('malformed-entry-set', `additions[${i}] carries both raw_hashes and rice_hashes`);
    if (set.rawHashes === undefined) return decodeV4RiceHashes(set.riceHashes);
    const bytes = set.rawHashes.rawHashes;
    if (bytes.length % 4 !== 0)
      throw fail('malformed-entry-set', `additions[${i}] has ${bytes.length} bytes of raw_hashes, not a whole number of 4-byte prefixes`);
    return prefixesFromBytes(bytes, 'v4');
  });
  return concatenated(Uint32Array, parts).sort();
}

/** Removal indices of all sets, ascending (RAW indices come in no promised order). */
export function removalsOf(sets: readonly EntrySet[], fail: EntrySetFail): Uint32Array {
  const parts = sets.map((set, i) => {
    if (set.rawIndices !== undefined && set.riceIndices !== undefined)
      throw fail('malformed-entry-set', `removals[${i}] carries both raw_indices and rice_indices`);
    if (set.rawIndices === undefined) return decodeV4RiceIndices(set.riceIndices);
    const negative = set.rawIndices.indices.find((index) => index < 0);
    if (negative !== undefined) throw fail('malformed-entry-set', `removals[${i}] has the negative index ${negative}`);
    return Uint32Array.from(set.rawIndices.indices);
  });
  return concatenated(Uint32Array, parts).sort();
}
