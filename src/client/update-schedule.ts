import { boundedMoment, FIRST_REQUEST_WINDOW_MS, MAX_MINIMUM_WAIT_MS, RequestSchedule, type ScheduleState } from './schedule.ts';

export interface UpdateScheduleState {
  /** Per list, the earliest moment (client clock, ms) the server's minimum wait lets it be asked again. */
  waits: Record<string, number>;
  /** Update requests as a whole: RF-2's first moment and RF-4's back-off. */
  requests: ScheduleState;
}

/**
 * When list updates may go out. Each list obeys the minimum wait the server gave it (RF-3, SB-12: zero
 * or absent means at once), while back-off is the client's, not a list's: RF-4 counts failed requests
 * to the server, so after one failed update request no list is asked for until the back-off has passed,
 * and the next 200 answer ends it for all (RF-5). Pure state; the caller supplies clock readings and
 * random numbers.
 */
export class UpdateSchedule {
  private readonly waits: Map<string, number>;
  private readonly requests: RequestSchedule;

  /** Lists not in `saved` (or all, without it) may be asked for at once; saved moments are at most a day off. */
  constructor(names: readonly string[], now: number, saved?: UpdateScheduleState) {
    this.requests = saved === undefined ? new RequestSchedule(now, 0, 0) : RequestSchedule.restore(saved.requests, now);
    this.waits = new Map(names.map((name) => [name, boundedMoment(saved?.waits[name] ?? now, now)]));
  }

  get state(): UpdateScheduleState {
    return { waits: Object.fromEntries(this.waits), requests: this.requests.state };
  }

  /** The lists that may be asked for now: those whose wait is over, and none during back-off. */
  due(now: number): string[] {
    if (!this.requests.mayRequest(now)) return [];
    return [...this.waits].filter(([, notBefore]) => now >= notBefore).map(([name]) => name);
  }

  /** The earliest moment some list may be asked for; undefined without lists. */
  get earliest(): number | undefined {
    if (this.waits.size === 0) return undefined;
    return Math.max(this.requests.earliest, Math.min(...this.waits.values()));
  }

  get consecutiveFailures(): number {
    return this.requests.consecutiveFailures;
  }

  /** The end of the back-off in force after failed update requests (RF-4); undefined when there is none. */
  get backoffUntil(): number | undefined {
    return this.requests.inBackoff ? this.requests.earliest : undefined;
  }

  /** RF-2 for a client that starts (again): no update before a random moment in the first window. */
  delayStart(now: number, rand: number, firstRequestWindowMs = FIRST_REQUEST_WINDOW_MS): void {
    this.requests.delayStart(now, rand, firstRequestWindowMs);
  }

  /** A 200 answer to an update request: back-off ends for every list (RF-5). */
  answered(now: number): void {
    this.requests.succeeded(now, 0);
  }

  /** The server's minimum wait for one list of a 200 answer (RF-3, SB-12), at most MAX_MINIMUM_WAIT_MS. */
  listAnswered(name: string, now: number, minimumWaitMs: number | undefined): void {
    const waitMs = Math.min(minimumWaitMs ?? 0, MAX_MINIMUM_WAIT_MS);
    this.waits.set(name, Math.ceil(now + (waitMs > 0 ? waitMs : 0)));
  }

  /** An update request failed (any answer but 200, or none): the next back-off step, for all lists (RF-4). */
  failed(now: number, rand: number): void {
    this.requests.failed(now, rand);
  }

  /** A 429 or 503 with `Retry-After`: no list before then, and no back-off step (RequestSchedule.retryAfter). */
  retryAfter(now: number, retryAfterMs: number): void {
    this.requests.retryAfter(now, retryAfterMs);
  }
}
