import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callAt, deadline, every, MAX_TIMER_DELAY_MS, nextTurn, sleep, systemClock } from '../../src/time/clock.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('callAt', () => {
  it('chains timers Node can hold to reach a moment past 24.8 days, and calls back once there', () => {
    const clock = new FakeClock(0);
    const at = 3 * MAX_TIMER_DELAY_MS + 5;
    let calls = 0;
    callAt(clock, at, () => calls++);
    for (let i = 1; i <= 3; i++) {
      assert.equal(clock.nextTimerAt(), i * MAX_TIMER_DELAY_MS, 'no timer longer than Node holds');
      clock.advance(MAX_TIMER_DELAY_MS);
      assert.equal(calls, 0);
    }
    assert.equal(clock.nextTimerAt(), at);
    clock.advance(5);
    assert.equal(calls, 1);
    assert.equal(clock.pending, 0);
  });

  it('calls back at once for a moment past, or NaN, and never re-arms for it', () => {
    for (const at of [-1000, 0, Number.NaN]) {
      const clock = new FakeClock(0);
      let calls = 0;
      callAt(clock, at, () => calls++);
      assert.equal(clock.nextTimerAt(), 0, String(at));
      clock.advance(0);
      assert.equal(calls, 1, String(at));
      assert.equal(clock.pending, 0, String(at));
    }
  });

  it('cancels the timer pending', () => {
    const clock = new FakeClock(0);
    const cancel = callAt(clock, 10, () => assert.fail('cancelled'));
    cancel();
    assert.equal(clock.pending, 0);
    clock.advance(10);
  });
});

describe('every', () => {
  it('calls back each period, the first a period from now, until stopped, from within a call too', () => {
    const clock = new FakeClock(0);
    const calls: number[] = [];
    const stop = every(clock, 100, () => {
      calls.push(clock.now());
      if (calls.length === 3) stop();
    });
    clock.advance(99);
    assert.deepEqual(calls, []);
    clock.advance(1000);
    assert.deepEqual(calls, [100, 200, 300]);
    assert.equal(clock.pending, 0);
  });
});

describe('sleep', () => {
  it('resolves once the clock has moved by the time asked, and not before', async () => {
    const clock = new FakeClock(0);
    let woke = false;
    const slept = sleep(clock, 1000).then(() => (woke = true));
    clock.advance(999);
    await nextTurn();
    assert.equal(woke, false);
    clock.advance(1);
    await slept;
    assert.equal(clock.now(), 1000);
  });
});

describe('systemClock', () => {
  it('keeps no process alive for a timer, and reads a time that never steps back beside the wall time', () => {
    const handle = systemClock.setTimeout(() => assert.fail('cleared'), 60_000) as NodeJS.Timeout;
    assert.equal(handle.hasRef(), false);
    systemClock.clearTimeout(handle);
    const readings = Array.from({ length: 1000 }, () => systemClock.monotonic());
    assert.ok(readings.every((reading, i) => i === 0 || reading >= readings[i - 1]!));
    assert.ok(Math.abs(systemClock.now() - Date.now()) < 1000);
  });
});

describe('deadline', () => {
  it('aborts its signal with a TimeoutError when the clock reaches it, and not before', () => {
    const clock = new FakeClock(0);
    const { signal } = deadline(clock, 10_000);
    clock.advance(9_999);
    assert.equal(signal.aborted, false);
    clock.advance(1);
    assert.equal(signal.aborted, true);
    assert.equal((signal.reason as DOMException).name, 'TimeoutError');
    assert.match((signal.reason as DOMException).message, /10000 ms/);
    assert.equal(clock.pending, 0);
  });

  it('once cleared, never aborts and leaves no timer behind', () => {
    const clock = new FakeClock(0);
    const { signal, clear } = deadline(clock, 10_000);
    clear();
    assert.equal(clock.pending, 0);
    clock.advance(60_000);
    assert.equal(signal.aborted, false);
  });
});
