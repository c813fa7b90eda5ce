import { hash } from 'node:crypto';
import type { ExpressionHasher } from './expression-hasher.ts';
import type { Sha256 } from './sha256.ts';

// A full hash has one form on sbkit's public surface: lower-case hex, 64 characters (docs/architecture.md
// says why). Inside, the lookup path keeps 32-character byte strings and lists keep bytes.

export { prefix32, prefix32OfBytes, hashPrefix, hexOfHashString, hashStringOfHex } from './hash-string.ts';

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

/** Node's hasher: node:crypto's one-shot hash, synchronous, so a check on Node never waits for a hash. */
export const nodeExpressionHasher: ExpressionHasher = {
  hashAll: (expressions) => expressions.map(expressionHashString),
  hashAllNow: (expressions) => expressions.map(expressionHashString),
};

/**
 * Node's {@link Sha256} for list checksums (SB-9): node:crypto's one-shot hash, native, with the CPU's
 * SHA instructions; the JavaScript one elsewhere is some twenty times slower on a list of millions.
 */
export const nodeSha256: Sha256 = (bytes) => hash('sha256', bytes, 'buffer');
