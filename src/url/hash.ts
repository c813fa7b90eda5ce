import { hash } from 'node:crypto';

/**
 * SB-7: the SHA-256 of an expression, 32 bytes: the full hash that lists and search answers carry.
 * Expressions are printable ASCII after SB-5 escaping.
 */
export function expressionHash(expression: string): Uint8Array {
  return hash('sha256', expression, 'buffer');
}

/**
 * SB-7 in the representation of the lookup path: the 32 hash bytes as a 32-character byte string.
 * Node returns it ('binary' is latin1) three times faster than a Buffer (no allocation outside the V8 heap), and it compares
 * and keys Maps as it is.
 */
export function expressionHashString(expression: string): string {
  return hash('sha256', expression, 'binary');
}

/** The first four bytes of a hash byte string as a big-endian unsigned 32-bit number (a v5 4-byte prefix). */
export function prefix32(hashString: string): number {
  return (
    ((hashString.charCodeAt(0) << 24) | (hashString.charCodeAt(1) << 16) | (hashString.charCodeAt(2) << 8) | hashString.charCodeAt(3)) >>> 0
  );
}

/** SB-7: the first `length` bytes of a full hash (4 for `hashes.search`), sharing its memory. */
export function hashPrefix(fullHash: Uint8Array, length = 4): Uint8Array {
  return fullHash.subarray(0, length);
}
