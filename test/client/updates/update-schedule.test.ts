import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpdateSchedule } from '../../../src/client/updates/update-schedule.ts';

const MIN = 60_000;

describe('UpdateSchedule', () => {
  it('lets each list wait as long as the server said for it (RF-3), a zero wait meaning at once (SB-12)', () => {
    const schedule = new UpdateSchedule(['se-4b', 'mw-4b'], 0);
    assert.deepEqual(schedule.due(0), ['se-4b', 'mw-4b']);
    schedule.answered(0);
    schedule.listAnswered('se-4b', 0, 5 * MIN);
    schedule.listAnswered('mw-4b', 0, undefined);
    assert.deepEqual(schedule.due(0), ['mw-4b']);
    schedule.listAnswered('mw-4b', 0, 30 * MIN);
    assert.equal(schedule.earliest, 5 * MIN);
    assert.deepEqual(schedule.due(5 * MIN), ['se-4b']);
    assert.deepEqual(schedule.due(30 * MIN), ['se-4b', 'mw-4b']);
  });

  it('holds every list back after one failed request, until a 200 answer (RF-4, RF-5)', () => {
    const schedule = new UpdateSchedule(['se-4b', 'mw-4b'], 0);
    schedule.answered(0);
    schedule.listAnswered('se-4b', 0, 5 * MIN);
    schedule.listAnswered('mw-4b', 0, 10 * MIN);
    schedule.failed(5 * MIN, 0);
    assert.equal(schedule.backoffUntil, 20 * MIN);
    assert.deepEqual(schedule.due(19 * MIN), [], "mw-4b's wait is over, the back-off is not");
    assert.equal(schedule.earliest, 20 * MIN);
    schedule.failed(20 * MIN, 0);
    assert.deepEqual([schedule.consecutiveFailures, schedule.backoffUntil], [2, 50 * MIN]);
    assert.deepEqual(schedule.due(50 * MIN), ['se-4b', 'mw-4b']);
    schedule.answered(50 * MIN);
    assert.deepEqual([schedule.consecutiveFailures, schedule.backoffUntil], [0, undefined]);
  });

  it('puts the first request at a random moment in the first minute (RF-2)', () => {
    const schedule = new UpdateSchedule(['se-4b'], 1000);
    schedule.delayStart(1000, 0.5);
    assert.deepEqual([schedule.due(30_999), schedule.earliest], [[], 31_000]);
  });

  it('carries its state over to a new process; lists it does not know may go at once', () => {
    const schedule = new UpdateSchedule(['se-4b', 'mw-4b'], 0);
    schedule.answered(0);
    schedule.listAnswered('se-4b', 0, 5 * MIN);
    schedule.failed(MIN, 0);
    const restored = new UpdateSchedule(['se-4b', 'uws-4b'], 2 * MIN, schedule.state);
    assert.deepEqual(restored.state, { waits: { 'se-4b': 5 * MIN, 'uws-4b': 2 * MIN }, requests: { notBefore: 16 * MIN, failures: 1 } });
    assert.deepEqual(restored.due(16 * MIN), ['se-4b', 'uws-4b']);
  });

  it('has no moment at all without lists', () => {
    assert.equal(new UpdateSchedule([], 0).earliest, undefined);
  });
});

describe('UpdateSchedule against hostile waits', () => {
  const DAY = 24 * 60 * 60_000;

  it("cuts a list's minimum wait to a day (RF-3, SB-12); NaN counts as none", () => {
    const updates = new UpdateSchedule(['se-4b'], 0);
    updates.listAnswered('se-4b', 1000, 11_574 * DAY);
    assert.equal(updates.earliest, 1000 + DAY);
    updates.listAnswered('se-4b', 1000, Number.NaN);
    assert.equal(updates.earliest, 1000);
  });

  it('cuts saved waits to a day from now', () => {
    const now = 5 * DAY;
    const updates = new UpdateSchedule(['se-4b', 'mw-4b'], now, {
      waits: { 'se-4b': now + 11_574 * DAY, 'mw-4b': now + 5000 },
      requests: { notBefore: now + 11_574 * DAY, failures: 2 },
    });
    assert.deepEqual(updates.state.waits, { 'se-4b': now + DAY, 'mw-4b': now + 5000 });
    assert.equal(updates.backoffUntil, now + DAY);
  });

  it('holds every list back for a Retry-After, without a back-off step', () => {
    const updates = new UpdateSchedule(['se-4b', 'mw-4b'], 0);
    updates.retryAfter(1000, 5000);
    assert.deepEqual(updates.due(5999), []);
    assert.deepEqual(updates.due(6000), ['se-4b', 'mw-4b']);
    assert.equal(updates.backoffUntil, undefined);
    assert.equal(updates.consecutiveFailures, 0);
  });
});
