/**
 * A compact, immutable set of 4-byte hash prefixes (big-endian unsigned 32-bit values).
 *
 * Large sets are bucketed by their top 16 bits: an offset table of 65,537 entries says where each
 * bucket's low 16 bits start in one Uint16Array. At 2 M prefixes that is 2 bytes per prefix plus 0.13
 * for the table (Firefox's delta-coded set needs about 2; Chromium stores 4), every lookup is exact,
 * and a lookup is one table read and a binary search over ~30 values. Below SMALL_SET_LIMIT, where the
 * fixed table would cost more than it saves, the values are kept as a sorted Uint32Array.
 */
export class PrefixSet {
  /** From here on the bucketed form (2n bytes + a 4 × 65,537-byte table) is no larger than 4n bytes. */
  static readonly SMALL_SET_LIMIT = 2 * 65537;
  static readonly EMPTY = new PrefixSet(new Uint32Array(0), undefined, undefined);

  private constructor(
    private readonly small: Uint32Array | undefined,
    private readonly offsets: Uint32Array | undefined,
    private readonly lows: Uint16Array | undefined,
  ) {}

  /** Builds the set from strictly ascending values; anything else is a programming error upstream. */
  static fromSorted(values: Uint32Array): PrefixSet {
    for (let i = 1; i < values.length; i++) {
      if (values[i]! <= values[i - 1]!) throw new RangeError(`prefixes are not strictly ascending at index ${i}`);
    }
    if (values.length < PrefixSet.SMALL_SET_LIMIT) return new PrefixSet(values.slice(), undefined, undefined);
    const offsets = new Uint32Array(65537);
    const lows = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      offsets[(value >>> 16) + 1]!++;
      lows[i] = value & 0xffff;
    }
    for (let b = 1; b < offsets.length; b++) offsets[b]! += offsets[b - 1]!;
    return new PrefixSet(undefined, offsets, lows);
  }

  get size(): number {
    return this.small?.length ?? this.lows!.length;
  }

  /** Bytes held by the set's arrays: what "resident memory per stored prefix" measures. */
  get byteLength(): number {
    return this.small?.byteLength ?? this.offsets!.byteLength + this.lows!.byteLength;
  }

  has(prefix: number): boolean {
    if (this.small !== undefined) return binarySearch(this.small, prefix, 0, this.small.length);
    const bucket = prefix >>> 16;
    return searchLows(this.lows!, prefix & 0xffff, this.offsets![bucket]!, this.offsets![bucket + 1]!);
  }

  /**
   * Which of `prefixes` the set holds: `found[i]` becomes 1 or 0 for `prefixes[i]`. The same answers as
   * {@link has}, but for a large set the look-ups are made in ascending order of bucket rather than in
   * the order given. The prefixes of a bulk check are random, so one by one each costs a cache miss or
   * two somewhere in megabytes of lows; in bucket order the lows are read front to back, and a hundred
   * thousand look-ups cost about a quarter as much (bench/check.ts).
   */
  hasEach(prefixes: Uint32Array, found: Uint8Array): void {
    if (this.small !== undefined || prefixes.length < BULK_LOOKUP_MIN) {
      for (let i = 0; i < prefixes.length; i++) found[i] = this.has(prefixes[i]!) ? 1 : 0;
      return;
    }
    const offsets = this.offsets!;
    const lows = this.lows!;
    // A counting sort of the positions by bucket, then the look-ups in that order.
    const starts = new Uint32Array(65537);
    for (let i = 0; i < prefixes.length; i++) starts[(prefixes[i]! >>> 16) + 1]!++;
    for (let bucket = 1; bucket < starts.length; bucket++) starts[bucket]! += starts[bucket - 1]!;
    const order = new Uint32Array(prefixes.length);
    for (let i = 0; i < prefixes.length; i++) order[starts[prefixes[i]! >>> 16]!++] = i;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      const prefix = prefixes[i]!;
      const bucket = prefix >>> 16;
      found[i] = searchLows(lows, prefix & 0xffff, offsets[bucket]!, offsets[bucket + 1]!) ? 1 : 0;
    }
  }

  /** The prefixes in ascending order, as a new array. */
  values(): Uint32Array {
    if (this.small !== undefined) return this.small.slice();
    const out = new Uint32Array(this.lows!.length);
    const offsets = this.offsets!;
    for (let bucket = 0; bucket < 65536; bucket++) {
      const high = bucket * 65536;
      for (let i = offsets[bucket]!; i < offsets[bucket + 1]!; i++) out[i] = high + this.lows![i]!;
    }
    return out;
  }
}

/** Below this many look-ups, sorting them by bucket (a table of 65,537 counts) costs more than it saves. */
const BULK_LOOKUP_MIN = 4096;

// The same binary search twice, once per element kind: V8 keeps each monomorphic, a tenth faster per
// look-up than one function that sees both (bench/store.ts).
function searchLows(lows: Uint16Array, low: number, from: number, to: number): boolean {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const candidate = lows[mid]!;
    if (candidate === low) return true;
    if (candidate < low) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

function binarySearch(sorted: Uint32Array, value: number, from: number, to: number): boolean {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const candidate = sorted[mid]!;
    if (candidate === value) return true;
    if (candidate < value) lo = mid + 1;
    else hi = mid;
  }
  return false;
}
