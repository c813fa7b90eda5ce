import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { diffLists, diffSteps, partlyApplied } from '../../../src/server/lists/list-diff.ts';
import { checksumOf, HashList } from '../../../src/store/hash-list.ts';
import { nodeSha256 } from '../../../src/url/hash.ts';
import { fromHex, hexList } from './fixtures.ts';

const width = fc.constantFrom<4 | 8 | 16 | 32>(4, 8, 16, 32);
/** Two lists over a small key space, so that they share entries. */
const listPair = fc.tuple(
  width,
  fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 40 }),
  fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 40 }),
);
const hexOf = (w: number, key: number) => (key * 0x3f1d).toString(16).padStart(2 * w, '0');

describe('diffLists', () => {
  it('removes exactly the entries the new list lacks and adds the ones it gains', () => {
    fc.assert(
      fc.property(listPair, ([w, a, b]) => {
        const from = fromHex(
          w,
          a.map((k) => hexOf(w, k)),
        );
        const to = fromHex(
          w,
          b.map((k) => hexOf(w, k)),
        );
        const diff = diffLists(from, to);
        const old = hexList(from);
        const target = new Set(hexList(to));
        assert.deepEqual(
          [...diff.removals],
          old.flatMap((h, i) => (target.has(h) ? [] : [i])),
        );
        assert.deepEqual(
          hexList(diff.additions),
          hexList(to).filter((h) => !old.includes(h)),
        );
        assert.equal(diff.size, diff.removals.length + hexList(diff.additions).length);
      }),
    );
  });

  it('taken in steps of any size, leads the client through the partly applied lists to the new one', () => {
    fc.assert(
      fc.property(listPair, fc.integer({ min: 1, max: 10 }), ([w, a, b], step) => {
        const from = fromHex(
          w,
          a.map((k) => hexOf(w, k)),
        );
        const to = fromHex(
          w,
          b.map((k) => hexOf(w, k)),
        );
        const diff = diffLists(from, to);
        let client = HashList.fromSorted('x', Buffer.from('0'), from, checksumOf(from, nodeSha256));
        for (let start = 0; start < diff.size; start += step) {
          const end = Math.min(diff.size, start + step);
          const expected = partlyApplied(from, diff, end);
          client = client.applyUpdate(
            {
              partial: true,
              version: Buffer.from(`${end}`),
              ...diffSteps(diff, start, end),
              checksum: checksumOf(expected, nodeSha256),
            },
            nodeSha256,
          );
          assert.deepEqual(hexList(client.sortedHashes()), hexList(expected));
        }
        assert.deepEqual(hexList(client.sortedHashes()), hexList(to));
        assert.deepEqual(hexList(partlyApplied(from, diff, 0)), hexList(from));
      }),
    );
  });

  it('refuses lists of different widths', () => {
    assert.throws(() => diffLists(fromHex(8, []), fromHex(16, [])), RangeError);
  });
});
