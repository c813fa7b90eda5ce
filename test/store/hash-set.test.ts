import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareAt, WideHashSet } from '../../src/store/hash-set.ts';

const widths = [8, 16, 32] as const;

function sortedUnique(width: number, hashes: Uint8Array[]): Uint8Array {
  const unique = [...new Map(hashes.map((h) => [Buffer.from(h).toString('hex'), h])).values()];
  unique.sort((a, b) => compareAt(a, 0, b, 0, width));
  return Buffer.concat(unique);
}

describe('WideHashSet', () => {
  for (const width of widths) {
    it(`answers membership exactly for ${width}-byte hashes, looked up by longer hash strings`, () => {
      const hash = fc.uint8Array({ minLength: width, maxLength: width });
      fc.assert(
        fc.property(fc.array(hash, { maxLength: 60 }), fc.array(hash, { maxLength: 10 }), (members, probes) => {
          const sorted = sortedUnique(width, members);
          const set = WideHashSet.fromSorted(width, sorted);
          const model = new Set(members.map((h) => Buffer.from(h).toString('hex')));
          assert.equal(set.size, model.size);
          for (const probe of [...members, ...probes]) {
            // Lookups carry the full 32-byte hash; only its first `width` bytes count.
            const full = Buffer.concat([probe, Buffer.alloc(32 - width, 0xab)]).toString('latin1');
            assert.equal(set.has(full), model.has(Buffer.from(probe).toString('hex')));
          }
          assert.deepEqual(Buffer.from(set.values()), Buffer.from(sorted));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('finds hashes that share their first four bytes', () => {
    const a = Buffer.from('00000001' + '00'.repeat(4) + '01', 'hex').subarray(0, 8);
    const b = Buffer.from('0000000100000002', 'hex');
    const c = Buffer.from('0000000100000003', 'hex');
    const set = WideHashSet.fromSorted(8, Buffer.concat([a, b, c]));
    assert.ok(set.has(b.toString('latin1')));
    assert.ok(set.has(c.toString('latin1')));
    assert.ok(!set.has(Buffer.from('0000000100000004', 'hex').toString('latin1')));
  });

  it('refuses unsorted input and partial hashes', () => {
    assert.throws(() => WideHashSet.fromSorted(8, Buffer.alloc(12)), RangeError);
    assert.throws(() => WideHashSet.fromSorted(8, Buffer.concat([Buffer.alloc(8, 2), Buffer.alloc(8, 1)])), RangeError);
    assert.throws(() => WideHashSet.fromSorted(8, Buffer.alloc(16, 1)), RangeError);
  });
});
