// The lookup path's form of a full hash, a 32-character byte string, and the conversions to the public
// form (hex) at the edge: plain JavaScript, the same on every runtime.

/** The first four bytes of a hash byte string as a big-endian unsigned 32-bit number (a v5 4-byte prefix). */
export function prefix32(hashString: string): number {
  return (
    ((hashString.charCodeAt(0) << 24) | (hashString.charCodeAt(1) << 16) | (hashString.charCodeAt(2) << 8) | hashString.charCodeAt(3)) >>> 0
  );
}

/** prefix32 of the bytes themselves (a hash's, or a prefix's of at least 4 bytes): the same number, no string made. */
export function prefix32OfBytes(bytes: Uint8Array): number {
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

/** The 4 bytes of a prefix held as prefix32's number, as a search request carries them. */
export function bytesOfPrefix32(prefix: number): Uint8Array {
  return Uint8Array.of(prefix >>> 24, (prefix >>> 16) & 0xff, (prefix >>> 8) & 0xff, prefix & 0xff);
}

/** SB-7: the first `length` bytes (4 for `hashes.search`) of a full hash in hex, in hex. */
export function hashPrefix(fullHash: string, length = 4): string {
  return fullHash.slice(0, 2 * length);
}

const HEX_OF_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A full hash of the lookup path (a 32-character byte string) in the public form, hex. */
export function hexOfHashString(hashString: string): string {
  let hex = '';
  for (let i = 0; i < hashString.length; i++) hex += HEX_OF_BYTE[hashString.charCodeAt(i) & 0xff];
  return hex;
}

const HEX_PAIR = /^[0-9a-fA-F]{2}$/;

/** A full hash in the public form (hex) as the lookup path's byte string; stops at the first pair that is no hex. */
export function hashStringOfHex(fullHash: string): string {
  let out = '';
  for (let i = 0; i + 1 < fullHash.length; i += 2) {
    const pair = fullHash.slice(i, i + 2);
    if (!HEX_PAIR.test(pair)) break;
    out += String.fromCharCode(Number.parseInt(pair, 16));
  }
  return out;
}

/** Bytes in hex, for checksums and versions in messages and listings. */
export function hexOfBytes(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += HEX_OF_BYTE[byte];
  return hex;
}
