// The one fake clock of the tests: time moves only when a test says, and the timers that fall due on the
// way run in order, each at its own moment. A test proves that something does not happen by moving the
// clock past the moment it would, never by sleeping.

import type { MonotonicClock } from '../../src/time/clock.ts';

interface Timer {
  at: number;
  callback: () => void;
  id: number;
}

/** 2026-11-25 10:00 UTC: a wall time, for tests that show dates; `monotonic()` reads the same. */
const START = Date.UTC(2026, 10, 25, 10, 0, 0);

export class FakeClock implements MonotonicClock {
  private timers: Timer[] = [];
  private nextId = 0;
  private readonly delaysSet: number[] = [];

  constructor(private time = START) {}

  now(): number {
    return this.time;
  }

  monotonic(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.nextId;
    this.delaysSet.push(ms);
    this.timers.push({ at: this.time + Math.max(0, ms), callback, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Timers set and not yet run or cleared. */
  get pending(): number {
    return this.timers.length;
  }

  /** The delay of every timer set, in the order set, whether it ran, was cleared or waits: a timer set again and again shows. */
  get delays(): readonly number[] {
    return this.delaysSet;
  }

  /** When the next timer is due, if any. */
  nextTimerAt(): number | undefined {
    return this.timers.length === 0 ? undefined : Math.min(...this.timers.map((timer) => timer.at));
  }

  /** Moves time on by `ms`, running the timers that fall due on the way (those they set too), in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (let due = this.due(end); due !== undefined; due = this.due(end)) this.run(due);
    this.time = end;
  }

  /**
   * As `advance`, for code that sets its next timer after I/O or a promise: the event loop takes a turn
   * before each timer that falls due and after the last, so that what a timer started can go on.
   */
  async advanceAsync(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      const due = this.due(end);
      if (due === undefined) break;
      this.run(due);
    }
    this.time = end;
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** The first timer due by `end`; of two due at once, the one set first. */
  private due(end: number): Timer | undefined {
    let first: Timer | undefined;
    for (const timer of this.timers) if (timer.at <= end && (first === undefined || timer.at < first.at)) first = timer;
    return first;
  }

  private run(timer: Timer): void {
    this.timers = this.timers.filter((other) => other !== timer);
    this.time = Math.max(this.time, timer.at);
    timer.callback();
  }
}
