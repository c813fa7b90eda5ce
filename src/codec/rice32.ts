import { decodeDeltas32, encodeDeltas32 } from './rice-deltas32.ts';
import type { RiceEncodeOptions } from './rice-parameter.ts';

/**
 * v5 `RiceDeltaEncoded32Bit` (docs/api.md), field for field as protoc-gen-es generates it: 4-byte hash
 * prefixes read as big-endian integers, or removal indices.
 */
export interface RiceDeltaEncoded32Bit {
  firstValue: number;
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/**
 * Decodes a v5 32-bit list (SB-10): entries_count + 1 strictly ascending integers. For prefixes these
 * are big-endian, so ascending order is already the lexicographic order of the prefixes and no sort is
 * needed (SB-14 point 3); `prefixesToBytes` turns them into bytes. An absent message is an empty list.
 * Throws RiceDecodeError on malformed input.
 */
export function decodeRice32(encoded: RiceDeltaEncoded32Bit | undefined): Uint32Array {
  if (encoded === undefined) return new Uint32Array(0);
  return decodeDeltas32('v5-32bit', encoded);
}

/**
 * Encodes strictly ascending 32-bit integers (big-endian prefixes, or removal indices) as a v5 message,
 * with the shortest-coding Rice parameter in 3..30 unless one is given. An empty list yields undefined:
 * leave the message out. Throws RiceEncodeError for unsorted or repeated values.
 */
export function encodeRice32(values: Uint32Array, options: RiceEncodeOptions = {}): RiceDeltaEncoded32Bit | undefined {
  return encodeDeltas32('v5-32bit', values, options.riceParameter);
}
