import fc from 'fast-check';
import type { SortedHashes } from '../../../src/store/hash-list.ts';
import type { HashWidth } from '../../../src/lists/list-name.ts';
import type { ListDefinition } from '../../../src/server/lists/list-definition.ts';

/** A list definition of the given width. */
export function definition(hashLength: HashWidth, name = `test-${hashLength}b`): ListDefinition {
  return { name, hashLength, threatTypes: ['MALWARE'], likelySafeTypes: [], description: 'test list' };
}

/** Prefixes of the hash pool: few, so that different full hashes often share their first bytes. */
const PREFIXES = [0x00000000, 0x00000001, 0x12345678, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x9e3779b9];
/** How many distinct full hashes `poolHash` can make. */
export const POOL_SIZE = PREFIXES.length * 16;

/**
 * Full hash number `key` (0 ≤ key < POOL_SIZE) of a small pool: bytes 0-3 from PREFIXES, bytes 4-7 shared
 * by pairs of keys (so 8-byte prefixes collide too), bytes 8-31 unique per key.
 */
export function poolHash(key: number): Buffer {
  const hash = Buffer.alloc(32, key);
  hash.writeUInt32BE(PREFIXES[key % PREFIXES.length]!, 0);
  hash.writeUInt32BE(key >> 1, 4);
  return hash;
}

/** The concatenated full hashes of pool keys, in the given order (duplicates kept). */
export function poolHashes(keys: readonly number[]): Uint8Array {
  return new Uint8Array(Buffer.concat(keys.map(poolHash)));
}

/** Any multiset of pool keys, in any order. */
export const poolKeys = (maxLength = 40) => fc.array(fc.nat({ max: POOL_SIZE - 1 }), { maxLength });

/**
 * The model: what a list of these full hashes serves at `width` — distinct sorted prefixes — as an
 * array of hex strings.
 */
export function modelServed(fullHashes: Uint8Array, width: HashWidth): string[] {
  const prefixes = new Set<string>();
  for (let o = 0; o < fullHashes.length; o += 32) prefixes.add(Buffer.from(fullHashes.subarray(o, o + width)).toString('hex'));
  return [...prefixes].sort();
}

/** Sorted hashes as hex strings, for comparison with the model. */
export function hexList(hashes: SortedHashes): string[] {
  const out: string[] = [];
  if (hashes.width === 4) for (const value of hashes.values) out.push(value.toString(16).padStart(8, '0'));
  else
    for (let o = 0; o < hashes.bytes.length; o += hashes.width)
      out.push(Buffer.from(hashes.bytes.subarray(o, o + hashes.width)).toString('hex'));
  return out;
}

/** SortedHashes from hex strings, sorted. */
export function fromHex(width: HashWidth, hexes: readonly string[]): SortedHashes {
  const sorted = [...hexes].sort();
  if (width === 4) return { width, values: Uint32Array.from(sorted, (h) => Number.parseInt(h, 16)) };
  return { width, bytes: new Uint8Array(Buffer.from(sorted.join(''), 'hex')) };
}
