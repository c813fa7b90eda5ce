import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedCache } from '../../../src/server/lists/bounded-cache.ts';

describe('BoundedCache', () => {
  it('computes once per key and forgets the least recently used beyond its capacity', () => {
    const cache = new BoundedCache<string, number>(2);
    let computed = 0;
    const get = (key: string) => cache.getOrCompute(key, () => ++computed);
    assert.equal(get('a'), 1);
    assert.equal(get('b'), 2);
    assert.equal(get('a'), 1, 'cached; now the most recently used');
    assert.equal(get('c'), 3, 'b is forgotten');
    assert.equal(get('a'), 1);
    assert.equal(get('b'), 4);
    assert.equal(computed, 4);
  });
});
