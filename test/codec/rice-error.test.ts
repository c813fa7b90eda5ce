import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RiceDecodeError, RiceEncodeError } from '../../src/codec/rice-error.ts';

describe('Rice errors', () => {
  it('name the failure, the message and what to do about a corrupt update', () => {
    const error = new RiceDecodeError('count-too-large', 'v5-32bit', 'entries_count is 2147483647');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'RiceDecodeError');
    assert.equal(error.reason, 'count-too-large');
    assert.equal(error.format, 'v5-32bit');
    assert.match(error.message, /^cannot decode v5 RiceDeltaEncoded32Bit: /);
    assert.match(error.message, /larger than the encoded data could hold \(entries_count is 2147483647\)/);
    assert.match(error.message, /request a full update$/);
  });

  it('tell the caller of an encoder how to fix its input', () => {
    const error = new RiceEncodeError('not-ascending', 'v4', 'value 3 at index 1 follows 5');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'RiceEncodeError');
    assert.equal(error.reason, 'not-ascending');
    assert.equal(
      error.message,
      'cannot encode v4 RiceDeltaEncoding: the values must be sorted in strictly ascending order, ' +
        'without duplicates (value 3 at index 1 follows 5)',
    );
  });
});
