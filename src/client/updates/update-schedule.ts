import { MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';
import { boundedMoment, FIRST_REQUEST_WINDOW_MS, RequestSchedule, type ScheduleState } from './schedule.ts';

/**
 * However short the server's waits, a list stays current at least this long after its last update:
 * the Go reference client calls its database stale after two update periods of 30 minutes.
 */
export const MIN_CURRENT_MS = 60 * 60_000;

/**
 * How long a list stays current after an update whose answer said to wait `waitMs` before the next:
 * through one missed update (two waits), and at least {@link MIN_CURRENT_MS}. Past that, a URL the list
 * does not hold may have been added since, and the list no longer vouches for it. The wait counts for at
 * most a day, as every wait (RF-3): a wait worked out from a lost schedule cannot keep an old list current.
 */
export function currentForMs(waitMs: number): number {
  return Math.max(2 * Math.min(Math.max(0, waitMs), MAX_MINIMUM_WAIT_MS), MIN_CURRENT_MS);
}

/**
 * Why an update asked for sends nothing: `start-delay`, RF-2's random first moment after start();
 * `retry-after`, a 429 or 503 said when to come back; `backoff`, RF-4 after failed updates;
 * `minimum-wait`, every list waits as the server said (RF-3).
 */
export type UpdateDeferral = 'start-delay' | 'retry-after' | 'backoff' | 'minimum-wait';

export interface UpdateScheduleState {
  /** Per list, the earliest moment (client clock, ms) the server's minimum wait lets it be asked again. */
  waits: Record<string, number>;
  /** Per list, the moment (client clock, ms) its stored copy stops being current ({@link currentForMs}). */
  current?: Record<string, number>;
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
  /**
   * Lists the server said it does not publish, and when to ask again. Not saved: a process that starts
   * asks the server afresh, so that what it reports is what the server says now.
   */
  private readonly setAside = new Map<string, number>();
  /** RF-2's first moment, while it is what holds requests back. */
  private startDelayedUntil: number | undefined;
  /** When each stored list stops being current; set when a list is stored, saved with the schedule. */
  private readonly current: Map<string, number>;

  /** Lists not in `saved` (or all, without it) may be asked for at once; saved moments are at most a day off. */
  constructor(names: readonly string[], now: number, saved?: UpdateScheduleState) {
    this.requests = saved === undefined ? new RequestSchedule(now, 0, 0) : RequestSchedule.restore(saved.requests, now);
    this.waits = new Map(names.map((name) => [name, boundedMoment(saved?.waits[name] ?? now, now)]));
    this.current = new Map(
      names.flatMap((name) => {
        const until = saved?.current?.[name];
        return until === undefined ? [] : [[name, boundedMoment(until, now)]];
      }),
    );
  }

  get state(): UpdateScheduleState {
    const state: UpdateScheduleState = { waits: Object.fromEntries(this.waits), requests: this.requests.state };
    if (this.current.size > 0) state.current = Object.fromEntries(this.current);
    return state;
  }

  /** The lists that may be asked for now: those whose wait is over, and none during back-off. */
  due(now: number): string[] {
    if (!this.requests.mayRequest(now)) return [];
    return [...this.waits.keys()].filter((name) => now >= this.notBefore(name));
  }

  private notBefore(name: string): number {
    return Math.max(this.waits.get(name)!, this.setAside.get(name) ?? -Infinity);
  }

  /** The earliest moment some list may be asked for; undefined without lists. */
  get earliest(): number | undefined {
    if (this.waits.size === 0) return undefined;
    return Math.max(this.requests.earliest, Math.min(...[...this.waits.keys()].map((name) => this.notBefore(name))));
  }

  /** Why no list may be asked for at `now` ({@link UpdateDeferral}), and until when; undefined when some list may. */
  deferral(now: number): { reason: UpdateDeferral; until: number } | undefined {
    const until = this.earliest;
    if (until === undefined || until <= now) return undefined;
    if (this.requests.earliest <= now) return { reason: 'minimum-wait', until };
    if (this.requests.inBackoff) return { reason: 'backoff', until };
    return { reason: this.requests.earliest === this.startDelayedUntil ? 'start-delay' : 'retry-after', until };
  }

  /** A list stored from an answer at `at` that said to wait `waitMs`: current until {@link currentForMs} later. */
  stored(name: string, at: number, waitMs: number): void {
    this.current.set(name, at + currentForMs(waitMs));
  }

  /**
   * When the copy of a list stored at `updatedAt` stops being current: as recorded when it was stored,
   * or, for a copy whose schedule was lost or written by an older sbkit, an hour after it was stored.
   */
  currentUntil(name: string, updatedAt: number): number {
    return this.current.get(name) ?? updatedAt + MIN_CURRENT_MS;
  }

  /** A list the server does not publish: not asked for again before `until`. */
  notPublished(name: string, until: number): void {
    this.setAside.set(name, until);
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
    this.startDelayedUntil = this.requests.earliest;
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
