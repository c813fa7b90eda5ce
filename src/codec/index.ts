/**
 * Rice-Golomb coding of hash lists and removal indices (SB-10).
 *
 *   v5  RiceDeltaEncoded32Bit   <->  Uint32Array   big-endian 4-byte prefixes, or removal indices
 *   v5  RiceDeltaEncoded64Bit   <->  Uint8Array    8-byte hashes, concatenated
 *   v5  RiceDeltaEncoded128Bit  <->  Uint8Array    16-byte hashes
 *   v5  RiceDeltaEncoded256Bit  <->  Uint8Array    32-byte hashes
 *   v4  RiceDeltaEncoding       <->  Uint32Array   prefixes (little-endian on the wire) or indices
 *
 * Decoders return strictly ascending lists and throw RiceDecodeError on anything else; an absent
 * message decodes to an empty list. Encoders take strictly ascending lists, choose the Rice parameter
 * that codes them shortest, and return undefined for an empty list (leave the message out).
 */
export { prefixesFromBytes, prefixesToBytes } from './prefixes.ts';
export { decodeRice32, encodeRice32, type RiceDeltaEncoded32Bit } from './rice32.ts';
export {
  decodeRice128,
  decodeRice256,
  decodeRice64,
  encodeRice128,
  encodeRice256,
  encodeRice64,
  type RiceDeltaEncoded128Bit,
  type RiceDeltaEncoded256Bit,
  type RiceDeltaEncoded64Bit,
} from './rice-wide.ts';
export { decodeV4RiceHashes, decodeV4RiceIndices, encodeV4RiceHashes, encodeV4RiceIndices, type RiceDeltaEncoding } from './rice-v4.ts';
export { RiceDecodeError, RiceEncodeError, type RiceDecodeReason, type RiceEncodeReason } from './rice-error.ts';
export type { RiceFormat } from './rice-format.ts';
export type { RiceEncodeOptions } from './rice-parameter.ts';
