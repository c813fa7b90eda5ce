import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RICE_FORMATS, type RiceFormat } from '../../src/codec/rice-format.ts';
import { chooseRiceParameter } from '../../src/codec/rice-parameter.ts';

const FORMATS: RiceFormat[] = ['v5-32bit', 'v5-64bit', 'v5-128bit', 'v5-256bit', 'v4'];

/** Σ⌊delta / 2^k⌋, exact for doubles since dividing by a power of two is. */
function quotientSumOf(deltas: readonly number[]): (k: number) => number {
  return (k) => deltas.reduce((sum, delta) => sum + Math.floor(delta / 2 ** k), 0);
}

describe('chooseRiceParameter', () => {
  it('finds the shortest encoding in the allowed range, from any starting estimate', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: -10, max: 300 }),
        (format, fractions, scale, estimate) => {
          const { bits, minParameter, maxParameter } = RICE_FORMATS[format];
          // Deltas up to 2^(bits - 4) · scale: wide gaps want a large k, dense values a small one.
          const largest = 2 ** ((bits - 4) * scale);
          const deltas = fractions.map((f) => Math.max(1, Math.floor(f * largest)));
          const quotientSum = quotientSumOf(deltas);
          const choice = chooseRiceParameter(format, deltas.length, estimate, quotientSum, undefined);
          let best = Infinity;
          for (let k = minParameter; k <= maxParameter; k++) {
            best = Math.min(best, deltas.length * (k + 1) + quotientSum(k));
          }
          assert.ok(choice.riceParameter >= minParameter && choice.riceParameter <= maxParameter);
          assert.equal(choice.totalBits, best);
          const k = choice.riceParameter;
          assert.equal(choice.totalBits, deltas.length * (k + 1) + quotientSum(k));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('picks k = 30 for the deltas of the SB-10 example', () => {
    const choice = chooseRiceParameter('v5-32bit', 2, 31, quotientSumOf([0x0be9003a, 0xce893da3]), undefined);
    assert.deepEqual(choice, { riceParameter: 30, totalBits: 65 });
  });

  it('clamps to the range when dense values would want a smaller k', () => {
    const ones = new Array<number>(100).fill(1);
    assert.equal(chooseRiceParameter('v5-32bit', 100, 0, quotientSumOf(ones), undefined).riceParameter, 3);
    assert.equal(chooseRiceParameter('v5-64bit', 100, 0, quotientSumOf(ones), undefined).riceParameter, 35);
  });

  it('uses the parameter a caller asks for, and prices it', () => {
    const choice = chooseRiceParameter('v4', 2, 0, quotientSumOf([100, 200]), 5);
    assert.deepEqual(choice, { riceParameter: 5, totalBits: 2 * 6 + 3 + 6 });
  });

  it('refuses an asked-for parameter outside the range', () => {
    for (const requested of [1, 29, 2.5, -3]) {
      assert.throws(() => chooseRiceParameter('v4', 2, 0, quotientSumOf([1, 2]), requested), {
        name: 'RiceEncodeError',
        reason: 'parameter-out-of-range',
      });
    }
  });

  it('needs no bits for a single value, and sends 0 for it only in v4', () => {
    const none = quotientSumOf([]);
    assert.deepEqual(chooseRiceParameter('v4', 0, 0, none, undefined), { riceParameter: 0, totalBits: 0 });
    assert.deepEqual(chooseRiceParameter('v5-32bit', 0, 0, none, undefined), { riceParameter: 3, totalBits: 0 });
    assert.deepEqual(chooseRiceParameter('v5-32bit', 0, 0, none, 0), { riceParameter: 0, totalBits: 0 });
  });
});
