import { type Backoff, backoffMs } from '../../time/backoff.ts';
import { MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';

/** RF-2: the first request happens at a random moment in the first minute after start. */
export const FIRST_REQUEST_WINDOW_MS = 60_000;
/** RF-4: back-off grows from 15 minutes and is capped at 24 hours. */
export const BACKOFF_BASE_MS = 15 * 60_000;
export const BACKOFF_CAP_MS = 24 * 60 * 60_000;
/** RF-4's doubling, with RAND adding up to as much again to each wait. */
const RF4_BACKOFF: Backoff = { firstMs: BACKOFF_BASE_MS, maxMs: BACKOFF_CAP_MS, jitter: 1 };
/**
 * A 429 or 503 with `Retry-After` is obeyed within these bounds (see {@link RequestSchedule.retryAfter}):
 * at least a second, so that "0" cannot make the client hammer, and at most RF-4's first back-off step,
 * so that a server cannot impose through the header more than a failure would.
 */
export const RETRY_AFTER_MIN_MS = 1000;
export const RETRY_AFTER_MAX_MS = 15 * 60_000;
/** No rule makes a client wait longer than this from now: a saved moment further off is cut to it. */
const MAX_AHEAD_MS = Math.max(BACKOFF_CAP_MS, MAX_MINIMUM_WAIT_MS);

/**
 * A moment `ms` from `now`, never further off than any rule allows; negative or NaN is now. Whole
 * milliseconds, rounded up: sums of fractions could come out a rounding error early.
 */
function momentAfter(now: number, ms: number): number {
  return Math.ceil(now + (ms > 0 ? Math.min(ms, MAX_AHEAD_MS) : 0));
}

/**
 * A saved moment as at most MAX_AHEAD_MS from `now`: a state written while a longer wait was obeyed (or
 * by hand) must not hold the client back for longer than any rule could.
 */
export function boundedMoment(moment: number, now: number): number {
  return Math.min(moment, momentAfter(now, MAX_AHEAD_MS));
}

/**
 * RF-4: the wait after the Nth consecutive failure, MIN(2^(N-1) × 15 min × (1 + RAND), 24 h), with RAND
 * in [0, 1] drawn anew for each failure. (The seeds print `2N-1`; docs/protocol.md reads the exponent N-1.)
 */
export function backoffDelay(consecutiveFailures: number, rand: number): number {
  return backoffMs(RF4_BACKOFF, consecutiveFailures, rand);
}

export interface ScheduleState {
  notBefore: number;
  failures: number;
}

/** A usable saved schedule: a finite moment and a whole, non-negative count of failures. */
export function isScheduleState(value: unknown): value is ScheduleState {
  if (typeof value !== 'object' || value === null) return false;
  const { notBefore, failures } = value as Record<string, unknown>;
  return Number.isFinite(notBefore) && Number.isSafeInteger(failures) && (failures as number) >= 0;
}

/**
 * When the next request of one kind (list updates, or hash searches) may go out, under the rules of
 * request frequency: a random first moment (RF-2), the server's minimum wait after a success (RF-3,
 * SB-12: zero or absent means at once; at most a day), exponential back-off after failures (RF-4) that
 * ends with the next success (RF-5), and a refusal's Retry-After in its stead when the server gives one.
 * Pure state; the caller supplies the clock readings and the random numbers.
 * Moments are whole milliseconds, rounded up: sums of fractions could come out a rounding error early.
 */
export class RequestSchedule {
  private notBefore: number;
  private failures = 0;

  constructor(startedAt: number, rand: number, firstRequestWindowMs = FIRST_REQUEST_WINDOW_MS) {
    this.notBefore = Math.ceil(startedAt + rand * firstRequestWindowMs);
  }

  /**
   * A schedule carried over from an earlier process, so that waits outlive restarts. RangeError for a
   * state that is no ScheduleState: a NaN moment would make every comparison false and every timer 1 ms.
   */
  static restore(state: ScheduleState, now: number): RequestSchedule {
    if (!isScheduleState(state)) throw new RangeError(`not a saved request schedule: ${JSON.stringify(state)}`);
    const schedule = new RequestSchedule(boundedMoment(state.notBefore, now), 0);
    schedule.failures = state.failures;
    return schedule;
  }

  get state(): ScheduleState {
    return { notBefore: this.notBefore, failures: this.failures };
  }

  /** RF-2 for a client that starts (again): not before a random moment in the first window either. */
  delayStart(startedAt: number, rand: number, firstRequestWindowMs = FIRST_REQUEST_WINDOW_MS): void {
    this.notBefore = Math.max(this.notBefore, Math.ceil(startedAt + rand * firstRequestWindowMs));
  }

  /** The earliest moment (client clock, ms) the next request may be sent. */
  get earliest(): number {
    return this.notBefore;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  get inBackoff(): boolean {
    return this.failures > 0;
  }

  mayRequest(now: number): boolean {
    return now >= this.notBefore;
  }

  /** A 200 answer: back-off ends (RF-5) and the server's minimum wait applies (RF-3), at most a day. */
  succeeded(now: number, minimumWaitMs: number | undefined): void {
    this.failures = 0;
    this.notBefore = momentAfter(now, Math.min(minimumWaitMs ?? 0, MAX_MINIMUM_WAIT_MS));
  }

  /** Any answer but 200, or none at all: the next back-off step (RF-4). */
  failed(now: number, rand: number): void {
    this.failures++;
    this.notBefore = momentAfter(now, backoffDelay(this.failures, rand));
  }

  /**
   * A 429 or 503 that said when to come back (`Retry-After`): the next request waits that long, within
   * [RETRY_AFTER_MIN_MS, RETRY_AFTER_MAX_MS], instead of taking RF-4's next step. RF-4 is for failures,
   * where the client must guess how long the trouble lasts; here the server says. The count of failures
   * is left as it is: the answer is no success (RF-5), and the next failure without the header goes on
   * escalating from where back-off stood.
   */
  retryAfter(now: number, retryAfterMs: number): void {
    this.notBefore = momentAfter(now, retryAfterMs >= RETRY_AFTER_MIN_MS ? Math.min(retryAfterMs, RETRY_AFTER_MAX_MS) : RETRY_AFTER_MIN_MS);
  }
}
