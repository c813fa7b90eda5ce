import type { Sha256 } from '../url/sha256.ts';
import { bytesOfLatin1 } from '../url/byte-string.ts';
import { hashStringOfHex, hexOfBytes, prefix32 } from '../url/hash-string.ts';
import { prefixesFromBytes, prefixesToBytes } from '../codec/prefixes.ts';
import { compareAt, WideHashSet } from './hash-set.ts';
import type { HashWidth } from '../lists/list-name.ts';
import { PrefixSet } from './prefix-set.ts';
import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../sbkit-error.ts';

/** The hashes of a list in ascending order: 4-byte prefixes as big-endian numbers, wider hashes as bytes. */
export type SortedHashes = { width: 4; values: Uint32Array } | { width: 8 | 16 | 32; bytes: Uint8Array };

/** One list update as the wire delivers it after Rice decoding (SB-9, docs/api.md HashList). */
export interface HashListUpdate {
  /** false: replace the list with the additions; true: remove, then add. */
  partial: boolean;
  /** The version to store after this update; opaque bytes (a v4 `new_client_state` works the same). */
  version: Uint8Array;
  /** Ascending indices into the old sorted list. */
  removals: Uint32Array;
  additions: SortedHashes;
  /** SHA-256 of the sorted list after the update; absent when the server sent none. */
  checksum: Uint8Array | undefined;
}

/** Why an update could not be applied, named as Chromium names its store failures. */
const HASH_LIST_FAILURES = [
  'checksum-mismatch',
  'removal-index-out-of-range',
  'removals-not-ascending',
  'removals-in-full-update',
  'duplicate-addition',
  'additions-not-ascending',
  'width-mismatch',
  'checksum-missing',
] as const;
/** Why an update cannot be applied to a list. */
export type HashListFailure = (typeof HASH_LIST_FAILURES)[number];

/** SB-9: any of these means the local list is dropped and fetched again from scratch. */
export class HashListUpdateError extends SbkitError {
  /** Always `"HashListUpdateError"`, as logs and stack traces show it. */
  override readonly name = 'HashListUpdateError';
  /** `SBKIT_HASH_LIST_UPDATE_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'HASH_LIST_UPDATE', HashListFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('HASH_LIST_UPDATE', HASH_LIST_FAILURES);

  constructor(
    /** Which rule the update broke, for callers to branch on. */
    readonly reason: HashListFailure,
    /** The list the update was for. */
    readonly listName: string,
    detail: string,
  ) {
    super(`update of list "${listName}" rejected (${reason}): ${detail}; the list will be fetched again in full`);
    this.code = errorCode('HASH_LIST_UPDATE', reason);
  }
}

/** The bytes of sorted hashes as the checksum and the database files see them: concatenated, big-endian. */
export function hashBytes(hashes: SortedHashes): Uint8Array {
  return hashes.width === 4 ? prefixesToBytes(hashes.values) : hashes.bytes;
}

/** The inverse of hashBytes: concatenated big-endian hashes of `width` bytes, copied into SortedHashes. */
export function hashesFromBytes(width: HashWidth, bytes: Uint8Array): SortedHashes {
  if (width === 4) return { width, values: prefixesFromBytes(bytes) };
  return { width, bytes: Uint8Array.prototype.slice.call(bytes) };
}

