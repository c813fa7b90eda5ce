import type { SortedHashes } from '../../store/hash-list.ts';
import type { HashWidth } from '../../lists/list-name.ts';

export { hashCount } from '../../store/hash-list.ts';

export function emptyHashes(width: HashWidth): SortedHashes {
  return width === 4 ? { width, values: new Uint32Array(0) } : { width, bytes: new Uint8Array(0) };
}

/** Hashes `start` (inclusive) to `end` (exclusive) of a sorted list: a view, not a copy. */
export function hashRange(hashes: SortedHashes, start: number, end: number): SortedHashes {
  if (hashes.width === 4) return { width: 4, values: hashes.values.subarray(start, end) };
  return { width: hashes.width, bytes: hashes.bytes.subarray(start * hashes.width, end * hashes.width) };
}
