import { BitReader } from './bit-reader.ts';
import { BitWriter } from './bit-writer.ts';
import { RiceDecodeError, RiceEncodeError } from './rice-error.ts';
import { RICE_FORMATS, type RiceFormat } from './rice-format.ts';
import { checkNoTrailingData, checkRiceHeader } from './rice-limits.ts';
import { chooseRiceParameter, type RiceEncodeOptions } from './rice-parameter.ts';

/** v5 `RiceDeltaEncoded64Bit` (docs/api.md), field for field as protoc-gen-es generates it. */
export interface RiceDeltaEncoded64Bit {
  firstValue: bigint;
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/** v5 `RiceDeltaEncoded128Bit`: the first value is split into its upper and lower 64 bits. */
export interface RiceDeltaEncoded128Bit {
  firstValueHi: bigint;
  firstValueLo: bigint;
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/** v5 `RiceDeltaEncoded256Bit`: the first value in four 64-bit parts, most significant first. */
export interface RiceDeltaEncoded256Bit {
  firstValueFirstPart: bigint;
  firstValueSecondPart: bigint;
  firstValueThirdPart: bigint;
  firstValueFourthPart: bigint;
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/**
 * Decodes a v5 list of 8-byte hashes (SB-10): entries_count + 1 hashes, sorted and distinct,
 * concatenated. An absent message is an empty list. Throws RiceDecodeError on malformed input.
 */
export function decodeRice64(encoded: RiceDeltaEncoded64Bit | undefined): Uint8Array {
  if (encoded === undefined) return new Uint8Array(0);
  return decodeWide('v5-64bit', [encoded.firstValue], encoded);
}

/** As `decodeRice64`, for 16-byte hashes. */
export function decodeRice128(encoded: RiceDeltaEncoded128Bit | undefined): Uint8Array {
  if (encoded === undefined) return new Uint8Array(0);
  return decodeWide('v5-128bit', [encoded.firstValueHi, encoded.firstValueLo], encoded);
}

/** As `decodeRice64`, for 32-byte hashes (full SHA-256 hashes). */
export function decodeRice256(encoded: RiceDeltaEncoded256Bit | undefined): Uint8Array {
  if (encoded === undefined) return new Uint8Array(0);
  const { firstValueFirstPart, firstValueSecondPart, firstValueThirdPart, firstValueFourthPart } = encoded;
  const parts = [firstValueFirstPart, firstValueSecondPart, firstValueThirdPart, firstValueFourthPart];
  return decodeWide('v5-256bit', parts, encoded);
}

/**
 * Encodes concatenated 8-byte hashes, sorted and distinct, as a v5 message, with the shortest-coding
 * Rice parameter in 35..62 unless one is given. No hashes yield undefined: leave the message out.
 * Throws RiceEncodeError for unsorted or repeated hashes or a length that is not a multiple of 8.
 */
export function encodeRice64(hashes: Uint8Array, options: RiceEncodeOptions = {}): RiceDeltaEncoded64Bit | undefined {
  const coded = encodeWide('v5-64bit', hashes, options.riceParameter);
  if (coded === undefined) return undefined;
  const [firstValue] = coded.firstParts as [bigint];
  const { riceParameter, entriesCount, encodedData } = coded;
  return { firstValue, riceParameter, entriesCount, encodedData };
}

/** As `encodeRice64`, for 16-byte hashes (Rice parameter 99..126). */
export function encodeRice128(hashes: Uint8Array, options: RiceEncodeOptions = {}): RiceDeltaEncoded128Bit | undefined {
  const coded = encodeWide('v5-128bit', hashes, options.riceParameter);
  if (coded === undefined) return undefined;
  const [firstValueHi, firstValueLo] = coded.firstParts as [bigint, bigint];
  const { riceParameter, entriesCount, encodedData } = coded;
  return { firstValueHi, firstValueLo, riceParameter, entriesCount, encodedData };
}

/** As `encodeRice64`, for 32-byte hashes (Rice parameter 227..254). */
export function encodeRice256(hashes: Uint8Array, options: RiceEncodeOptions = {}): RiceDeltaEncoded256Bit | undefined {
  const coded = encodeWide('v5-256bit', hashes, options.riceParameter);
  if (coded === undefined) return undefined;
  const [firstValueFirstPart, firstValueSecondPart, firstValueThirdPart, firstValueFourthPart] = coded.firstParts as [
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  const { riceParameter, entriesCount, encodedData } = coded;
  return {
    firstValueFirstPart,
    firstValueSecondPart,
    firstValueThirdPart,
    firstValueFourthPart,
    riceParameter,
    entriesCount,
    encodedData,
  };
}

const MAX_UINT32 = 0xffff_ffff;
const MAX_UINT64 = 0xffff_ffff_ffff_ffffn;

/** The fields shared by the three wide messages. */
interface WideDeltas {
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/**
 * Decodes hashes of 64, 128 or 256 bits. The running value is kept as 32-bit limbs, least significant
 * first, and each delta is added limb by limb: no BigInt per entry.
 *
 * Zero deltas are refused as in the 32-bit decoder ('duplicate-entry'): a list is a set (SB-9), and
 * callers rely on the output being strictly ascending.
 */
function decodeWide(format: RiceFormat, firstParts: readonly bigint[], deltas: WideDeltas): Uint8Array {
  const { riceParameter: k, entriesCount, encodedData } = deltas;
  checkRiceHeader(format, k, entriesCount, encodedData.length);
  const value = limbsOfParts(format, firstParts);
  const limbCount = value.length;
  const hashBytes = limbCount * 4;

  const hashes = new Uint8Array((entriesCount + 1) * hashBytes);
  const out = new DataView(hashes.buffer);
  writeLimbs(out, 0, value);
  const bits = new BitReader(encodedData);
  // The remainder fills `wholeLimbs` limbs and the low `tailBits` bits of the next one, where the
  // quotient starts. docs/api.md's ranges keep k at least width - 29, so a quotient that fits the width
  // has at most 29 bits and a double holds everything below.
  const wholeLimbs = k >>> 5;
  const tailBits = k & 31;
  const maxQuotient = 2 ** (RICE_FORMATS[format].bits - k) - 1;
  let position = 0;
  for (let i = 1; i <= entriesCount; i++) {
    const quotient = bits.countOnes(position);
    position += quotient + 1;
    if (position + k > bits.totalBits) {
      const detail = `entry ${i} ends at bit ${position + k} of ${bits.totalBits}`;
      throw new RiceDecodeError('out-of-bits', format, detail);
    }
    if (quotient > maxQuotient) {
      const detail = `entry ${i} has quotient ${quotient}, more than ${maxQuotient}`;
      throw new RiceDecodeError('value-overflow', format, detail);
    }
    let nonZero = quotient;
    let carry = 0;
    for (let limb = 0; limb < wholeLimbs; limb++) {
      const word = bits.read(position, 32);
      position += 32;
      nonZero |= word;
      const sum = value[limb]! + word + carry;
      value[limb] = sum;
      carry = sum > MAX_UINT32 ? 1 : 0;
    }
    // tailBits is never 0 within docs/api.md's ranges, but a read of 0 bits would return 32.
    const tail = tailBits === 0 ? 0 : bits.read(position, tailBits);
    position += tailBits;
    nonZero |= tail;
    // The quotient's low bits share a limb with the remainder's tail; its high bits go one limb up.
    let addend = (tail | (quotient << tailBits)) >>> 0;
    let high = tailBits === 0 ? 0 : quotient >>> (32 - tailBits);
    for (let limb = wholeLimbs; limb < limbCount; limb++) {
      const sum = value[limb]! + addend + carry;
      value[limb] = sum;
      carry = sum > MAX_UINT32 ? 1 : 0;
      addend = high;
      high = 0;
    }
    if (carry !== 0) {
      const detail = `entry ${i} exceeds ${RICE_FORMATS[format].bits} bits`;
      throw new RiceDecodeError('value-overflow', format, detail);
    }
    if (nonZero === 0) {
      throw new RiceDecodeError('duplicate-entry', format, `entry ${i} repeats the one before`);
    }
    writeLimbs(out, i * hashBytes, value);
  }
  checkNoTrailingData(format, bits.totalBits, position, entriesCount);
  return hashes;
}

/** The first value as limbs, least significant first, from 64-bit parts, most significant first. */
function limbsOfParts(format: RiceFormat, parts: readonly bigint[]): Uint32Array {
  const limbs = new Uint32Array(parts.length * 2);
  parts.forEach((part, index) => {
    if (part < 0n || part > MAX_UINT64) {
      const detail = `part ${index + 1} of first_value is ${part}`;
      throw new RiceDecodeError('first-value-out-of-range', format, detail);
    }
    const low = (parts.length - 1 - index) * 2;
    limbs[low] = Number(part & 0xffff_ffffn);
    limbs[low + 1] = Number(part >> 32n);
  });
  return limbs;
}

/** Writes limbs (least significant first) as one big-endian hash at `offset`. */
function writeLimbs(out: DataView, offset: number, limbs: Uint32Array): void {
  const last = limbs.length - 1;
  for (let limb = 0; limb <= last; limb++) out.setUint32(offset + (last - limb) * 4, limbs[limb]!, false);
}

interface WideCoding {
  firstParts: bigint[];
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/**
 * Encodes sorted, distinct hashes of 64, 128 or 256 bits. The deltas are computed limb by limb, and
 * a delta that borrows out of the top limb or is zero means the input was not strictly ascending.
 */
function encodeWide(format: RiceFormat, hashes: Uint8Array, requested: number | undefined): WideCoding | undefined {
  const limbCount = RICE_FORMATS[format].bits / 32;
  const hashBytes = limbCount * 4;
  if (hashes.length % hashBytes !== 0) {
    const detail = `${hashes.length} bytes are not ${hashBytes}-byte hashes`;
    throw new RiceEncodeError('ragged-input', format, detail);
  }
  const count = hashes.length / hashBytes;
  if (count === 0) return undefined;
  const view = new DataView(hashes.buffer, hashes.byteOffset, hashes.byteLength);
  const limbAt = (hash: number, limb: number): number => view.getUint32(hash * hashBytes + (limbCount - 1 - limb) * 4, false);

  const deltaCount = count - 1;
  const deltas = new Uint32Array(deltaCount * limbCount);
  let deltaSum = 0;
  for (let hash = 1; hash < count; hash++) {
    let borrow = 0;
    let nonZero = 0;
    let approximate = 0;
    for (let limb = 0; limb < limbCount; limb++) {
      const difference = limbAt(hash, limb) - limbAt(hash - 1, limb) - borrow;
      borrow = difference < 0 ? 1 : 0;
      const word = difference + borrow * 2 ** 32;
      deltas[(hash - 1) * limbCount + limb] = word;
      nonZero |= word;
      approximate += word * 2 ** (32 * limb);
    }
    if (borrow !== 0 || nonZero === 0) {
      throw new RiceEncodeError('not-ascending', format, `hash ${hash} does not sort after hash ${hash - 1}`);
    }
    deltaSum += approximate;
  }

  // floor(delta / 2^k) for a k in docs/api.md's range: at most 29 bits, all in limbs j and j + 1.
  const quotientOf = (delta: number, k: number): number => {
    const limb = k >>> 5;
    const shift = k & 31;
    const base = delta * limbCount + limb;
    const low = deltas[base]! >>> shift;
    return limb + 1 < limbCount ? low + deltas[base + 1]! * 2 ** (32 - shift) : low;
  };
  const quotientSum = (k: number): number => {
    let sum = 0;
    for (let delta = 0; delta < deltaCount; delta++) sum += quotientOf(delta, k);
    return sum;
  };
  const meanDeltaLog2 = deltaCount === 0 ? 0 : Math.floor(Math.log2(deltaSum / deltaCount));
  const choice = chooseRiceParameter(format, deltaCount, meanDeltaLog2, quotientSum, requested);
  const k = choice.riceParameter;

  const writer = new BitWriter(choice.totalBits);
  const wholeLimbs = k >>> 5;
  const tailBits = k & 31;
  for (let delta = 0; delta < deltaCount; delta++) {
    writer.writeUnary(quotientOf(delta, k));
    for (let limb = 0; limb < wholeLimbs; limb++) writer.writeBits(deltas[delta * limbCount + limb]!, 32);
    writer.writeBits(deltas[delta * limbCount + wholeLimbs]!, tailBits);
  }
  const firstParts: bigint[] = [];
  for (let part = 0; part < limbCount / 2; part++) firstParts.push(view.getBigUint64(part * 8, false));
  return { firstParts, riceParameter: k, entriesCount: deltaCount, encodedData: writer.finish() };
}
