import { expressionHashString } from '../../url/hash.ts';
import type { SortedHashes } from '../../store/hash-list.ts';
import { compareAt } from '../../store/hash-set.ts';
import type { HashWidth } from '../../lists/list-name.ts';
import type { EventLoopTurns } from '../../time/event-loop-turns.ts';

/** SHA-256: every list entry is a full hash of this many bytes (SB-7). */
export const FULL_HASH_BYTES = 32;

/** Full hashes in ascending order with no duplicates, and the first 4 bytes of each as a number. */
export interface SortedFullHashes {
  /** Concatenated 32-byte hashes, strictly ascending. */
  bytes: Uint8Array;
  /** prefixes[i] = the first 4 bytes of hash i, big-endian: ascending, repeated when hashes share them. */
  prefixes: Uint32Array;
}

/** Hashes are first spread over 2^12 buckets by their leading bits: about 500 per bucket for 2 M hashes. */
const BUCKET_BITS = 12;
const LOW_BITS = 32 - BUCKET_BITS;
const LOW_MASK = (1 << LOW_BITS) - 1;
const WORDS = FULL_HASH_BYTES / 4;
const TWO_32 = 2 ** 32;

/**
 * Sorts and deduplicates concatenated 32-byte hashes (any order, duplicates allowed; the length must be
 * a multiple of 32, which the caller checks). Millions of hashes do not fit in a CPU cache, so moving
 * each one to its sorted place directly would miss the cache at every hash: instead one pass spreads
 * them over buckets by their leading 12 bits (a few thousand sequential write streams), then each
 * bucket, small enough to stay in cache, is sorted on its own by the rest of its first 4 bytes (packed
 * with its position into one number, so the engine's native numeric sort does it), and by all 32 bytes
 * where those are equal (rare: 2^32 values).
 */
export function sortFullHashes(input: Uint8Array): SortedFullHashes {
  const n = input.length / FULL_HASH_BYTES;
  // Feeds' hashes arrive sorted already (feeds/formats/hash-buckets.ts): one pass checks it, instead of a sort that
  // holds the event loop for most of a second at a million hashes.
  if (isStrictlyAscending(input)) {
    const prefixes = new Uint32Array(n);
    for (let i = 0; i < n; i++) prefixes[i] = prefixAt(input, i * FULL_HASH_BYTES);
    // A plain view (no copy) even of a Buffer: what the sort returns, whatever the input was.
    return { bytes: new Uint8Array(input.buffer, input.byteOffset, input.length), prefixes };
  }
  // Whole 32-bit words move a hash in 8 steps; they need an aligned copy when the input is not aligned.
  // (A copy by Uint8Array's constructor: Buffer#slice would only be another unaligned view.)
  const aligned = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
  const source = new Uint32Array(aligned.buffer, aligned.byteOffset, n * WORDS);

  const starts = new Uint32Array((1 << BUCKET_BITS) + 1);
  for (let o = 0; o < aligned.length; o += FULL_HASH_BYTES) starts[(prefixAt(aligned, o) >>> LOW_BITS) + 1]!++;
  let largest = 0;
  for (let b = 1; b < starts.length; b++) {
    largest = Math.max(largest, starts[b]!);
    starts[b]! += starts[b - 1]!;
  }
  const bucketed = new Uint32Array(n * WORDS);
  const bucketedKeys = new Uint32Array(n);
  const next = starts.slice(0, -1);
  for (let i = 0; i < n; i++) {
    const key = prefixAt(aligned, i * FULL_HASH_BYTES);
    const at = next[key >>> LOW_BITS]!++;
    bucketedKeys[at] = key;
    copyHash(source, i, bucketed, at);
  }

  // Each bucket is copied out to scratch space and written back sorted and deduplicated, in place: the
  // write position never passes the bucket being read, as duplicates only make the list shorter.
  const bytes = new Uint8Array(bucketed.buffer);
  const prefixes = bucketedKeys;
  const scratch = new Uint32Array(largest * WORDS);
  const scratchBytes = new Uint8Array(scratch.buffer);
  const scratchKeys = new Uint32Array(largest);
  const packed = new Float64Array(largest);
  let count = 0;
  for (let b = 0; b + 1 < starts.length; b++) {
    const first = starts[b]!;
    const size = starts[b + 1]! - first;
    if (size === 0) continue;
    scratch.set(bucketed.subarray(first * WORDS, (first + size) * WORDS));
    scratchKeys.set(bucketedKeys.subarray(first, first + size));
    const run = packed.subarray(0, size);
    for (let j = 0; j < size; j++) run[j] = (scratchKeys[j]! & LOW_MASK) * TWO_32 + j;
    run.sort();
    orderTies(run, scratchBytes);
    for (let r = 0; r < size; r++) {
      // Division by 2^32 is exact; a floating-point remainder would cost a library call.
      const entry = run[r]!;
      const j = entry - Math.floor(entry / TWO_32) * TWO_32;
      const prefix = scratchKeys[j]!;
      if (
        count > 0 &&
        prefix === prefixes[count - 1] &&
        compareAt(scratchBytes, j * FULL_HASH_BYTES, bytes, (count - 1) * FULL_HASH_BYTES, FULL_HASH_BYTES) === 0
      )
        continue;
      copyHash(scratch, j, bucketed, count);
      prefixes[count++] = prefix;
    }
  }
  if (count === n) return { bytes, prefixes };
  return { bytes: bytes.slice(0, count * FULL_HASH_BYTES), prefixes: prefixes.slice(0, count) };
}

