import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BitWriter } from '../../src/codec/bit-writer.ts';
import { hex } from './reference-rice.ts';

describe('BitWriter', () => {
  it('writes least-significant bit first (the Go reference client’s bit-writer vector)', () => {
    const writes: Array<[count: number, value: number]> = [
      [0, 0],
      [1, 1],
      [1, 0],
      [1, 1],
      [1, 1],
      [8, 0x20],
      [32, 0x40000000],
      [9, 0x170],
      [3, 1],
    ];
    const writer = new BitWriter(56);
    for (const [count, value] of writes) writer.writeBits(value, count);
    assert.equal(hex(writer.finish()), '0d020000000437');
  });

  it('writes only the low bits asked for, and pads the last byte with zeros', () => {
    const writer = new BitWriter(12);
    writer.writeBits(0xffff_ffff, 3);
    writer.writeBits(0, 2);
    writer.writeBits(0xffff_fff5, 7);
    // 111, 00, then 0x75 = 1110101 least significant first: 1110 0101 0111 -> a7 0e.
    assert.equal(hex(writer.finish()), 'a70e');
  });

  it('writes a unary number as q one-bits then a zero-bit (SB-10), also past 24 ones', () => {
    const short = new BitWriter(4);
    short.writeUnary(3);
    assert.equal(hex(short.finish()), '07');
    const long = new BitWriter(41);
    long.writeUnary(40);
    assert.equal(hex(long.finish()), 'ffffffffff00');
    const zero = new BitWriter(1);
    zero.writeUnary(0);
    assert.equal(hex(zero.finish()), '00');
  });

  it('returns no bytes when nothing was written', () => {
    assert.equal(new BitWriter(0).finish().length, 0);
  });

  it('agrees with bit-by-bit packing for any sequence of writes', () => {
    const write = fc.oneof(
      fc.record({
        kind: fc.constant('bits' as const),
        count: fc.integer({ min: 0, max: 32 }),
        value: fc.nat({ max: 0xffff_ffff }),
      }),
      fc.record({ kind: fc.constant('unary' as const), count: fc.integer({ min: 0, max: 80 }), value: fc.constant(0) }),
    );
    fc.assert(
      fc.property(fc.array(write, { maxLength: 20 }), (writes) => {
        const bits: number[] = [];
        for (const { kind, count, value } of writes) {
          if (kind === 'bits') {
            for (let bit = 0; bit < count; bit++) bits.push(Math.floor(value / 2 ** bit) % 2);
          } else {
            for (let one = 0; one < count; one++) bits.push(1);
            bits.push(0);
          }
        }
        const expected = new Uint8Array(Math.ceil(bits.length / 8));
        bits.forEach((bit, index) => {
          expected[index >> 3]! |= bit << (index & 7);
        });

        const writer = new BitWriter(bits.length);
        for (const { kind, count, value } of writes) {
          if (kind === 'bits') writer.writeBits(value, count);
          else writer.writeUnary(count);
        }
        assert.deepEqual(writer.finish(), expected);
      }),
      { numRuns: 1000 },
    );
  });
});
