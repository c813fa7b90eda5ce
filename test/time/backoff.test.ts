import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Backoff, backoffMs } from '../../src/time/backoff.ts';

const backoffs = fc.record(
  {
    firstMs: fc.integer({ min: 1, max: 3_600_000 }),
    maxMs: fc.integer({ min: 1, max: 7 * 24 * 3_600_000 }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    jitter: fc.double({ min: -1, max: 2, noNaN: true }),
  },
  { requiredKeys: ['firstMs', 'maxMs'] },
);
const failures = fc.integer({ min: 1, max: 5000 });
const randoms = fc.double({ min: 0, max: 1, noNaN: true });

describe('backoffMs', () => {
  it('doubles from the first wait up to the cap, without jitter unless given', () => {
    const backoff: Backoff = { firstMs: 1000, maxMs: 60_000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 1000, 1e9].map((n) => backoffMs(backoff, n, 0.7)),
      [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000],
    );
    assert.equal(backoffMs(backoff, 0), 1000, 'no failure counts as the first');
    assert.equal(backoffMs({ ...backoff, factor: 3 }, 3), 9000);
  });

  it('adds or takes off its share of each wait, as far as the random number says', () => {
    assert.equal(backoffMs({ firstMs: 1000, maxMs: 60_000, jitter: 1 }, 2, 0.5), 3000);
    assert.equal(backoffMs({ firstMs: 1000, maxMs: 60_000, jitter: -0.25 }, 2, 1), 1500);
    // Shortening spreads the waits at the cap; lengthening stops at it.
    assert.equal(backoffMs({ firstMs: 1000, maxMs: 60_000, jitter: -0.5 }, 20, 1), 30_000);
    assert.equal(backoffMs({ firstMs: 1000, maxMs: 60_000, jitter: 1 }, 6, 1), 60_000);
    // A random number outside [0, 1] is taken within it.
    assert.equal(backoffMs({ firstMs: 1000, maxMs: 60_000, jitter: 1 }, 1, 5), 2000);
    assert.equal(backoffMs({ firstMs: 1000, maxMs: 60_000, jitter: 1 }, 1, -5), 1000);
  });

  it('never waits less than the first wait (less its jitter) nor more than the cap', () => {
    fc.assert(
      fc.property(backoffs, failures, randoms, (backoff, n, random) => {
        const wait = backoffMs(backoff, n, random);
        const least = Math.min(backoff.firstMs, backoff.maxMs) * Math.min(1, 1 + (backoff.jitter ?? 0));
        assert.ok(wait <= backoff.maxMs, `${wait} ms above the cap`);
        assert.ok(wait >= least * (1 - 1e-12), `${wait} ms below ${least} ms`);
        if ((backoff.jitter ?? 0) >= 0) assert.ok(wait >= Math.min(backoff.firstMs, backoff.maxMs));
      }),
    );
  });

  it('never waits less after more failures, the random number held', () => {
    fc.assert(
      fc.property(backoffs, failures, failures, randoms, (backoff, a, b, random) => {
        const [fewer, more] = a <= b ? [a, b] : [b, a];
        assert.ok(backoffMs(backoff, fewer, random) <= backoffMs(backoff, more, random));
        assert.ok(backoffMs({ ...backoff, jitter: 0 }, fewer) <= backoffMs({ ...backoff, jitter: 0 }, more));
      }),
    );
  });

  it('reaches the cap and stays there however many failures, never Infinity or NaN', () => {
    fc.assert(
      fc.property(backoffs, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (backoff, n) => {
        const wait = backoffMs({ ...backoff, factor: 2, jitter: 0 }, n);
        assert.ok(Number.isFinite(wait));
        if (n > 64) assert.equal(wait, backoff.maxMs);
      }),
    );
  });
});
