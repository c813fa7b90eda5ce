import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffDelay,
  isScheduleState,
  RequestSchedule,
  RETRY_AFTER_MAX_MS,
  RETRY_AFTER_MIN_MS,
} from '../../../src/client/updates/schedule.ts';
import { MAX_MINIMUM_WAIT_MS } from '../../../src/wire/duration-caps.ts';

const MIN = 60_000;

describe('backoffDelay (RF-4)', () => {
  it('doubles from 15 to 30 minutes for the first failure and caps at 24 hours', () => {
    assert.equal(backoffDelay(1, 0), 15 * MIN);
    assert.equal(backoffDelay(1, 1), 30 * MIN);
    assert.equal(backoffDelay(2, 0), 30 * MIN);
    assert.equal(backoffDelay(3, 0.5), 90 * MIN);
    assert.equal(backoffDelay(7, 0), 960 * MIN);
    assert.equal(backoffDelay(7, 1), BACKOFF_CAP_MS);
    assert.equal(backoffDelay(1000, 0), BACKOFF_CAP_MS);
  });

  it('stays within [2^(N-1) × 15 min, 2^N × 15 min] and under 24 hours', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, rand) => {
        const delay = backoffDelay(n, rand);
        const low = Math.min(2 ** (n - 1) * BACKOFF_BASE_MS, BACKOFF_CAP_MS);
        assert.ok(delay >= low && delay <= Math.min(2 * low, BACKOFF_CAP_MS));
      }),
    );
  });
});

describe('RequestSchedule', () => {
  it('puts the first request at a random moment in the first minute (RF-2)', () => {
    assert.equal(new RequestSchedule(1000, 0).earliest, 1000);
    assert.equal(new RequestSchedule(1000, 0.5).earliest, 31_000);
    assert.ok(!new RequestSchedule(1000, 0.5).mayRequest(30_999));
  });

  it('obeys the minimum wait after a success, and a zero or absent one means at once (RF-3, SB-12)', () => {
    const schedule = new RequestSchedule(0, 0);
    schedule.succeeded(5000, 1800_000);
    assert.ok(!schedule.mayRequest(1804_999));
    assert.ok(schedule.mayRequest(1805_000));
    schedule.succeeded(2000_000, 0);
    assert.ok(schedule.mayRequest(2000_000));
    schedule.succeeded(3000_000, undefined);
    assert.ok(schedule.mayRequest(3000_000));
  });

  it('backs off after failures and leaves back-off on success (RF-4, RF-5)', () => {
    const schedule = new RequestSchedule(0, 0);
    schedule.failed(0, 0);
    assert.equal(schedule.earliest, 15 * MIN);
    schedule.failed(15 * MIN, 0);
    assert.equal(schedule.earliest, 45 * MIN);
    assert.equal(schedule.consecutiveFailures, 2);
    schedule.succeeded(45 * MIN, 300_000);
    assert.equal(schedule.inBackoff, false);
    assert.equal(schedule.earliest, 50 * MIN);
    schedule.failed(50 * MIN, 0);
    assert.equal(schedule.earliest, 65 * MIN);
  });

  it('carries a saved state over, and refuses one that is not a schedule', () => {
    const schedule = new RequestSchedule(0, 0);
    schedule.failed(0, 0);
    assert.deepEqual(RequestSchedule.restore(schedule.state, 0).state, { notBefore: 15 * MIN, failures: 1 });
    const wrong = [
      { notBefore: Number.NaN, failures: 0 },
      { notBefore: Infinity, failures: 0 },
      { notBefore: 'soon', failures: 0 },
      { notBefore: 0, failures: -1 },
      { notBefore: 0 },
      null,
    ];
    for (const state of wrong) {
      assert.equal(isScheduleState(state), false, JSON.stringify(state));
      assert.throws(() => RequestSchedule.restore(state as never, 0), RangeError);
    }
  });
});

describe('bounds on what a server can impose', () => {
  const DAY = 24 * 60 * MIN;

  it('cuts a minimum wait to a day (RF-3, SB-12)', () => {
    assert.equal(MAX_MINIMUM_WAIT_MS, DAY);
    const search = new RequestSchedule(0, 0);
    search.succeeded(1000, 11_574 * DAY);
    assert.equal(search.earliest, 1000 + DAY);
  });

  it('cuts a saved moment to a day from now: a state written under a longer wait does not hold the client back', () => {
    const now = 5 * DAY;
    assert.equal(RequestSchedule.restore({ notBefore: now + 11_574 * DAY, failures: 3 }, now).earliest, now + DAY);
    assert.equal(RequestSchedule.restore({ notBefore: now + 60_000, failures: 0 }, now).earliest, now + 60_000);
  });
});

describe('Retry-After on a 429 or 503', () => {
  it('waits as long as the server said, within [1 s, 15 min], and takes no back-off step', () => {
    assert.equal(RETRY_AFTER_MIN_MS, 1000);
    assert.equal(RETRY_AFTER_MAX_MS, BACKOFF_BASE_MS);
    const schedule = new RequestSchedule(0, 0);
    schedule.retryAfter(10_000, 5000);
    assert.equal(schedule.earliest, 15_000);
    assert.equal(schedule.consecutiveFailures, 0);
    schedule.retryAfter(20_000, 0);
    assert.equal(schedule.earliest, 21_000, 'at least a second');
    schedule.retryAfter(30_000, Infinity);
    assert.equal(schedule.earliest, 30_000 + 15 * MIN, 'at most 15 minutes');
    schedule.retryAfter(40_000, Number.NaN);
    assert.equal(schedule.earliest, 41_000);
  });

  it('leaves the count of failures as it stands, so that failures without the header go on escalating', () => {
    const schedule = new RequestSchedule(0, 0);
    schedule.failed(0, 0);
    schedule.retryAfter(15 * MIN, 5000);
    assert.equal(schedule.consecutiveFailures, 1);
    assert.equal(schedule.earliest, 15 * MIN + 5000);
    schedule.failed(15 * MIN + 5000, 0);
    assert.equal(schedule.earliest, 15 * MIN + 5000 + 30 * MIN, 'the second failure waits 30 minutes');
    schedule.succeeded(60 * MIN, 0);
    assert.equal(schedule.consecutiveFailures, 0);
  });
});