/** Hashes checked between two pauses: well under a millisecond's work. */
const HASHES_PER_SLICE = 1 << 14;

/**
 * sortFullHashes of `input`, pausing at `turns` between slices when the input is sorted already, as a
 * feed's hashes are (its workers sort and merge them): a million hashes take tens of milliseconds to
 * check, which a publication must not hold the event loop for (S5). Unsorted input is sorted in one go.
 */
export async function sortFullHashesInTurns(input: Uint8Array, turns: EventLoopTurns): Promise<SortedFullHashes> {
  const n = input.length / FULL_HASH_BYTES;
  const prefixes = new Uint32Array(n);
  for (let first = 0; first < n; first += HASHES_PER_SLICE) {
    const end = Math.min(n, first + HASHES_PER_SLICE);
    for (let i = first; i < end; i++) {
      const o = i * FULL_HASH_BYTES;
      if (i > 0 && compareAt(input, o - FULL_HASH_BYTES, input, o, FULL_HASH_BYTES) >= 0) return sortFullHashes(input);
      prefixes[i] = prefixAt(input, o);
    }
    await turns.pause();
  }
  return { bytes: new Uint8Array(input.buffer, input.byteOffset, input.length), prefixes };
}

/** Whether the concatenated 32-byte hashes are in strictly ascending order (so also distinct). */
function isStrictlyAscending(bytes: Uint8Array): boolean {
  for (let o = FULL_HASH_BYTES; o < bytes.length; o += FULL_HASH_BYTES) {
    if (compareAt(bytes, o - FULL_HASH_BYTES, bytes, o, FULL_HASH_BYTES) >= 0) return false;
  }
  return true;
}

