import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { servedPrefixes, sortFullHashes } from '../../../src/server/lists/full-hashes.ts';
import { hexList, modelServed, poolHashes, poolKeys } from './fixtures.ts';

const modelSorted = (input: Uint8Array): string[] => modelServed(input, 32);

describe('sortFullHashes', () => {
  it('sorts and deduplicates like a plain sort, for hashes that share prefixes', () => {
    fc.assert(
      fc.property(poolKeys(200), (keys) => {
        const input = poolHashes(keys);
        const sorted = sortFullHashes(input);
        assert.deepEqual(hexList({ width: 32, bytes: sorted.bytes }), modelSorted(input));
        assert.deepEqual(
          [...sorted.prefixes],
          hexList({ width: 32, bytes: sorted.bytes }).map((h) => Number.parseInt(h.slice(0, 8), 16)),
        );
      }),
    );
  });

  it('sorts random hashes, the radix passes seeing every byte value', () => {
    const input = new Uint8Array(randomBytes(32 * 5000));
    input.copyWithin(32 * 10, 0, 32 * 3); // a few duplicates
    assert.deepEqual(hexList({ width: 32, bytes: sortFullHashes(input).bytes }), modelSorted(input));
  });

  it('sorts hashes at any offset of their buffer, and many hashes sharing their leading bytes', () => {
    const framed = new Uint8Array(1 + 32 * 300);
    const hashes = framed.subarray(1);
    hashes.set(randomBytes(32 * 300));
    for (let o = 0; o < hashes.length; o += 32) hashes.set([0xab, 0xcd, o % 3], o); // one bucket, many ties
    assert.deepEqual(hexList({ width: 32, bytes: sortFullHashes(hashes).bytes }), modelSorted(hashes));
  });

  it('leaves its input alone and takes an empty input', () => {
    const input = poolHashes([5, 1, 5]);
    const copy = input.slice();
    sortFullHashes(input);
    assert.deepEqual(input, copy);
    assert.equal(sortFullHashes(new Uint8Array(0)).prefixes.length, 0);
  });
});

describe('servedPrefixes', () => {
  it('are the distinct sorted prefixes of every width', () => {
    fc.assert(
      fc.property(poolKeys(80), fc.constantFrom<4 | 8 | 16 | 32>(4, 8, 16, 32), (keys, width) => {
        const input = poolHashes(keys);
        assert.deepEqual(hexList(servedPrefixes(sortFullHashes(input), width)), modelServed(input, width));
      }),
    );
  });
});

describe('sortFullHashes on unaligned input', () => {
  it('sorts a Buffer view that starts at an odd offset of its memory', () => {
    const hashes = Buffer.concat([Buffer.alloc(32, 9), Buffer.alloc(32, 3)]);
    const backing = Buffer.alloc(65);
    hashes.copy(backing, 1);
    const sorted = sortFullHashes(backing.subarray(1));
    assert.deepEqual(Buffer.from(sorted.bytes), Buffer.concat([Buffer.alloc(32, 3), Buffer.alloc(32, 9)]));
  });
});
