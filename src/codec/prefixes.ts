import { RiceEncodeError } from './rice-error.ts';

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Node's Buffer, for its native swap32, where there is one; never imported, so bundles stay free of it. */
const nodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** Reverses the bytes of every 32-bit word of `buffer` in place: natively on Node (lists hold millions). */
function swap32(buffer: ArrayBuffer): void {
  if (nodeBuffer !== undefined) {
    nodeBuffer.from(buffer).swap32();
    return;
  }
  const words = new Uint32Array(buffer);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    words[i] = ((w & 0xff) << 24) | ((w & 0xff00) << 8) | ((w >>> 8) & 0xff00) | (w >>> 24);
  }
}

/**
 * Turns 4-byte hash prefixes held as big-endian integers (what `decodeRice32` and `decodeV4RiceHashes`
 * return) into their bytes, concatenated: ascending integers give lexicographically sorted prefixes.
 */
export function prefixesToBytes(values: Uint32Array): Uint8Array {
  const copy = new Uint8Array(values.buffer, values.byteOffset, values.byteLength).slice().buffer;
  if (LITTLE_ENDIAN_HOST) swap32(copy);
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
  if (LITTLE_ENDIAN_HOST) swap32(copy);
  return new Uint32Array(copy);
}
