import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeDeltas32, encodeDeltas32, type RiceDeltas32 } from '../../src/codec/rice-deltas32.ts';
import { RiceDecodeError, type RiceDecodeReason } from '../../src/codec/rice-error.ts';
import { RICE_FORMATS } from '../../src/codec/rice-format.ts';
import { fromHex } from './reference-rice.ts';

const MAX = 0xffff_ffff;
const FORMATS = ['v5-32bit', 'v4'] as const;

/** The SB-10 example's fields, to be spoilt one at a time. */
const EXAMPLE: RiceDeltas32 = {
  firstValue: 489866504,
  riceParameter: 30,
  entriesCount: 2,
  encodedData: fromHex('7400d2971bed497400'),
};

function rejects(deltas: RiceDeltas32, reason: RiceDecodeReason, format: 'v5-32bit' | 'v4' = 'v5-32bit'): void {
  assert.throws(
    () => decodeDeltas32(format, deltas),
    (error: unknown) => error instanceof RiceDecodeError && error.reason === reason && error.format === format,
    `expected ${reason}`,
  );
}

describe('32-bit Rice decoder: each malformed input has its reason', () => {
  it('parameter-out-of-range', () => {
    rejects({ ...EXAMPLE, riceParameter: 31 }, 'parameter-out-of-range');
    rejects({ ...EXAMPLE, riceParameter: 2 }, 'parameter-out-of-range');
    rejects({ ...EXAMPLE, riceParameter: 0 }, 'parameter-out-of-range');
    rejects({ ...EXAMPLE, riceParameter: 29 }, 'parameter-out-of-range', 'v4');
    rejects({ ...EXAMPLE, riceParameter: 1 }, 'parameter-out-of-range', 'v4');
  });

  it('first-value-out-of-range', () => {
    rejects({ ...EXAMPLE, firstValue: -1 }, 'first-value-out-of-range');
    rejects({ ...EXAMPLE, firstValue: 2 ** 32 }, 'first-value-out-of-range');
    rejects({ ...EXAMPLE, firstValue: 1.5 }, 'first-value-out-of-range');
  });

  it('count-negative', () => {
    rejects({ ...EXAMPLE, entriesCount: -1 }, 'count-negative');
    rejects({ ...EXAMPLE, entriesCount: -(2 ** 31) }, 'count-negative');
    rejects({ ...EXAMPLE, entriesCount: 0.5 }, 'count-negative');
  });

  it('count-too-large, checked before allocating: a forged 2^31 - 1 costs nothing', () => {
    rejects({ ...EXAMPLE, entriesCount: 3 }, 'count-too-large');
    rejects({ ...EXAMPLE, entriesCount: 2 ** 31 - 1 }, 'count-too-large');
    const forged = { firstValue: 0, riceParameter: 2, entriesCount: 2 ** 31 - 1, encodedData: new Uint8Array(1024) };
    rejects(forged, 'count-too-large', 'v4');
  });

  it('out-of-bits: a truncated remainder, and a unary run off the end', () => {
    rejects({ ...EXAMPLE, encodedData: EXAMPLE.encodedData.subarray(0, 8) }, 'out-of-bits');
    rejects({ firstValue: 0, riceParameter: 3, entriesCount: 1, encodedData: fromHex('ff') }, 'out-of-bits');
    rejects({ firstValue: 0, riceParameter: 3, entriesCount: 2, encodedData: fromHex('3f') }, 'out-of-bits');
    // 40 one-bits: the slow path of a quotient of 32 or more, still bounded by the data.
    rejects({ firstValue: 0, riceParameter: 3, entriesCount: 1, encodedData: fromHex('ffffffffff') }, 'out-of-bits');
  });

  it('value-overflow: past the maximum by carry, and by a quotient of 4 at k = 30', () => {
    rejects({ firstValue: MAX, riceParameter: 3, entriesCount: 1, encodedData: fromHex('02') }, 'value-overflow');
    const quotientFour = { firstValue: 0, riceParameter: 30, entriesCount: 1, encodedData: fromHex('0f00000000') };
    rejects(quotientFour, 'value-overflow');
    // A quotient of 32 ones, counted on the slow path: 32 · 2^30 is far beyond 32 bits.
    const quotient32 = { firstValue: 0, riceParameter: 30, entriesCount: 1, encodedData: fromHex('ffffffff00000000') };
    rejects(quotient32, 'value-overflow');
  });

  it('duplicate-entry: a zero delta', () => {
    rejects({ firstValue: 5, riceParameter: 3, entriesCount: 1, encodedData: fromHex('00') }, 'duplicate-entry');
    // The Go reference client's raw vector "00" at k = 5 is a single zero delta.
    rejects({ firstValue: 0, riceParameter: 5, entriesCount: 1, encodedData: fromHex('00') }, 'duplicate-entry', 'v4');
  });

  it('count-mismatch: a byte left over, or data without entries', () => {
    rejects({ ...EXAMPLE, encodedData: fromHex('7400d2971bed49740000') }, 'count-mismatch');
    rejects({ ...EXAMPLE, entriesCount: 1 }, 'count-mismatch');
    rejects({ firstValue: 7, riceParameter: 0, entriesCount: 0, encodedData: fromHex('00') }, 'count-mismatch', 'v4');
    rejects({ firstValue: 7, riceParameter: 30, entriesCount: 0, encodedData: fromHex('00') }, 'count-mismatch');
  });

  it('accepts padding bits of any value in the last byte', () => {
    const padded = { ...EXAMPLE, encodedData: fromHex('7400d2971bed4974fe') };
    assert.deepEqual([...decodeDeltas32('v5-32bit', padded)], [0x1d32c508, 0x291bc542, 0xf7a502e5]);
  });

  it('accepts exactly as many entries as k + 1 bits each allow', () => {
    // 0010 0010: two entries of quotient 0, remainder 1.
    const full = { firstValue: 9, riceParameter: 3, entriesCount: 2, encodedData: fromHex('22') };
    assert.deepEqual([...decodeDeltas32('v5-32bit', full)], [9, 10, 11]);
  });
});

