// A list's copies with the operator's edits of its `entries` sources laid over them (entry-edits.ts):
// removals taken out of those sources' hashes only (an expression a feed also carries stays listed),
// additions added once.

import { createHash } from 'node:crypto';
import { expressionHashString } from '../../url/hash.ts';
import { sortFullHashes, sortedFullHashes } from '../lists/full-hashes.ts';
import type { EntryEdits } from './entry-edits.ts';
import type { SourceCopy } from './source-states.ts';

/** How the operator's additions are named in reports. */
export const EDITS_LABEL = 'entries added through /admin/lists';

const FULL_HASH_BYTES = 32;

/** Names `edits` for a list's content key: the same edits, the same name. */
export function editsKey(edits: EntryEdits): string {
  return `edits ${createHash('sha256').update(JSON.stringify(edits)).digest('hex')}`;
}

/**
 * The sorted, distinct full hashes of `copies` (`fromEntries[i]`: copy i is an `entries` source's) with
 * `edits` applied.
 */
export function withEntryEdits(copies: readonly SourceCopy[], fromEntries: readonly boolean[], edits: EntryEdits): Uint8Array {
  const removed = new Set(edits.removed.map(expressionHashString));
  const parts = copies.map((copy, i) => (fromEntries[i] && removed.size > 0 ? without(copy.fullHashes, removed) : copy.fullHashes));
  parts.push(sortedFullHashes(edits.added));
  return sortFullHashes(Buffer.concat(parts)).bytes;
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
