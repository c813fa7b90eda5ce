// A list's copies with the operator's edits of its `entries` sources laid over them (entry-edits.ts):
// removals taken out of those sources' hashes only (an expression a feed also carries stays listed),
// additions added once.

import { createHash } from 'node:crypto';
import { expressionHashString } from '../../url/hash.ts';
import { sortedFullHashes } from '../lists/full-hashes.ts';
import type { FeedWorkerPool } from './sources/feed-worker-pool.ts';
import type { EntryEdits } from './entry-edits.ts';
import type { MergedList, SourceCopy } from './sources/source-states.ts';

/** How the operator's additions are named in reports. */
export const EDITS_LABEL = 'entries added through /admin/lists';

const FULL_HASH_BYTES = 32;

/** Names `edits` for a list's content key: the same edits, the same name. */
export function editsKey(edits: EntryEdits): string {
  return `edits ${createHash('sha256').update(JSON.stringify(edits)).digest('hex')}`;
}

/**
 * The sorted, distinct full hashes of `copies` with `edits` applied, and how many distinct expressions
 * each `entries` source counts with them: its own without the removals, the first one with the additions
 * too. `sources[i]` is copy i's source: its index in the list, and whether it is an `entries` source.
 */
export async function withEntryEdits(
  copies: readonly SourceCopy[],
  sources: readonly { index: number; entries: boolean }[],
  edits: EntryEdits,
  workers: FeedWorkerPool,
): Promise<MergedList> {
  const removed = new Set(edits.removed.map(expressionHashString));
  const parts = copies.map((copy, i) => (sources[i]!.entries && removed.size > 0 ? without(copy.fullHashes, removed) : copy.fullHashes));
  const added = sortedFullHashes(edits.added);
  const first = sources.findIndex((source) => source.entries);
  const editedExpressions = new Map<number, number>();
  parts.forEach((part, i) => {
    if (sources[i]!.entries)
      editedExpressions.set(sources[i]!.index, i === first ? unionCount(part, added) : part.length / FULL_HASH_BYTES);
  });
  // Each part is sorted and distinct: merged on a feed worker (S5), the copies kept as they are.
  return { fullHashes: await workers.merge([...parts, added], true), editedExpressions };
}

/** How many distinct hashes two sorted sets of distinct full hashes hold together. */
function unionCount(a: Uint8Array, b: Uint8Array): number {
  const left = Buffer.from(a.buffer, a.byteOffset, a.length);
  const right = Buffer.from(b.buffer, b.byteOffset, b.length);
  let common = 0;
  for (let i = 0, j = 0; i < left.length && j < right.length;) {
    const order = left.compare(right, j, j + FULL_HASH_BYTES, i, i + FULL_HASH_BYTES);
    if (order === 0) common++;
    if (order <= 0) i += FULL_HASH_BYTES;
    if (order >= 0) j += FULL_HASH_BYTES;
  }
  return (left.length + right.length) / FULL_HASH_BYTES - common;
}

/** `fullHashes` (32 bytes each) without those in `removed` (as 32-character byte strings). */
function without(fullHashes: Uint8Array, removed: ReadonlySet<string>): Uint8Array {
  const bytes = Buffer.from(fullHashes.buffer, fullHashes.byteOffset, fullHashes.length);
  const kept: Buffer[] = [];
  for (let o = 0; o < bytes.length; o += FULL_HASH_BYTES) {
    const hash = bytes.subarray(o, o + FULL_HASH_BYTES);
    if (!removed.has(hash.toString('latin1'))) kept.push(hash);
  }
  return Buffer.concat(kept);
}
