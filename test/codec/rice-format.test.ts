import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RICE_FORMATS, isRiceParameterAllowed, type RiceFormat } from '../../src/codec/rice-format.ts';

describe('Rice formats', () => {
  it('carry the widths and Rice parameter ranges of docs/api.md', () => {
    const expected: Record<RiceFormat, [bits: number, min: number, max: number]> = {
      'v5-32bit': [32, 3, 30],
      'v5-64bit': [64, 35, 62],
      'v5-128bit': [128, 99, 126],
      'v5-256bit': [256, 227, 254],
      v4: [32, 2, 28],
    };
    for (const format of Object.keys(expected) as RiceFormat[]) {
      const [bits, min, max] = expected[format];
      const facts = RICE_FORMATS[format];
      assert.deepEqual([facts.bits, facts.minParameter, facts.maxParameter], [bits, min, max], format);
    }
  });

  it('send 0 as the unused parameter of a single-value v4 list, an in-range one in v5', () => {
    assert.equal(RICE_FORMATS.v4.parameterWithoutEntries, 0);
    for (const format of ['v5-32bit', 'v5-64bit', 'v5-128bit', 'v5-256bit'] as const) {
      const { minParameter, maxParameter, parameterWithoutEntries } = RICE_FORMATS[format];
      assert.ok(parameterWithoutEntries >= minParameter && parameterWithoutEntries <= maxParameter, format);
    }
  });

  it('allow a parameter inside the range, and 0 only when there are no entries', () => {
    assert.equal(isRiceParameterAllowed('v5-32bit', 3, 5), true);
    assert.equal(isRiceParameterAllowed('v5-32bit', 30, 5), true);
    assert.equal(isRiceParameterAllowed('v5-32bit', 2, 5), false);
    assert.equal(isRiceParameterAllowed('v5-32bit', 31, 5), false);
    assert.equal(isRiceParameterAllowed('v5-32bit', 3.5, 5), false);
    assert.equal(isRiceParameterAllowed('v5-32bit', 0, 5), false);
    assert.equal(isRiceParameterAllowed('v5-32bit', 0, 0), true);
    assert.equal(isRiceParameterAllowed('v5-32bit', 31, 0), false);
    assert.equal(isRiceParameterAllowed('v4', 2, 1), true);
    assert.equal(isRiceParameterAllowed('v4', 29, 1), false);
    assert.equal(isRiceParameterAllowed('v5-256bit', 254, 1), true);
    assert.equal(isRiceParameterAllowed('v5-256bit', 226, 1), false);
  });
});