/** True when `hashes` hold the first `width` bytes of `fullHash` (a hash byte string, url/hash.ts). Binary search. */
export function sortedHashesInclude(hashes: SortedHashes, fullHash: string): boolean {
  const width = hashes.width;
  const size = width === 4 ? hashes.values.length : hashes.bytes.length / width;
  const key = prefix32(fullHash);
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let order: number;
    if (hashes.width === 4) {
      order = hashes.values[mid]! - key;
    } else {
      order = 0;
      for (let i = 0; order === 0 && i < width; i++) order = hashes.bytes[mid * width + i]! - fullHash.charCodeAt(i);
    }
    if (order === 0) return true;
    if (order < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/** SB-9: the checksum is the SHA-256 of all hashes of the list, sorted and concatenated; `sha256` is the runtime's. */
export function checksumOf(hashes: SortedHashes, sha256: Sha256): Uint8Array {
  return sha256(hashBytes(hashes));
}

/**
 * The checksum of a list with no hashes: the SHA-256 of nothing (FIPS 180-4), written out so that no
 * SHA-256 code is loaded to make it (test/store/hash-list.test.ts checks it).
 */
const EMPTY_CHECKSUM = bytesOfLatin1(hashStringOfHex('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'));

/** A list of hashes as the client stores it: name, opaque version, width, hashes, checksum. Immutable. */
export class HashList {
  private constructor(
    readonly name: string,
    readonly version: Uint8Array,
    private readonly set: PrefixSet | WideHashSet,
    readonly checksum: Uint8Array,
  ) {}

  /** A list the client has no copy of yet: empty version, so the next update is a full one. */
  static empty(name: string, width: HashWidth): HashList {
    return HashList.fromSorted(name, new Uint8Array(0), emptyHashes(width), EMPTY_CHECKSUM);
  }

  /** A list from hashes already known to be strictly ascending (decoded updates, verified files), and their checksum. */
  static fromSorted(name: string, version: Uint8Array, hashes: SortedHashes, checksum: Uint8Array): HashList {
    const set = hashes.width === 4 ? PrefixSet.fromSorted(hashes.values) : WideHashSet.fromSorted(hashes.width, hashes.bytes);
    return new HashList(name, version, set, checksum);
  }

  get width(): HashWidth {
    return this.set instanceof PrefixSet ? 4 : this.set.width;
  }

  get size(): number {
    return this.set.size;
  }

  /** Bytes held in memory by the hashes. */
  get byteLength(): number {
    return this.set.byteLength;
  }

  /**
   * True when the list holds the first `width` bytes of `fullHash` (a hash byte string, url/hash.ts);
   * `prefix`, its first four bytes, when the caller has it already.
   */
  matches(fullHash: string, prefix?: number): boolean {
    if (this.set instanceof PrefixSet) return this.set.has(prefix ?? prefix32(fullHash));
    return this.set.has(fullHash);
  }

  /**
   * For 4-byte lists, {@link hasPrefix} of many prefixes at once (`found[i]` becomes 1 or 0 for
   * `prefixes[i]`), in bulk order where that is faster (PrefixSet.hasEach).
   */
  hasEachPrefix(prefixes: Uint32Array, found: Uint8Array): void {
    if (this.set instanceof PrefixSet) this.set.hasEach(prefixes, found);
    else found.fill(0);
  }

  /** For 4-byte lists: is this prefix listed? */
  hasPrefix(prefix: number): boolean {
    return this.set instanceof PrefixSet ? this.set.has(prefix) : false;
  }

  sortedHashes(): SortedHashes {
    return this.set instanceof PrefixSet ? { width: 4, values: this.set.values() } : { width: this.set.width, bytes: this.set.values() };
  }

  /**
   * SB-9: a full update replaces the list (with no additions it is empty); a partial one removes the
   * entries at the removal indices of the sorted old list, then adds the additions (removals before
   * additions). The result must match the server's checksum when it sent one, computed with the
   * runtime's `sha256`. Nothing is changed on failure: this returns a new list or throws
   * HashListUpdateError, never a half-applied list.
   */
  applyUpdate(update: HashListUpdate, sha256: Sha256): HashList {
    const fail = (reason: HashListFailure, detail: string) => new HashListUpdateError(reason, this.name, detail);
    const additions = update.additions;
    // The width belongs to the list (its name's -4b…-32b suffix, or the width it was created with): hashes
    // of another width are an answer about another list, full update or not.
    if (additions.width !== this.width)
      throw fail('width-mismatch', `the list holds ${this.width}-byte hashes, the update ${additions.width}-byte ones`);
    if (update.removals.length === 0 && hashCount(additions) === 0) {
      // docs/api.md: a partial answer without a checksum provides no update ("keep existing checksum"); an
      // answer whose checksum is the list's own confirms the list as it is. Either keeps the list under
      // the new version.
      const confirmed = update.checksum !== undefined && sameBytes(update.checksum, this.checksum);
      if ((update.partial && update.checksum === undefined) || confirmed)
        return new HashList(this.name, update.version, this.set, this.checksum);
    }
    let merged: SortedHashes;
    if (!update.partial) {
      if (update.removals.length > 0) throw fail('removals-in-full-update', `${update.removals.length} removal indices`);
      // An empty replacement needs no checksum to be verified: it is the empty list whatever was there.
      if (update.checksum === undefined && hashCount(additions) > 0)
        throw fail('checksum-missing', 'the full update carries no checksum to verify it by');
      assertAscending(additions, fail);
      merged = additions;
    } else {
      // A change that cannot be verified is refused, as the Go reference client does.
      if (update.checksum === undefined)
        throw fail('checksum-missing', 'the update changes the list but carries no checksum to verify it by');
      const kept = removeIndices(this.sortedHashes(), update.removals, fail);
      merged = mergeAdditions(kept, additions, fail);
    }
    const checksum = checksumOf(merged, sha256);
    if (update.checksum !== undefined && !sameBytes(update.checksum, checksum)) {
      throw fail('checksum-mismatch', `expected ${hexOfBytes(update.checksum)}, computed ${hexOfBytes(checksum)}`);
    }
    return HashList.fromSorted(this.name, update.version, merged, checksum);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

type Fail = (reason: HashListFailure, detail: string) => HashListUpdateError;

/** Number of hashes in a sorted list of any width. */
export function hashCount(hashes: SortedHashes): number {
  return hashes.width === 4 ? hashes.values.length : hashes.bytes.length / hashes.width;
}

function assertAscending(hashes: SortedHashes, fail: Fail): void {
  const i = firstUnordered(hashes);
  if (i < 0) return;
  if (orderAt(hashes, i) === 0) throw fail('duplicate-addition', `the hash at index ${i} is listed twice`);
  throw fail('additions-not-ascending', `the hash at index ${i} is out of order`);
}

/** The first index whose hash is not above the one before it; -1 when the hashes are strictly ascending. */
export function firstUnordered(hashes: SortedHashes): number {
  const n = hashCount(hashes);
  for (let i = 1; i < n; i++) if (orderAt(hashes, i) <= 0) return i;
  return -1;
}

/** The sign of hash `i` minus hash `i - 1`. */
function orderAt(hashes: SortedHashes, i: number): number {
  return hashes.width === 4
    ? hashes.values[i]! - hashes.values[i - 1]!
    : compareAt(hashes.bytes, i * hashes.width, hashes.bytes, (i - 1) * hashes.width, hashes.width);
}

function removeIndices(old: SortedHashes, removals: Uint32Array, fail: Fail): SortedHashes {
  const n = hashCount(old);
  for (let r = 0; r < removals.length; r++) {
    if (removals[r]! >= n) throw fail('removal-index-out-of-range', `index ${removals[r]} in a list of ${n}`);
    if (r > 0 && removals[r]! <= removals[r - 1]!) throw fail('removals-not-ascending', `index ${removals[r]} after ${removals[r - 1]}`);
  }
  if (removals.length === 0) return old;
  const keepCount = n - removals.length;
  if (old.width === 4) {
    const kept = new Uint32Array(keepCount);
    for (let i = 0, r = 0, k = 0; i < n; i++) {
      if (removals[r] === i) r++;
      else kept[k++] = old.values[i]!;
    }
    return { width: 4, values: kept };
  }
  const w = old.width;
  const kept = new Uint8Array(keepCount * w);
  for (let i = 0, r = 0, k = 0; i < n; i++) {
    if (removals[r] === i) r++;
    else kept.set(old.bytes.subarray(i * w, (i + 1) * w), k++ * w);
  }
  return { width: w, bytes: kept };
}

function mergeAdditions(kept: SortedHashes, additions: SortedHashes, fail: Fail): SortedHashes {
  assertAscending(additions, fail);
  const a = hashCount(kept);
  const b = hashCount(additions);
  if (b === 0) return kept;
  if (kept.width === 4 && additions.width === 4) {
    const out = new Uint32Array(a + b);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < a && j < b) {
      const x = kept.values[i]!;
      const y = additions.values[j]!;
      if (x === y) throw fail('duplicate-addition', `the addition at index ${j} is already in the list`);
      out[k++] = x < y ? (i++, x) : (j++, y);
    }
    while (i < a) out[k++] = kept.values[i++]!;
    while (j < b) out[k++] = additions.values[j++]!;
    return { width: 4, values: out };
  }
  if (kept.width === 4 || additions.width === 4) throw fail('width-mismatch', 'widths differ');
  const w = kept.width;
  const out = new Uint8Array((a + b) * w);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a && j < b) {
    const order = compareAt(kept.bytes, i * w, additions.bytes, j * w, w);
    if (order === 0) throw fail('duplicate-addition', `the addition at index ${j} is already in the list`);
    const [source, index] = order < 0 ? [kept.bytes, i++] : [additions.bytes, j++];
    out.set(source.subarray(index * w, (index + 1) * w), k++ * w);
  }
  if (i < a) out.set(kept.bytes.subarray(i * w), k * w);
  else if (j < b) out.set(additions.bytes.subarray(j * w), k * w);
  return { width: w, bytes: out };
}

export function emptyHashes(width: HashWidth): SortedHashes {
  return width === 4 ? { width, values: new Uint32Array(0) } : { width, bytes: new Uint8Array(0) };
}

/** Hashes `start` (inclusive) to `end` (exclusive) of a sorted list: a view, not a copy. */
export function hashRange(hashes: SortedHashes, start: number, end: number): SortedHashes {
  if (hashes.width === 4) return { width: 4, values: hashes.values.subarray(start, end) };
  return { width: hashes.width, bytes: hashes.bytes.subarray(start * hashes.width, end * hashes.width) };
}
