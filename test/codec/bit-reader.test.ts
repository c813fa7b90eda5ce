import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BitReader } from '../../src/codec/bit-reader.ts';
import { fromHex } from './reference-rice.ts';

/** Bit `index` of `data`, least-significant bit of byte 0 first; 0 past the end. */
function bitAt(data: Uint8Array, index: number): number {
  return ((data[index >> 3] ?? 0) >> (index & 7)) & 1;
}

describe('BitReader', () => {
  it('reads least-significant bit first (the Go reference client’s bit-reader vector)', () => {
    const bits = new BitReader(fromHex('0d020000000437'));
    assert.equal(bits.totalBits, 56);
    const reads: Array<[count: number, value: number]> = [
      [1, 1],
      [1, 0],
      [1, 1],
      [1, 1],
      [8, 0x20],
      [32, 0x40000000],
      [9, 0x170],
      [3, 1],
    ];
    let position = 0;
    for (const [count, value] of reads) {
      assert.equal(bits.read(position, count), value, `${count} bits at ${position}`);
      position += count;
    }
    assert.equal(position, bits.totalBits);
  });

  it('reads zero past the end of the data, including from a subarray with neighbours', () => {
    const backing = new Uint8Array([0xff, 0xff, 0xab, 0xcd, 0xef, 0xff, 0xff]);
    const bits = new BitReader(backing.subarray(2, 5));
    assert.equal(bits.totalBits, 24);
    assert.equal(bits.read(0, 32), 0x00efcdab);
    assert.equal(bits.read(20, 32), 0x0e);
    assert.equal(bits.read(24, 32), 0);
    assert.equal(bits.peek(25), 0);
  });

  it('counts a unary run that crosses words and stops at the end of the data', () => {
    const bits = new BitReader(new Uint8Array(9).fill(0xff));
    assert.equal(bits.countOnes(0), 72);
    assert.equal(bits.countOnes(5), 67);
    assert.equal(new BitReader(new Uint8Array([0xfe])).countOnes(0), 0);
    assert.equal(new BitReader(new Uint8Array()).countOnes(0), 0);
  });

  it('agrees with bit-by-bit reading at every position', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), fc.nat(), fc.integer({ min: 1, max: 32 }), (data, start, count) => {
        const bits = new BitReader(data);
        const position = start % (data.length * 8 + 2);
        let expected = 0;
        for (let bit = count - 1; bit >= 0; bit--) expected = expected * 2 + bitAt(data, position + bit);
        assert.equal(bits.read(position, count), expected);

        let ones = 0;
        while (bitAt(data, position + ones) === 1) ones++;
        assert.equal(bits.countOnes(position), ones);
      }),
      { numRuns: 2000 },
    );
  });
});
