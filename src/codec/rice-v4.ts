import { decodeDeltas32, encodeDeltas32, type RiceDeltas32 } from './rice-deltas32.ts';
import { RiceDecodeError, RiceEncodeError } from './rice-error.ts';
import type { RiceEncodeOptions } from './rice-parameter.ts';

/** v4 `RiceDeltaEncoding` (docs/api.md), field for field as protoc-gen-es generates it. */
export interface RiceDeltaEncoding {
  /** An int64 on the wire, so a bigint, though only 0..2^32-1 is meaningful. */
  firstValue: bigint;
  riceParameter: number;
  numEntries: number;
  encodedData: Uint8Array;
}

/**
 * Decodes v4 `rice_indices`: strictly ascending removal indices into the sorted local list. They need no
 * byte swap (SB-10: removal indices are unchanged between v4 and v5). An absent message is no removals.
 * Throws RiceDecodeError on malformed input.
 */
export function decodeV4RiceIndices(encoding: RiceDeltaEncoding | undefined): Uint32Array {
  if (encoding === undefined) return new Uint32Array(0);
  return decodeDeltas32('v4', deltasOf(encoding));
}

/**
 * Decodes v4 `rice_hashes` into 4-byte prefixes held as big-endian integers, ascending: the form
 * `decodeRice32` returns for v5, so one store serves both protocols.
 *
 * SB-14 point 3: the v4 server read each prefix as a little-endian integer before sorting and encoding,
 * so the decoded integers are byte-swapped back into prefixes and then sorted, lexicographically. The
 * decoder has already refused repeats, and a byte swap keeps distinct values distinct.
 */
export function decodeV4RiceHashes(encoding: RiceDeltaEncoding | undefined): Uint32Array {
  if (encoding === undefined) return new Uint32Array(0);
  const values = decodeDeltas32('v4', deltasOf(encoding));
  for (let i = 0; i < values.length; i++) values[i] = swapBytes(values[i]!);
  return values.sort();
}

/**
 * Encodes strictly ascending removal indices as a v4 message, with the shortest-coding Rice parameter
 * in 2..28 unless one is given. An empty list yields undefined. Throws RiceEncodeError for unsorted or
 * repeated indices.
 */
export function encodeV4RiceIndices(indices: Uint32Array, options: RiceEncodeOptions = {}): RiceDeltaEncoding | undefined {
  return encodingOf(encodeDeltas32('v4', indices, options.riceParameter));
}

/**
 * Encodes strictly ascending 4-byte prefixes, held as big-endian integers, as v4 `rice_hashes`: each is
 * read as a little-endian integer and those are sorted before coding, as the v4 server does (SB-14
 * point 3). An empty list yields undefined. Throws RiceEncodeError for unsorted or repeated prefixes.
 */
export function encodeV4RiceHashes(prefixes: Uint32Array, options: RiceEncodeOptions = {}): RiceDeltaEncoding | undefined {
  for (let i = 1; i < prefixes.length; i++) {
    if (prefixes[i]! <= prefixes[i - 1]!) {
      const shown = (value: number): string => `0x${value.toString(16).padStart(8, '0')}`;
      throw new RiceEncodeError('not-ascending', 'v4', `prefix ${shown(prefixes[i]!)} at index ${i} follows ${shown(prefixes[i - 1]!)}`);
    }
  }
  const littleEndian = new Uint32Array(prefixes.length);
  for (let i = 0; i < prefixes.length; i++) littleEndian[i] = swapBytes(prefixes[i]!);
  return encodingOf(encodeDeltas32('v4', littleEndian.sort(), options.riceParameter));
}

/** Reverses the byte order of a 32-bit integer: a prefix's little-endian reading to its big-endian one. */
function swapBytes(value: number): number {
  return ((value << 24) | ((value & 0xff00) << 8) | ((value >>> 8) & 0xff00) | (value >>> 24)) >>> 0;
}

function deltasOf(encoding: RiceDeltaEncoding): RiceDeltas32 {
  const { firstValue, riceParameter, numEntries, encodedData } = encoding;
  if (firstValue < 0n || firstValue > 0xffff_ffffn) {
    throw new RiceDecodeError('first-value-out-of-range', 'v4', `first_value is ${firstValue}`);
  }
  return { firstValue: Number(firstValue), riceParameter, entriesCount: numEntries, encodedData };
}

function encodingOf(deltas: RiceDeltas32 | undefined): RiceDeltaEncoding | undefined {
  if (deltas === undefined) return undefined;
  const { firstValue, riceParameter, entriesCount, encodedData } = deltas;
  return { firstValue: BigInt(firstValue), riceParameter, numEntries: entriesCount, encodedData };
}