describe('32-bit Rice decoder on hostile input', () => {
  /** A valid decoding is strictly ascending and is exactly what the data says. */
  function checkDecoding(format: 'v5-32bit' | 'v4', deltas: RiceDeltas32): void {
    let values: Uint32Array;
    try {
      values = decodeDeltas32(format, deltas);
    } catch (error) {
      assert.ok(error instanceof RiceDecodeError, `unexpected ${String(error)}`);
      return;
    }
    assert.equal(values.length, deltas.entriesCount + 1);
    assert.equal(values[0], deltas.firstValue);
    for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, `not ascending at ${i}`);
    // Encoding the result again gives back the data, but for the padding bits of the last byte.
    let usedBits = 0;
    const k = deltas.riceParameter;
    for (let i = 1; i < values.length; i++) usedBits += ((values[i]! - values[i - 1]!) >>> k) + 1 + k;
    const expected = Uint8Array.from(deltas.encodedData);
    const paddingBits = expected.length * 8 - usedBits;
    if (paddingBits > 0) expected[expected.length - 1]! &= 0xff >>> paddingBits;
    assert.deepEqual(encodeDeltas32(format, values, k)!.encodedData, expected);
  }

  it('either returns a strictly ascending list that re-encodes to the data, or throws RiceDecodeError', () => {
    // Mostly plausible headers, so that most cases reach the entry loop, plus some wild ones.
    const hostile = fc
      .record({
        format: fc.constantFrom(...FORMATS),
        riceParameter: fc.oneof(
          { arbitrary: fc.integer({ min: 2, max: 30 }), weight: 8 },
          { arbitrary: fc.integer({ min: -2, max: 33 }), weight: 1 },
        ),
        firstValue: fc.oneof(
          { arbitrary: fc.nat({ max: 2 ** 20 }), weight: 6 },
          { arbitrary: fc.nat({ max: MAX }), weight: 2 },
          { arbitrary: fc.constantFrom(MAX, -1, 2 ** 32), weight: 1 },
        ),
        encodedData: fc.uint8Array({ maxLength: 48 }),
        countFraction: fc.double({ min: 0, max: 1.05, noNaN: true }),
        wildCount: fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 12 },
          { arbitrary: fc.constantFrom(-1, -(2 ** 31), 2 ** 31 - 1), weight: 1 },
        ),
      })
      .map(({ format, riceParameter, firstValue, encodedData, countFraction, wildCount }) => {
        const capacity = (encodedData.length * 8) / (Math.max(riceParameter, 0) + 1);
        const entriesCount = wildCount ?? Math.floor(countFraction * capacity);
        return { format, deltas: { firstValue, riceParameter, entriesCount, encodedData } };
      });
    fc.assert(
      fc.property(hostile, ({ format, deltas }) => checkDecoding(format, deltas)),
      { numRuns: 5000 },
    );
  });

  it('does the same for valid encodings with one thing spoilt', () => {
    const spoilt = fc
      .record({
        format: fc.constantFrom(...FORMATS),
        values: fc.uniqueArray(fc.nat({ max: MAX }), { minLength: 1, maxLength: 40 }),
        flip: fc.nat(),
        truncate: fc.constantFrom(0, 0, 0, 1, 2),
        countChange: fc.constantFrom(0, 0, 0, -1, 1),
        firstChange: fc.constantFrom(0, 0, 1, MAX),
      })
      .map(({ format, values, flip, truncate, countChange, firstChange }) => {
        const encoded = encodeDeltas32(format, Uint32Array.from(values).sort(), undefined)!;
        const data = Uint8Array.from(encoded.encodedData);
        if (data.length > 0) data[(flip >>> 3) % data.length]! ^= 1 << (flip & 7);
        return {
          format,
          deltas: {
            firstValue: (encoded.firstValue + firstChange) % 2 ** 32,
            riceParameter: encoded.riceParameter,
            entriesCount: encoded.entriesCount + countChange,
            encodedData: data.subarray(0, Math.max(0, data.length - truncate)),
          },
        };
      });
    fc.assert(
      fc.property(spoilt, ({ format, deltas }) => checkDecoding(format, deltas)),
      { numRuns: 3000 },
    );
  });

  it('uses every parameter of each range without trouble', () => {
    for (const format of FORMATS) {
      const { minParameter, maxParameter } = RICE_FORMATS[format];
      for (let k = minParameter; k <= maxParameter; k++) {
        const values = Uint32Array.of(0, 1, 2 ** k - 1, 2 ** k, 2 ** (k + 1) + 3, MAX);
        const encoded = encodeDeltas32(format, values, k)!;
        assert.deepEqual(decodeDeltas32(format, encoded), values, `k = ${k}`);
      }
    }
  });
});
