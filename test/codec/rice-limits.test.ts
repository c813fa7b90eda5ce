import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RiceDecodeError } from '../../src/codec/rice-error.ts';
import { checkNoTrailingData, checkRiceHeader } from '../../src/codec/rice-limits.ts';

describe('Rice header checks', () => {
  it('accept as many entries as the data can hold at k + 1 bits each, and no more', () => {
    // 9 bytes = 72 bits; k = 30 leaves room for two 31-bit entries.
    assert.doesNotThrow(() => checkRiceHeader('v5-32bit', 30, 2, 9));
    assert.throws(() => checkRiceHeader('v5-32bit', 30, 3, 9), { name: 'RiceDecodeError', reason: 'count-too-large' });
  });

  it('refuse a forged huge count without allocating for it', () => {
    assert.throws(() => checkRiceHeader('v5-32bit', 3, 2 ** 31 - 1, 16), { reason: 'count-too-large' });
    assert.throws(() => checkRiceHeader('v5-256bit', 254, 2 ** 31 - 1, 1 << 20), { reason: 'count-too-large' });
  });

  it('refuse a negative or fractional count before anything else', () => {
    assert.throws(() => checkRiceHeader('v5-32bit', 99, -1, 0), { reason: 'count-negative' });
    assert.throws(() => checkRiceHeader('v4', 5, 1.5, 4), { reason: 'count-negative' });
  });

  it('refuse a parameter outside the range, and allow 0 only without entries', () => {
    assert.throws(() => checkRiceHeader('v5-64bit', 34, 1, 8), { reason: 'parameter-out-of-range' });
    assert.throws(() => checkRiceHeader('v5-64bit', 0, 1, 8), { reason: 'parameter-out-of-range' });
    assert.doesNotThrow(() => checkRiceHeader('v5-64bit', 0, 0, 0));
    assert.doesNotThrow(() => checkRiceHeader('v5-64bit', 35, 0, 0));
  });

  it('allow fewer than 8 bits after the last entry, but not a whole byte', () => {
    assert.doesNotThrow(() => checkNoTrailingData('v5-32bit', 72, 65, 2));
    assert.doesNotThrow(() => checkNoTrailingData('v5-32bit', 0, 0, 0));
    const error = (() => {
      try {
        checkNoTrailingData('v5-32bit', 80, 65, 2);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(error instanceof RiceDecodeError);
    assert.equal(error.reason, 'count-mismatch');
    assert.match(error.message, /15 bits remain after the 2 entries/);
  });
});
