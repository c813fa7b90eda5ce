import { expressionHashString } from '../../url/hash.ts';

/**
 * The SHA-256 hashes (SB-7) of expressions, sorted and without repeats, concatenated: 32 bytes each,
 * the form a list's snapshot is built from. Hashes are byte strings (url/hash.ts) because sorting those
 * with the default comparison is native, and several times faster here than comparing Buffer ranges.
 */
export function sortedFullHashes(expressions: Iterable<string>): Uint8Array {
  const hashes: string[] = [];
  for (const expression of expressions) hashes.push(expressionHashString(expression));
  // Char codes are bytes (0..255), so code-unit order is byte order.
  hashes.sort();
  let unique = 0;
  for (let i = 0; i < hashes.length; i++) {
    if (unique === 0 || hashes[i] !== hashes[unique - 1]) hashes[unique++] = hashes[i]!;
  }
  hashes.length = unique;
  return Buffer.from(hashes.join(''), 'latin1');
}
