// The one clock of src/: every reading of the time and every timer goes through a Clock, so that a test
// moves time for a whole part at once (test/support/fake-clock.ts) instead of sleeping, and a timer past
// 2^31 − 1 ms cannot overflow (callAt). ESLint forbids the global timers, Date.now() and
// performance.now() elsewhere in src/. A part takes its clock as an option from whoever makes it.
//
// What a clock offers, and why no more:
// - now(): wall time, milliseconds since the epoch, for moments that mean something outside this
//   process (a snapshot's stamp, an expiry another instance reads, an HTTP date, a schedule on disk).
// - monotonic(), on a MonotonicClock: milliseconds from no particular moment, never stepping back. The
//   server measures intervals on it (rate windows, stall and pace sweeps, the proxy's token bucket): a
//   wall clock set forward by NTP or a resumed VM would cut every slow connection at once, one set back
//   would starve a bucket. It is an interface of its own because the client's `clock` option is a public
//   Clock of three members, and the client measures no such interval.
// - setTimeout()/clearTimeout(): timers on the clock's time, the rest built on them (callAt, every,
//   sleep). The system's timers are unref'd: none keeps a process alive that is otherwise done (a server
//   is kept alive by its listening socket, a request or a connection attempt under way by its own).
// A turn of the event loop (nextTurn) is no part of a clock: it is no time a test could move, only a
// chance for waiting I/O to be handled, and a fake clock would have nothing to fake about it.

/** Time and timers: the system's by default (systemClock), a fake one in tests of timing rules. */
export interface Clock {
  /** Wall time, milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, `ms` from now; returns the handle that clearTimeout takes. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a timer not yet run. */
  clearTimeout(handle: unknown): void;
}

/** A Clock that also measures intervals on a reading that never steps back. */
export interface MonotonicClock extends Clock {
  /** Milliseconds from no particular moment, never smaller than before (performance.now()). */
  monotonic(): number;
}

export const systemClock: MonotonicClock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (callback, ms) => {
    const handle: unknown = setTimeout(callback, ms);
    // A pending update must not keep a Node process alive that is otherwise done; browsers' timers are numbers.
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

/** The longest delay a Node timer holds (2^31 − 1 ms, 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `callback` once the clock reads `at` or later, through timers of at most MAX_TIMER_DELAY_MS
 * that re-arm until then: a moment set from a server's answer can be as far off as it likes without the
 * timer overflowing into a 1 ms loop. Returns the function that cancels it.
 */
export function callAt(clock: Clock, at: number, callback: () => void): () => void {
  let handle: unknown;
  const arm = () => {
    const left = at - clock.now();
    // Written so that a NaN moment counts as now: it fires once rather than re-arming for ever.
    handle = clock.setTimeout(() => (clock.now() < at ? arm() : callback()), left > 0 ? Math.min(left, MAX_TIMER_DELAY_MS) : 0);
  };
  arm();
  return () => clock.clearTimeout(handle);
}

/** Calls `callback` every `ms` on `clock`, the first time `ms` from now, until the returned function is called. */
export function every(clock: Clock, ms: number, callback: () => void): () => void {
  let handle: unknown;
  const arm = () => {
    handle = clock.setTimeout(() => {
      // Re-armed before the call, as setInterval does: the period does not grow by the callback's time.
      arm();
      callback();
    }, ms);
  };
  arm();
  return () => clock.clearTimeout(handle);
}

/** An AbortSignal that aborts on a clock, and the function that cancels it once the work it bounds is done. */
export interface Deadline {
  signal: AbortSignal;
  clear: () => void;
}

/**
 * A signal that aborts `ms` from now on `clock` with a "TimeoutError" DOMException, as
 * AbortSignal.timeout() does on the system's time only: a test moves a request's deadline with the rest
 * of its clock. `clear()` cancels the timer when the work ends first (a fake clock counts it till then).
 */
export function deadline(clock: Clock, ms: number): Deadline {
  const controller = new AbortController();
  // One timer, capped where Node's overflow would start: no request is worth waiting 24.8 days for.
  const abort = () => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  const handle = clock.setTimeout(abort, Math.min(ms, MAX_TIMER_DELAY_MS));
  return { signal: controller.signal, clear: () => clock.clearTimeout(handle) };
}

/** Resolves after `ms` on `clock`. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/**
 * Resolves on the next turn of Node's event loop, after the I/O that waits has been handled
 * (setImmediate): how a long piece of work lets requests be answered. Not a timer, so no clock's.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
