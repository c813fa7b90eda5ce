/**
 * The Rice-coded integer streams of the two protocols. They share one bit layout (SB-10) and differ
 * only in the width of the integers and in the Rice parameters a server may use (docs/api.md).
 */
export type RiceFormat = 'v5-32bit' | 'v5-64bit' | 'v5-128bit' | 'v5-256bit' | 'v4';

export interface RiceFormatFacts {
  /** Width of each integer in bits. */
  readonly bits: 32 | 64 | 128 | 256;
  /** Smallest Rice parameter docs/api.md allows when there are entries to decode. */
  readonly minParameter: number;
  /** Largest Rice parameter docs/api.md allows. */
  readonly maxParameter: number;
  /**
   * What our encoders send as the Rice parameter of a single-value list, where it is never read: 0 in
   * v4, as Google's v4 server does (docs/api.md); in range for v5, whose documentation guarantees the range.
   */
  readonly parameterWithoutEntries: number;
  /** The protobuf message, for error messages. */
  readonly message: string;
}

export const RICE_FORMATS: Readonly<Record<RiceFormat, RiceFormatFacts>> = {
  'v5-32bit': {
    bits: 32,
    minParameter: 3,
    maxParameter: 30,
    parameterWithoutEntries: 3,
    message: 'v5 RiceDeltaEncoded32Bit',
  },
  'v5-64bit': {
    bits: 64,
    minParameter: 35,
    maxParameter: 62,
    parameterWithoutEntries: 35,
    message: 'v5 RiceDeltaEncoded64Bit',
  },
  'v5-128bit': {
    bits: 128,
    minParameter: 99,
    maxParameter: 126,
    parameterWithoutEntries: 99,
    message: 'v5 RiceDeltaEncoded128Bit',
  },
  'v5-256bit': {
    bits: 256,
    minParameter: 227,
    maxParameter: 254,
    parameterWithoutEntries: 227,
    message: 'v5 RiceDeltaEncoded256Bit',
  },
  v4: {
    bits: 32,
    minParameter: 2,
    maxParameter: 28,
    parameterWithoutEntries: 0,
    message: 'v4 RiceDeltaEncoding',
  },
};

/**
 * Whether `riceParameter` may accompany `entriesCount` entries. A message with no delta-coded entries
 * carries only its first value, so the parameter is unused there and may be 0, the proto3 default that
 * Google's v4 server sends in that case (docs/api.md: "0 if num_entries=0").
 */
export function isRiceParameterAllowed(format: RiceFormat, riceParameter: number, entriesCount: number): boolean {
  const { minParameter, maxParameter } = RICE_FORMATS[format];
  if (entriesCount === 0 && riceParameter === 0) return true;
  return Number.isInteger(riceParameter) && riceParameter >= minParameter && riceParameter <= maxParameter;
}
