import { prefix32 } from '../url/hash-string.ts';

/**
 * An immutable set of 8-, 16- or 32-byte hashes (the global cache `gc-32b` holds full hashes), kept as
 * one sorted byte array: W bytes per hash and nothing more. Lookups take the hash as a byte string (the
 * representation of the lookup path, see url/hash.ts) and binary-search on its first four bytes before
 * comparing the rest.
 */
export class WideHashSet {
  private readonly view: DataView;

  private constructor(
    readonly width: 8 | 16 | 32,
    private readonly bytes: Uint8Array,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Builds the set from the concatenation of strictly ascending hashes of `width` bytes. */
  static fromSorted(width: 8 | 16 | 32, sorted: Uint8Array): WideHashSet {
    if (sorted.length % width !== 0) throw new RangeError(`${sorted.length} bytes are not a whole number of ${width}-byte hashes`);
    for (let offset = width; offset < sorted.length; offset += width) {
      if (compareAt(sorted, offset - width, sorted, offset, width) >= 0) {
        throw new RangeError(`hashes are not strictly ascending at index ${offset / width}`);
      }
    }
    // A copy of the bytes (Buffer#slice would only be a view), so the caller cannot change the set.
    return new WideHashSet(width, new Uint8Array(sorted));
  }

  get size(): number {
    return this.bytes.length / this.width;
  }

  get byteLength(): number {
    return this.bytes.byteLength;
  }

  /** The sorted concatenated hashes, as a new array. */
  values(): Uint8Array {
    return this.bytes.slice();
  }

  /** True when the first `width` bytes of the byte string `hash` are in the set. */
  has(hash: string): boolean {
    const width = this.width;
    const key = prefix32(hash);
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const offset = mid * width;
      const candidate = this.view.getUint32(offset);
      let order = candidate - key;
      for (let i = 4; order === 0 && i < width; i++) order = this.bytes[offset + i]! - hash.charCodeAt(i);
      if (order === 0) return true;
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }
}

/** Lexicographic order of two `width`-byte hashes inside byte arrays. */
export function compareAt(a: Uint8Array, aOffset: number, b: Uint8Array, bOffset: number, width: number): number {
  for (let i = 0; i < width; i++) {
    const d = a[aOffset + i]! - b[bOffset + i]!;
    if (d !== 0) return d;
  }
  return 0;
}
