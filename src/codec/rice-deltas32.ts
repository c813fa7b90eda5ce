import { BitReader } from './bit-reader.ts';
import { BitWriter } from './bit-writer.ts';
import { RiceDecodeError, RiceEncodeError } from './rice-error.ts';
import type { RiceFormat } from './rice-format.ts';
import { checkNoTrailingData, checkRiceHeader } from './rice-limits.ts';
import { chooseRiceParameter } from './rice-parameter.ts';

const MAX_UINT32 = 0xffff_ffff;

/** A list of 32-bit integers as a first value plus Rice-coded deltas: the fields both protocols send. */
export interface RiceDeltas32 {
  firstValue: number;
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/**
 * Decodes ascending 32-bit integers (SB-10), the hot path of every list update: 4-byte prefixes and
 * removal indices in v5, and both, before v4's byte swap, in v4.
 *
 * A zero delta is refused ('duplicate-entry') rather than decoded faithfully: prefixes and removal
 * indices are sets sent in sorted order (SB-9), so no correct server sends one, and refusing it here
 * hands every caller a strictly ascending list, which binary search and index removal rely on.
 */
export function decodeDeltas32(format: RiceFormat, deltas: RiceDeltas32): Uint32Array {
  const { firstValue, riceParameter: k, entriesCount, encodedData } = deltas;
  if (!Number.isInteger(firstValue) || firstValue < 0 || firstValue > MAX_UINT32) {
    throw new RiceDecodeError('first-value-out-of-range', format, `first_value is ${firstValue}`);
  }
  checkRiceHeader(format, k, entriesCount, encodedData.length);

  const values = new Uint32Array(entriesCount + 1);
  values[0] = firstValue;
  const bits = new BitReader(encodedData);
  const totalBits = bits.totalBits;
  // k <= 30 in both protocols, so the remainder mask is a positive int32 and quotient · 2^k + remainder
  // is exact in a double whatever the quotient.
  const remainderMask = (1 << k) - 1;
  const scale = 2 ** k;
  let position = 0;
  let value = firstValue;
  for (let i = 1; i <= entriesCount; i++) {
    // SB-10: a unary quotient, then the remainder in k bits. With a well-chosen k the quotient is
    // small, so one 32-bit window usually holds both.
    const window = bits.peek(position);
    // The trailing one-bits, counted as in BitReader.countOnes (inlined: this loop is the budget).
    let quotient = 32 - Math.clz32(window & (~window - 1));
    let remainder: number;
    if (quotient + 1 + k <= 32) {
      remainder = (window >>> (quotient + 1)) & remainderMask;
    } else {
      if (quotient === 32) quotient = bits.countOnes(position);
      remainder = bits.peek(position + quotient + 1) & remainderMask;
    }
    position += quotient + 1 + k;
    const delta = quotient * scale + remainder;
    value += delta;
    if (value > MAX_UINT32 || delta === 0 || position > totalBits) {
      throw entryFailure(format, i, position, totalBits, value);
    }
    values[i] = value;
  }
  checkNoTrailingData(format, totalBits, position, entriesCount);
  return values;
}

/** The error for entry `index`, kept out of the loop so the loop stays small. */
function entryFailure(format: RiceFormat, index: number, position: number, totalBits: number, value: number): RiceDecodeError {
  if (position > totalBits) {
    const detail = `entry ${index} ends at bit ${position} of ${totalBits}`;
    return new RiceDecodeError('out-of-bits', format, detail);
  }
  if (value > MAX_UINT32) {
    return new RiceDecodeError('value-overflow', format, `entry ${index} would be ${value}`);
  }
  return new RiceDecodeError('duplicate-entry', format, `entry ${index} repeats ${value}`);
}

/**
 * Rice-codes strictly ascending 32-bit integers with the given or the shortest-coding Rice parameter;
 * undefined for an empty list, which the protocols express by leaving the message out.
 */
export function encodeDeltas32(format: RiceFormat, values: Uint32Array, requestedParameter: number | undefined): RiceDeltas32 | undefined {
  const first = values[0];
  if (first === undefined) return undefined;
  for (let i = 1; i < values.length; i++) {
    if (values[i]! <= values[i - 1]!) {
      const detail = `value ${values[i]} at index ${i} follows ${values[i - 1]}`;
      throw new RiceEncodeError('not-ascending', format, detail);
    }
  }
  const deltaCount = values.length - 1;
  const last = values[deltaCount]!;
  const meanDeltaLog2 = deltaCount === 0 ? 0 : Math.floor(Math.log2((last - first) / deltaCount));
  const quotientSum = (k: number): number => {
    let sum = 0;
    for (let i = 1; i < values.length; i++) sum += (values[i]! - values[i - 1]!) >>> k;
    return sum;
  };
  const choice = chooseRiceParameter(format, deltaCount, meanDeltaLog2, quotientSum, requestedParameter);
  const { riceParameter, totalBits } = choice;

  const writer = new BitWriter(totalBits);
  for (let i = 1; i < values.length; i++) {
    const delta = values[i]! - values[i - 1]!;
    writer.writeUnary(delta >>> riceParameter);
    writer.writeBits(delta, riceParameter);
  }
  return { firstValue: first, riceParameter, entriesCount: deltaCount, encodedData: writer.finish() };
}
