import { hash } from 'node:crypto';

/** SB-7: the SHA-256 of an expression, 32 bytes. Expressions are printable ASCII after SB-5 escaping. */
export function expressionHash(expression: string): Uint8Array {
  return hash('sha256', expression, 'buffer');
}

/** SB-7: the first `length` bytes of a full hash (4 for `hashes.search`). */
export function hashPrefix(fullHash: Uint8Array, length = 4): Uint8Array {
  return fullHash.subarray(0, length);
}