function prefixAt(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

function copyHash(from: Uint32Array, fromIndex: number, to: Uint32Array, toIndex: number): void {
  const f = fromIndex * WORDS;
  const t = toIndex * WORDS;
  for (let w = 0; w < WORDS; w++) to[t + w] = from[f + w]!;
}

/**
 * In a bucket's sorted packed keys (key above 2^32, position below), orders each run of equal keys by
 * the full 32 bytes of its hashes, the bucket's hashes being `bytes`.
 */
function orderTies(run: Float64Array, bytes: Uint8Array): void {
  for (let start = 0; start < run.length;) {
    const key = Math.floor(run[start]! / TWO_32);
    let end = start + 1;
    while (end < run.length && Math.floor(run[end]! / TWO_32) === key) end++;
    if (end - start > 1) {
      const offset = (entry: number) => (entry - Math.floor(entry / TWO_32) * TWO_32) * FULL_HASH_BYTES;
      const tied = Array.from(run.subarray(start, end));
      tied.sort((a, b) => compareAt(bytes, offset(a), bytes, offset(b), FULL_HASH_BYTES));
      run.set(tied, start);
    }
    start = end;
  }
}

/**
 * The list as served at `width` bytes (SB-9, SB-11): the first `width` bytes of each full hash, sorted and
 * without duplicates (full hashes sharing a prefix give one entry). Shares memory with `full` when no
 * two hashes share a prefix (4 bytes) or when the list serves full hashes (32 bytes).
 */
export function servedPrefixes(full: SortedFullHashes, width: HashWidth): SortedHashes {
  const n = full.prefixes.length;
  if (width === 4) {
    const values = full.prefixes;
    let distinct = n === 0 ? 0 : 1;
    for (let i = 1; i < n; i++) if (values[i] !== values[i - 1]) distinct++;
    if (distinct === n) return { width, values };
    const unique = new Uint32Array(distinct);
    for (let i = 0, k = 0; i < n; i++) if (i === 0 || values[i] !== values[i - 1]) unique[k++] = values[i]!;
    return { width, values: unique };
  }
  if (width === FULL_HASH_BYTES) return { width, bytes: full.bytes };
  const out = new Uint8Array(n * width);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const from = i * FULL_HASH_BYTES;
    // Sorted hashes: a repeated prefix can only repeat the one just written.
    if (count > 0 && compareAt(full.bytes, from, out, (count - 1) * width, width) === 0) continue;
    out.set(full.bytes.subarray(from, from + width), count * width);
    count++;
  }
  return { width, bytes: count === n ? out : out.slice(0, count * width) };
}

/**
 * The SHA-256 hashes (SB-7) of expressions, sorted and without repeats, concatenated: 32 bytes each,
 * the form a list's snapshot is built from. Hashes are byte strings (url/hash.ts) because sorting those
 * with the default comparison is native, and several times faster here than comparing Buffer ranges.
 */
export function sortedFullHashes(expressions: Iterable<string>): Uint8Array {
  const hashes: string[] = [];
  for (const expression of expressions) hashes.push(expressionHashString(expression));
  // Char codes are bytes (0..255), so code-unit order is byte order.
  hashes.sort();
  let unique = 0;
  for (let i = 0; i < hashes.length; i++) {
    if (unique === 0 || hashes[i] !== hashes[unique - 1]) hashes[unique++] = hashes[i]!;
  }
  hashes.length = unique;
  return Buffer.from(hashes.join(''), 'latin1');
}

/**
 * The union of runs of full hashes, each sorted and without repeats (32 bytes each, concatenated): one
 * sorted list without repeats, in one linear pass. The parts of one feed hashed on several threads
 * (feeds/sources/feed-part.ts) come back as such runs; a sort of their concatenation would do again the
 * work each run already did.
 */
export function mergeSortedFullHashes(runs: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(runs.reduce((size, run) => size + run.length, 0));
  const offsets = runs.map(() => 0);
  let written = 0;
  for (;;) {
    // The run whose next hash is the least; few runs (one per core), so a scan beats a heap.
    let least = -1;
    for (let r = 0; r < runs.length; r++) {
      if (offsets[r]! >= runs[r]!.length) continue;
      if (least < 0 || compareAt(runs[r]!, offsets[r]!, runs[least]!, offsets[least]!, FULL_HASH_BYTES) < 0) least = r;
    }
    if (least < 0) break;
    const run = runs[least]!;
    const at = offsets[least]!;
    offsets[least] = at + FULL_HASH_BYTES;
    if (written > 0 && compareAt(run, at, out, written - FULL_HASH_BYTES, FULL_HASH_BYTES) === 0) continue;
    out.set(run.subarray(at, at + FULL_HASH_BYTES), written);
    written += FULL_HASH_BYTES;
  }
  return written === out.length ? out : out.slice(0, written);
}
