import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { BoundedMap } from '../../src/store/bounded-map.ts';

/** A value of `n` bytes, weighed with its key as list answers are (`bytes.of` below). */
const payload = (bytes: number) => ({ body: new Uint8Array(bytes) });
const weighed = (max: number) => ({ max, of: (key: string, value: { body: Uint8Array }) => value.body.byteLength + key.length });

/** The map's entries, least recently used first, read without touching the order of use. */
function keysInOrder<K, V>(map: BoundedMap<K, V>): K[] {
  const keys: K[] = [];
  const copy: [K, V][] = [];
  for (let entry = map.oldest(); entry !== undefined; entry = map.oldest()) {
    keys.push(entry[0]);
    copy.push(entry);
    map.forget(entry[0]);
  }
  for (const [key, value] of copy) map.keep(key, value);
  return keys;
}

describe('BoundedMap', () => {
  it('computes once per key and forgets the least recently used beyond its entries', () => {
    const map = new BoundedMap<string, number>(2);
    let computed = 0;
    const get = (key: string) => map.getOrCompute(key, () => ++computed);
    assert.equal(get('a'), 1);
    assert.equal(get('b'), 2);
    assert.equal(get('a'), 1, 'kept; now the most recently used');
    assert.equal(get('c'), 3, 'b is forgotten');
    assert.equal(get('a'), 1);
    assert.equal(get('b'), 4);
    assert.equal(computed, 4);
  });

  it('gives back what it keeps, the same value, and counts its bytes', () => {
    const map = new BoundedMap(10, weighed(1000));
    const kept = map.keep('"a"', payload(10));
    assert.equal(map.get('"a"'), kept);
    assert.equal(map.get('"b"'), undefined);
    assert.equal(map.size, 1);
    assert.equal(map.byteLength, 10 + 3);
  });

  it('forgets the least recently used first, to stay within its bytes', () => {
    const map = new BoundedMap(10, weighed(3 * 103));
    map.keep('"a"', payload(100));
    map.keep('"b"', payload(100));
    map.keep('"c"', payload(100));
    // Used lately: "a" stays, "b" goes.
    map.get('"a"');
    map.keep('"d"', payload(100));
    assert.equal(map.get('"b"'), undefined);
    for (const key of ['"a"', '"c"', '"d"']) assert.ok(map.get(key) !== undefined, key);
    assert.equal(map.size, 3);
    assert.equal(map.byteLength, 3 * 103);
  });

  it('keeps no more entries than its bound, however light they are', () => {
    const map = new BoundedMap(4, weighed(1_000_000));
    for (let i = 0; i < 100; i++) map.keep(`"${i}"`, payload(1));
    assert.equal(map.size, 4);
    assert.ok(map.get('"99"') !== undefined);
    assert.equal(map.get('"95"'), undefined);
  });

  it('hands back a value heavier than all its bytes without keeping it, forgetting what its key held', () => {
    const map = new BoundedMap(10, weighed(100));
    map.keep('"small"', payload(10));
    map.keep('"big"', payload(10));
    const big = map.keep('"big"', payload(200));
    assert.equal(big.body.byteLength, 200);
    assert.equal(map.get('"big"'), undefined);
    assert.ok(map.get('"small"') !== undefined);
    assert.equal(map.byteLength, 10 + 7);
  });

  it('counts a replaced value once', () => {
    const map = new BoundedMap(10, weighed(1000));
    map.keep('"a"', payload(10));
    map.keep('"a"', payload(20));
    assert.equal(map.size, 1);
    assert.equal(map.byteLength, 20 + 3);
  });

  it('peeks without making an entry the most recently used; oldest is the next to go', () => {
    const map = new BoundedMap<string, number>(2);
    map.keep('a', 1);
    map.keep('b', 2);
    assert.equal(map.peek('a'), 1);
    assert.deepEqual(map.oldest(), ['a', 1]);
    map.keep('c', 3);
    assert.equal(map.peek('a'), undefined);
    assert.deepEqual(map.oldest(), ['b', 2]);
    map.clear();
    assert.equal(map.oldest(), undefined);
    assert.equal(map.size, 0);
  });

  it('holds no more memory after a million newcomers than its bound of entries needs', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const map = new BoundedMap<number, number>(1000);
    for (let i = 0; i < 1000; i++) map.keep(i, i);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 1000; i < 1_000_000; i++) map.keep(i, i);
    gc();
    // Forgotten slots are taken again: without that, the arrays alone would grow by some 32 MB.
    const grown = process.memoryUsage().heapUsed - before;
    assert.ok(grown < 4 * 1024 * 1024, `${grown} bytes more`);
    assert.equal(map.size, 1000);
  });

  it('refuses bounds that could keep nothing', () => {
    assert.throws(() => new BoundedMap(0), RangeError);
    assert.throws(() => new BoundedMap(Number.NaN), RangeError);
    assert.throws(() => new BoundedMap(1, { max: -1, of: () => 0 }), RangeError);
    assert.equal(new BoundedMap(1).maxEntries, 1);
  });

  it('behaves as a least-recently-used list within both bounds, whatever is done to it', () => {
    const key = fc.integer({ min: 0, max: 12 }).map(String);
    const step = fc.oneof(
      fc.record({ op: fc.constant('keep' as const), key, weight: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ op: fc.constantFrom('get' as const, 'peek' as const, 'forget' as const, 'compute' as const), key }),
      fc.record({ op: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 100 }),
        fc.array(step, { maxLength: 200 }),
        (maxEntries, maxBytes, steps) => {
          const map = new BoundedMap<string, number>(maxEntries, { max: maxBytes, of: (_, weight) => weight });
          // The model: [key, weight] least recently used first.
          let model: [string, number][] = [];
          const modelWeight = () => model.reduce((sum, [, weight]) => sum + weight, 0);
          const take = (k: string) => {
            const at = model.findIndex(([other]) => other === k);
            return at < 0 ? undefined : model.splice(at, 1)[0]![1];
          };
          const put = (k: string, weight: number) => {
            take(k);
            if (weight > maxBytes) return;
            model.push([k, weight]);
            while (model.length > maxEntries || modelWeight() > maxBytes) model.shift();
          };
          for (const s of steps) {
            if (s.op === 'keep') {
              assert.equal(map.keep(s.key, s.weight), s.weight);
              put(s.key, s.weight);
            } else if (s.op === 'get') {
              const weight = take(s.key);
              if (weight !== undefined) model.push([s.key, weight]);
              assert.equal(map.get(s.key), weight);
            } else if (s.op === 'peek') {
              assert.equal(map.peek(s.key), model.find(([other]) => other === s.key)?.[1]);
            } else if (s.op === 'forget') {
              assert.equal(map.forget(s.key), take(s.key) !== undefined);
            } else if (s.op === 'compute') {
              let computed = false;
              const weight = take(s.key);
              const value = map.getOrCompute(s.key, () => ((computed = true), 7));
              assert.equal(computed, weight === undefined, 'computed exactly when not kept');
              assert.equal(value, weight ?? 7);
              put(s.key, value);
            } else {
              map.clear();
              model = [];
            }
            assert.ok(map.size <= maxEntries, `${map.size} entries in a map of ${maxEntries}`);
            assert.ok(map.byteLength <= maxBytes, `${map.byteLength} bytes in a map of ${maxBytes}`);
            assert.equal(map.size, model.length);
            assert.equal(map.byteLength, modelWeight());
            assert.deepEqual(map.oldest(), model[0]);
          }
          assert.deepEqual(
            keysInOrder(map),
            model.map(([k]) => k),
          );
        },
      ),
    );
  });
});
