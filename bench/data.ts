/** Sorted, distinct pseudo-random 4-byte prefixes, the same on every run (xorshift32). */
export function randomSortedPrefixes(count: number, seed = 0x9e3779b9): Uint32Array {
  const seen = new Set<number>();
  let x = seed >>> 0 || 1;
  while (seen.size < count) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    seen.add(x >>> 0);
  }
  return Uint32Array.from(seen).sort();
}
