import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callAt, type Clock, MAX_TIMER_DELAY_MS } from '../../src/time/clock.ts';

/** A clock whose one pending timer runs when the test says, the clock moved to its moment. */
function manualClock(): Clock & { delays: number[]; fire(): void; cleared: number } {
  let now = 0;
  let pending: { run: () => void; at: number } | undefined;
  const clock = {
    delays: [] as number[],
    cleared: 0,
    now: () => now,
    setTimeout: (run: () => void, ms: number) => {
      clock.delays.push(ms);
      pending = { run, at: now + ms };
      return pending;
    },
    clearTimeout: (handle: unknown) => {
      if (handle === pending) pending = undefined;
      clock.cleared++;
    },
    fire: () => {
      const timer = pending!;
      pending = undefined;
      now = timer.at;
      timer.run();
    },
  };
  return clock;
}

describe('callAt', () => {
  it('chains timers Node can hold to reach a moment past 24.8 days, and calls back once there', () => {
    const clock = manualClock();
    const at = 3 * MAX_TIMER_DELAY_MS + 5;
    let calls = 0;
    callAt(clock, at, () => calls++);
    for (let i = 0; i < 3; i++) clock.fire();
    assert.equal(calls, 0);
    clock.fire();
    assert.equal(calls, 1);
    assert.equal(clock.now(), at);
    assert.deepEqual(clock.delays, [MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, 5]);
  });

  it('calls back at once for a moment past, or NaN, and never re-arms for it', () => {
    for (const at of [-1000, 0, Number.NaN]) {
      const clock = manualClock();
      let calls = 0;
      callAt(clock, at, () => calls++);
      clock.fire();
      assert.equal(calls, 1, String(at));
      assert.deepEqual(clock.delays, [0]);
    }
  });

  it('cancels the timer pending', () => {
    const clock = manualClock();
    const cancel = callAt(clock, 10, () => assert.fail('cancelled'));
    cancel();
    assert.equal(clock.cleared, 1);
  });
});
