// Exponential back-off: the one formula behind every wait that grows with failures in a row. RF-4's
// schedule of updates and searches (client/updates/schedule.ts), a feed source's retries
// (server/feeds/sources/source-backoff.ts), a refused publication's, Redis's attempts and reconnects
// (server/redis/redis-connection.ts) and the operator's failure throttle all take their waits from
// here, each with its own numbers. Pure: the caller counts the failures and draws the random number,
// so that a test can name both and expect an exact wait.

/** How waits grow with failures in a row. */
export interface Backoff {
  /** The nominal wait after the first failure (more than 0). */
  readonly firstMs: number;
  /** No wait is longer, jitter included. */
  readonly maxMs: number;
  /** Each nominal wait is this many times the one before (at least 1); 2 unless given. */
  readonly factor?: number;
  /**
   * The share of a wait that chance adds (positive) or takes off (negative, at least −1): the wait is
   * the nominal one times 1 + jitter × random. 1 lengthens it by up to as much again (RF-4), −0.25
   * shortens it by up to a quarter; 0 unless given. Waits that differ by chance keep clients and
   * instances that failed together from trying again together.
   */
  readonly jitter?: number;
}

/**
 * The wait after `failures` failures in a row (1 after the first; fewer count as 1), `random` being a
 * number in [0, 1] (taken within it):
 *
 *     MIN(maxMs, MIN(maxMs, firstMs × factor^(failures − 1)) × (1 + jitter × random))
 *
 * The nominal wait is capped before the jitter, so that a jitter that shortens spreads the waits at the
 * cap too, and after it, so that one that lengthens never passes the cap. Not rounded: callers that
 * set timers round as they need.
 */
export function backoffMs(backoff: Backoff, failures: number, random = 0): number {
  const { firstMs, maxMs, factor = 2, jitter = 0 } = backoff;
  // However many failures, the power only grows to Infinity, which the cap brings back to maxMs.
  const nominal = Math.min(maxMs, firstMs * factor ** (Math.max(failures, 1) - 1));
  return Math.min(maxMs, nominal * (1 + jitter * Math.min(Math.max(random, 0), 1)));
}
