// When a source that failed is tried again. A feed's server that is down, overloaded or refusing us is
// not helped by being asked again at full rate, nor by every sbkit in the world asking at the same
// moments: each source waits FIRST_RETRY_MS after its first failure, twice as long after each further
// one, never longer than its refresh interval (it would have been asked then anyway), each wait shortened
// by a random quarter at most so that sources and servers that failed together drift apart. A success
// starts the count again. A server that asks for a wait (Retry-After on 429 or 503) gets it, within the
// same cap.

import { backoffMs } from '../../../time/backoff.ts';

/** The first wait after a failure. */
export const FIRST_RETRY_MS = 30_000;
/** The share of each wait that is random: a wait is between (1 − JITTER) and 1 times its nominal length. */
export const RETRY_JITTER = 0.25;

/**
 * Milliseconds until the next try after `failures` failures in a row (1 after the first), for a source
 * refreshed every `refreshMs`. `random` is a number in [0, 1); `retryAfterMs` is the server's request, if
 * it made one.
 */
export function retryDelayMs(failures: number, refreshMs: number, random: number, retryAfterMs?: number): number {
  const wait = backoffMs({ firstMs: FIRST_RETRY_MS, maxMs: refreshMs, jitter: -RETRY_JITTER }, failures, random);
  return Math.round(Math.min(refreshMs, Math.max(wait, retryAfterMs ?? 0)));
}
