import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RecentCache } from '../../../src/server/guard/recent-cache.ts';

describe('RecentCache', () => {
  it('computes once per key while it is remembered, and never holds more than its capacity', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 20 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 300 }), (capacity, keys) => {
        const cache = new RecentCache<number, string>(capacity);
        const computed = new Map<number, number>();
        keys.forEach((key) => {
          const value = cache.getOrCompute(key, () => {
            computed.set(key, (computed.get(key) ?? 0) + 1);
            return `v${key}`;
          });
          assert.equal(value, `v${key}`);
          assert.ok(cache.size <= capacity, `${cache.size} entries in a cache of ${capacity}`);
        });
      }),
    );
  });

  it('keeps what was used in the current or the previous generation (capacity / 2 entries each)', () => {
    const cache = new RecentCache<string, number>(4);
    let computed = 0;
    const get = (key: string) => cache.getOrCompute(key, () => ++computed);
    get('a');
    get('b');
    // a and b are now the older generation; using a moves it up.
    assert.equal(get('a'), 1);
    get('c');
    // a and c make the next generation; b, unused since, is forgotten.
    assert.equal(get('b'), 4);
    assert.equal(get('a'), 1);
    assert.throws(() => new RecentCache(1), RangeError);
  });
});
