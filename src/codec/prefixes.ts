import { endianness } from 'node:os';
import { RiceEncodeError } from './rice-error.ts';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/**
 * Turns 4-byte hash prefixes held as big-endian integers (what `decodeRice32` and `decodeV4RiceHashes`
 * return) into their bytes, concatenated: ascending integers give lexicographically sorted prefixes.
 */
export function prefixesToBytes(values: Uint32Array): Uint8Array {
  const copy = values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength);
  // Native byte swapping: lists hold millions of prefixes.
  if (LITTLE_ENDIAN_HOST) Buffer.from(copy).swap32();
  return new Uint8Array(copy);
}

/**
 * Reads concatenated 4-byte hash prefixes as big-endian integers, the form the 32-bit encoders take.
 * Throws RiceEncodeError ('ragged-input') when the length is not a multiple of 4; `format` names the
 * message the prefixes are meant for in that error.
 */
export function prefixesFromBytes(bytes: Uint8Array, format: 'v5-32bit' | 'v4' = 'v5-32bit'): Uint32Array {
  if (bytes.length % 4 !== 0) {
    throw new RiceEncodeError('ragged-input', format, `${bytes.length} bytes are not 4-byte prefixes`);
  }
  // A copy in a fresh, aligned buffer, swapped in place by native code.
  const copy = Uint8Array.prototype.slice.call(bytes).buffer;
  if (LITTLE_ENDIAN_HOST) Buffer.from(copy).swap32();
  return new Uint32Array(copy);
}
