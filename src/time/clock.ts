/** Time as the client sees it: real by default, a fake one in tests of the timing rules. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
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
