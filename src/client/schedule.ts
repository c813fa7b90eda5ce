/** RF-2: the first request happens at a random moment in the first minute after start. */
export const FIRST_REQUEST_WINDOW_MS = 60_000;
/** RF-4: back-off grows from 15 minutes and is capped at 24 hours. */
export const BACKOFF_BASE_MS = 15 * 60_000;
export const BACKOFF_CAP_MS = 24 * 60 * 60_000;

/**
 * RF-4: the wait after the Nth consecutive failure, MIN(2^(N-1) × 15 min × (1 + RAND), 24 h), with RAND
 * in [0, 1] drawn anew for each failure. (The seeds print `2N-1`; docs/protocol.md reads the exponent N-1.)
 */
export function backoffDelay(consecutiveFailures: number, rand: number): number {
  const exponent = Math.min(consecutiveFailures - 1, 32);
  return Math.min(2 ** exponent * BACKOFF_BASE_MS * (1 + rand), BACKOFF_CAP_MS);
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
 * SB-12: zero or absent means at once), and exponential back-off after failures (RF-4) that ends with the
 * next success (RF-5). Pure state; the caller supplies the clock readings and the random numbers.
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
  static restore(state: ScheduleState): RequestSchedule {
    if (!isScheduleState(state)) throw new RangeError(`not a saved request schedule: ${JSON.stringify(state)}`);
    const schedule = new RequestSchedule(state.notBefore, 0);
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

  /** A 200 answer: back-off ends (RF-5) and the server's minimum wait applies (RF-3). */
  succeeded(now: number, minimumWaitMs: number | undefined): void {
    this.failures = 0;
    this.notBefore = Math.ceil(now + Math.max(0, minimumWaitMs ?? 0));
  }

  /** Any answer but 200, or none at all: the next back-off step (RF-4). */
  failed(now: number, rand: number): void {
    this.failures++;
    this.notBefore = Math.ceil(now + backoffDelay(this.failures, rand));
  }
}
