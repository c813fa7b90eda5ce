import { hash } from 'node:crypto';

// A full hash has one form on sbkit's public surface: lower-case hex, 64 characters (docs/architecture.md
// says why). Inside, the lookup path keeps 32-character byte strings and lists keep bytes.

/**
 * SB-7: the SHA-256 of an expression, the full hash that lists and search answers carry, as 64
 * lower-case hex digits. Expressions are printable ASCII after SB-5 escaping.
 */
export function expressionHash(expression: string): string {
  return hash('sha256', expression, 'hex');
}

/** SB-7 as the 32 bytes lists are built from. */
export function expressionHashBytes(expression: string): Buffer {
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

/** SB-7: the first `length` bytes (4 for `hashes.search`) of a full hash in hex, in hex. */
export function hashPrefix(fullHash: string, length = 4): string {
  return fullHash.slice(0, 2 * length);
}

/** A full hash of the lookup path (a 32-character byte string) in the public form, hex. */
export function hexOfHashString(hashString: string): string {
  return Buffer.from(hashString, 'latin1').toString('hex');
}

/** A full hash in the public form (hex) as the lookup path's byte string. */
export function hashStringOfHex(fullHash: string): string {
  return Buffer.from(fullHash, 'hex').toString('latin1');
}
