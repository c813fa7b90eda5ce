import { type SortedHashes, hashCount, hashRange } from '../../store/hash-list.ts';
import { compareAt } from '../../store/hash-set.ts';

/**
 * What turns one sorted list into another (SB-9): the ascending indices, in the old list, of the entries
 * the new one lacks, and the entries only the new one has. A client removes first, then adds.
 *
 * A diff is also a sequence of `size` steps, removals first (in index order), then additions (in
 * order); applying a prefix of it gives a well-defined list in between (`partlyApplied`), which is how
 * an update cut short by `max_update_entries` is resumed (SB-12).
 */
export interface ListDiff {
  removals: Uint32Array;
  additions: SortedHashes;
  size: number;
}

/** The diff from `from` to `to`, both strictly ascending and of one width: one linear merge. */
export function diffLists(from: SortedHashes, to: SortedHashes): ListDiff {
  const diff = from.width === 4 && to.width === 4 ? diff4(from.values, to.values) : diffWide(from, to);
  return { ...diff, size: diff.removals.length + hashCount(diff.additions) };
}

function diff4(from: Uint32Array, to: Uint32Array): Omit<ListDiff, 'size'> {
  // Sized for the worst case, then trimmed: one pass over both lists instead of a counting pass first.
  const removals = new Uint32Array(from.length);
  const additions = new Uint32Array(to.length);
  let i = 0;
  let j = 0;
  let r = 0;
  let a = 0;
  while (i < from.length && j < to.length) {
    const x = from[i]!;
    const y = to[j]!;
    if (x === y) {
      i++;
      j++;
    } else if (x < y) removals[r++] = i++;
    else additions[a++] = to[j++]!;
  }
  while (i < from.length) removals[r++] = i++;
  while (j < to.length) additions[a++] = to[j++]!;
  return { removals: removals.slice(0, r), additions: { width: 4, values: additions.slice(0, a) } };
}

function diffWide(from: SortedHashes, to: SortedHashes): Omit<ListDiff, 'size'> {
  if (from.width === 4 || to.width === 4 || from.width !== to.width) {
    throw new RangeError(`cannot diff ${from.width}-byte hashes against ${to.width}-byte hashes`);
  }
  const w = from.width;
  const m = hashCount(from);
  const n = hashCount(to);
  const removals = new Uint32Array(m);
  const additions = new Uint8Array(n * w);
  let i = 0;
  let j = 0;
  let r = 0;
  let a = 0;
  while (i < m && j < n) {
    const order = compareAt(from.bytes, i * w, to.bytes, j * w, w);
    if (order === 0) {
      i++;
      j++;
    } else if (order < 0) removals[r++] = i++;
    else additions.set(to.bytes.subarray(j * w, ++j * w), a++ * w);
  }
  while (i < m) removals[r++] = i++;
  if (j < n) additions.set(to.bytes.subarray(j * w), a * w);
  a += n - j;
  return { removals: removals.slice(0, r), additions: { width: w, bytes: additions.slice(0, a * w) } };
}

/**
 * Steps `start` to `end` of a diff, as an update of the list that `start` steps made: removal indices
 * move down by the removals already applied (they are all below the remaining ones).
 */
export function diffSteps(diff: ListDiff, start: number, end: number): { removals: Uint32Array; additions: SortedHashes } {
  const r = diff.removals.length;
  let removals = diff.removals.subarray(Math.min(start, r), Math.min(end, r));
  if (start > 0 && removals.length > 0) removals = removals.map((index) => index - start);
  const additions = hashRange(diff.additions, Math.max(start, r) - r, Math.max(end, r) - r);
  return { removals, additions };
}

/** The list `from` becomes after the first `steps` steps of `diff` (0 ≤ steps ≤ diff.size). */
export function partlyApplied(from: SortedHashes, diff: ListDiff, steps: number): SortedHashes {
  const r = diff.removals.length;
  if (steps <= r) return withoutIndices(from, diff.removals.subarray(0, steps));
  return merged(withoutIndices(from, diff.removals), hashRange(diff.additions, 0, steps - r));
}

/** `list` without the entries at the ascending `indices`: the runs between them copied whole. */
function withoutIndices(list: SortedHashes, indices: Uint32Array): SortedHashes {
  if (indices.length === 0) return list;
  const n = hashCount(list);
  if (list.width === 4) {
    const out = new Uint32Array(n - indices.length);
    for (let q = 0, start = 0, k = 0; q <= indices.length; q++) {
      const index = q < indices.length ? indices[q]! : n;
      out.set(list.values.subarray(start, index), k);
      k += index - start;
      start = index + 1;
    }
    return { width: 4, values: out };
  }
  const w = list.width;
  const out = new Uint8Array((n - indices.length) * w);
  for (let q = 0, start = 0, k = 0; q <= indices.length; q++) {
    const index = q < indices.length ? indices[q]! : n;
    out.set(list.bytes.subarray(start * w, index * w), k * w);
    k += index - start;
    start = index + 1;
  }
  return { width: w, bytes: out };
}

/** The union of two strictly ascending lists with no common entry (a diff's additions are new). */
function merged(a: SortedHashes, b: SortedHashes): SortedHashes {
  if (hashCount(b) === 0) return a;
  if (hashCount(a) === 0) return b;
  if (a.width === 4 && b.width === 4) {
    const x = a.values;
    const y = b.values;
    const out = new Uint32Array(x.length + y.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < x.length && j < y.length) out[k++] = x[i]! < y[j]! ? x[i++]! : y[j++]!;
    out.set(x.subarray(i), k);
    out.set(y.subarray(j), k + x.length - i);
    return { width: 4, values: out };
  }
  if (a.width === 4 || b.width === 4) throw new RangeError('cannot merge hashes of different widths');
  const w = a.width;
  const m = hashCount(a);
  const n = hashCount(b);
  const out = new Uint8Array((m + n) * w);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < m && j < n) {
    const fromA = compareAt(a.bytes, i * w, b.bytes, j * w, w) < 0;
    const [source, index] = fromA ? [a.bytes, i++] : [b.bytes, j++];
    out.set(source.subarray(index * w, (index + 1) * w), k++ * w);
  }
  out.set(a.bytes.subarray(i * w), k * w);
  out.set(b.bytes.subarray(j * w), (k + m - i) * w);
  return { width: w, bytes: out };
}
