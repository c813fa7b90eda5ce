import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseRetryAfter, retryAfterOfRefusal } from '../../src/wire/retry-after.ts';
import { WireResponseError } from '../../src/wire/wire-error.ts';

const NOW = Date.parse('2025-03-01T12:00:00Z');

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  it('reads delay-seconds', () => {
    assert.equal(parseRetryAfter('5', NOW), 5000);
    assert.equal(parseRetryAfter(' 120 ', NOW), 120_000);
    assert.equal(parseRetryAfter('0', NOW), 0);
    assert.equal(parseRetryAfter('9'.repeat(400), NOW), Infinity);
  });

  it('reads an HTTP-date as the time from now, a date past as 0', () => {
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 12:00:30 GMT', NOW), 30_000);
    assert.equal(parseRetryAfter('Saturday, 01-Mar-25 12:01:00 GMT', NOW), 60_000);
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', NOW), 0);
  });

  it('gives undefined for anything else', () => {
    for (const value of [
      undefined,
      '',
      '-5',
      '1.5',
      '5s',
      'soon',
      'tomorrow 3pm',
      'Sat, 01 Mar 2025 12:00:30',
      'Sat, 99 Foo 2025 12:00:30 GMT',
    ])
      assert.equal(parseRetryAfter(value, NOW), undefined, String(value));
  });

  it('never gives a negative or NaN delay', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 45 }), (value, now) => {
        const delay = parseRetryAfter(value, now);
        assert.ok(delay === undefined || delay >= 0);
      }),
    );
  });
});

describe('retryAfterOfRefusal', () => {
  const refusal = (status: number, retryAfter?: string) => new WireResponseError('error-status', status, undefined, 'refused', retryAfter);

  it('reads Retry-After of a 429 or 503 only', () => {
    assert.equal(retryAfterOfRefusal(refusal(503, '5'), NOW), 5000);
    assert.equal(retryAfterOfRefusal(refusal(429, '15'), NOW), 15_000);
    assert.equal(retryAfterOfRefusal(refusal(500, '5'), NOW), undefined);
    assert.equal(retryAfterOfRefusal(refusal(301, '5'), NOW), undefined);
    assert.equal(retryAfterOfRefusal(refusal(503), NOW), undefined);
    assert.equal(retryAfterOfRefusal(refusal(503, 'later'), NOW), undefined);
    assert.equal(retryAfterOfRefusal(new Error('503'), NOW), undefined);
  });
});
