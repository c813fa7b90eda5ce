import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatBytes, concatenated } from '../../src/codec/concatenated.ts';

describe('concatenated', () => {
  it('puts the parts one after the other in a new array of the kind asked for', () => {
    const first = Uint32Array.of(1, 2);
    const joined = concatenated(Uint32Array, [first, Uint32Array.of(), Uint32Array.of(3)]);
    assert.ok(joined instanceof Uint32Array);
    assert.deepEqual([...joined], [1, 2, 3]);
    joined[0] = 9;
    assert.equal(first[0], 1, 'a copy, not a view of a part');
    assert.deepEqual(concatenated(Uint8Array, []), new Uint8Array(0));
  });

  it('takes more parts than a call takes arguments: a body trickled a byte at a time', () => {
    const source = new Uint8Array(300_000).map((_, i) => i % 251);
    const parts = Array.from({ length: source.length }, (_, i) => source.subarray(i, i + 1));
    assert.deepEqual(concatenated(Uint8Array, parts), source);
  });
});

describe('concatBytes', () => {
  it('joins the bytes it is given', () => {
    assert.deepEqual(concatBytes(Uint8Array.of(1), Uint8Array.of(2, 3)), Uint8Array.of(1, 2, 3));
  });
});
