import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PrefixSet } from '../../src/store/prefix-set.ts';

function sortedUnique(values: number[]): Uint32Array {
  return Uint32Array.from(new Set(values)).sort();
}

/** Deterministic pseudo-random 32-bit values (xorshift), for sets too large for fast-check to shrink. */
function randomPrefixes(count: number, seed: number): Uint32Array {
  let x = seed >>> 0 || 1;
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
  return Uint32Array.from(new Set(out)).sort();
}

describe('PrefixSet', () => {
  it('answers membership exactly for small sets', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffffffff })), fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 20 }), (members, probes) => {
        const sorted = sortedUnique(members);
        const set = PrefixSet.fromSorted(sorted);
        const model = new Set(sorted);
        assert.equal(set.size, sorted.length);
        for (const value of [...sorted, ...probes, 0, 0xffffffff]) assert.equal(set.has(value), model.has(value));
        assert.deepEqual(set.values(), sorted);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers membership exactly in the bucketed form, at the edges of buckets too', () => {
    for (const seed of [1, 2, 3]) {
      const sorted = randomPrefixes(PrefixSet.SMALL_SET_LIMIT + 5000, seed);
      const extremes = Uint32Array.from(new Set([0, 0xffff, 0x10000, 0xffff0000, 0xffffffff, ...sorted])).sort();
      const set = PrefixSet.fromSorted(extremes);
      const model = new Set(extremes);
      assert.equal(set.size, extremes.length);
      for (const value of extremes) assert.ok(set.has(value));
      for (const probe of randomPrefixes(20000, seed + 100)) assert.equal(set.has(probe), model.has(probe));
      for (const probe of [1, 0xfffe, 0x10001, 0xfffffffe]) assert.equal(set.has(probe), model.has(probe));
      assert.deepEqual(set.values(), extremes);
    }
  });

  it('answers many look-ups at once as it answers each alone, in either form and at any count', () => {
    const big = randomPrefixes(PrefixSet.SMALL_SET_LIMIT + 5000, 11);
    for (const members of [randomPrefixes(500, 12), big]) {
      const set = PrefixSet.fromSorted(members);
      // Below and above the count where look-ups go in bucket order; members, misses, repeats, extremes.
      for (const count of [0, 1, 100, 4095, 4096, 30_000]) {
        const probes = new Uint32Array(count);
        const misses = randomPrefixes(count, count + 13);
        for (let i = 0; i < count; i++)
          probes[i] = i % 3 === 0 ? members[(i * 7919) % members.length]! : i % 3 === 1 ? misses[i]! : probes[i - 1]!;
        if (count > 4) probes.set([0, 0xffffffff, 0xffff, 0x10000], 0);
        const found = new Uint8Array(count).fill(7);
        set.hasEach(probes, found);
        for (let i = 0; i < count; i++) assert.equal(found[i], set.has(probes[i]!) ? 1 : 0, `probe ${i} of ${count}`);
      }
    }
  });

  it('needs at most 2.2 bytes per prefix at 2 M prefixes and at most 4 bytes at any size', () => {
    const big = PrefixSet.fromSorted(randomPrefixes(2_000_000, 7));
    assert.ok(big.byteLength / big.size <= 2.2, `${big.byteLength / big.size} B per prefix`);
    for (const n of [10, 1000, PrefixSet.SMALL_SET_LIMIT - 1, PrefixSet.SMALL_SET_LIMIT]) {
      const set = PrefixSet.fromSorted(randomPrefixes(n, n));
      assert.ok(set.byteLength / set.size <= 4, `${set.byteLength / set.size} B per prefix at ${set.size}`);
    }
  });

  it('refuses unsorted or duplicate input', () => {
    assert.throws(() => PrefixSet.fromSorted(Uint32Array.of(2, 1)), RangeError);
    assert.throws(() => PrefixSet.fromSorted(Uint32Array.of(1, 1)), RangeError);
  });

  it('the empty set holds nothing', () => {
    assert.equal(PrefixSet.EMPTY.has(0), false);
    assert.equal(PrefixSet.EMPTY.size, 0);
  });
});
