// The local lists' updates: when each list may be asked for again (RF-2..5, SB-12), applying each answer
// (SB-9: removals, additions, checksum; a list that fails is dropped and fetched in full) and storing it
// (local-lists.ts holds the lists), in the foreground or on a timer in the background.

import type { ListStore } from '../../store/list-store.ts';
import type { Sha256 } from '../../url/sha256.ts';
import { type HashList, hashCount, type HashListUpdate, HashListUpdateError } from '../../store/hash-list.ts';
import { retryAfterOfRefusal } from '../../wire/retry-after.ts';
import { callAt, type Clock } from '../../time/clock.ts';
import {
  type ListUpdateFailure,
  listUpdateFailureOf,
  ListsNotCurrentError,
  ListTooLargeError,
  type UpdateError,
  UpdateLoopError,
  updateErrorOf,
} from '../client-errors.ts';
import type { UnknownListError } from '../../lists/unknown-list-error.ts';
import { PublishedLists } from '../published-lists.ts';
import type { ClientEvent } from '../options.ts';
import type { ListState, Transport } from '../transport/transport.ts';
import { type ListInfo, LocalLists } from './local-lists.ts';
import { type UpdateDeferral, UpdateSchedule, type UpdateScheduleState } from './update-schedule.ts';

/** Several rounds are normal when the server sends a list in parts with zero waits (SB-12). */
const MAX_UPDATE_ROUNDS = 64;
/** A list the server said it does not publish is asked about again after this long (lists are added, SB-11). */
const NOT_PUBLISHED_RECHECK_MS = 30 * 60_000;

/** What one {@link SafeBrowsingClient.update} did. */
export interface UpdateSummary {
  /** Lists that changed (or were confirmed current) and are stored. */
  updated: string[];
  /** Lists whose update could not be applied (a bad answer, a checksum mismatch): each is dropped and fetched in full next time (SB-9). */
  failed: {
    /** The list's name. */
    list: string;
    /** Why its update was refused. */
    error: ListUpdateFailure;
  }[];
  /**
   * Set when the whole request failed, when the server does not publish a list asked for (or any of the
   * threat lists), when a list could not be stored, or when the schedule could not be saved.
   */
  error: UpdateError | undefined;
  /** Lists asked for that the server does not publish (it was asked which it has); none of them is kept. */
  notServed: string[];
  /** Set when nothing could be asked for at all: why, and until when. */
  deferred:
    | {
        /** What holds the update back. */
        reason: UpdateDeferral;
        /** ms since the epoch when it no longer does. */
        until: number;
      }
    | undefined;
  /** ms since the epoch when the next update may go out. */
  nextUpdateAt: number;
  /** Set while updates back off after failures (RF-4): no update is asked for before this moment. */
  backoffUntil: number | undefined;
}

export interface ListUpdaterParts {
  /** Every list kept, threat lists and the global cache alike. */
  names: readonly string[];
  /** The threat lists among them: the server must publish at least one. */
  threatLists: readonly string[];
  /** Lists kept only when the server publishes them (the global cache, the default threat lists); others it must publish. */
  optional: ReadonlySet<string>;
  connection: () => Promise<Transport>;
  clock: Clock;
  random: () => number;
  emit: (event: ClientEvent) => void;
  /** Saves the request schedules beside the lists; never rejects, resolves to the write's error. */
  saveSchedules: () => Promise<Error | undefined>;
  /** RF-2's window for the first background update. */
  firstUpdateWindowMs: number | undefined;
  /** The shortest wait between complete updates, whatever the server says (zero waits stay zero). */
  minimumUpdateWaitMs: number;
  /** The most entries a list may hold; an update that would leave more is refused (ListTooLargeError). */
  maxListEntries: number;
  /** The runtime's SHA-256, for the checksum of every list an update leaves (SB-9). */
  sha256: Sha256;
}

export class ListUpdater {
  private readonly local: LocalLists;
  /** Which of the lists the server publishes. */
  private readonly published: PublishedLists;
  private schedule: UpdateSchedule;
  /** Cancels the timer of the next background update, when one is set. */
  private cancelTimer: (() => void) | undefined;
  private updating: Promise<UpdateSummary> | undefined;
  private stopped = false;
  /** Update rounds the server answered, and update requests that failed. */
  readonly counts = { updates: 0, updateFailures: 0 };

  constructor(private readonly parts: ListUpdaterParts) {
    this.published = new PublishedLists(parts.optional, parts.threatLists);
    this.local = new LocalLists(parts.names, parts.emit);
    this.schedule = new UpdateSchedule(parts.names, parts.clock.now());
  }

  /**
   * Takes the lists a database holds (a file of the wrong width is reported and fetched again) and the
   * update schedule an earlier process saved; stores every later update there.
   */
  load(database: ListStore, saved: UpdateScheduleState | undefined): void {
    for (const name of this.local.load(database)) this.published.stored(name);
    if (saved !== undefined) this.schedule = new UpdateSchedule(this.parts.names, this.parts.clock.now(), saved);
  }

  /** The update schedule, to be saved beside the lists. */
  get state(): UpdateScheduleState {
    return this.schedule.state;
  }

  /** The earliest moment any list may be fetched again. */
  get nextUpdateAt(): number | undefined {
    return this.schedule.earliest;
  }

  get consecutiveFailures(): number {
    return this.schedule.consecutiveFailures;
  }

  /** A local list as it stands. */
  list(name: string): HashList | undefined {
    return this.local.list(name);
  }

  /** The lists' names, versions and widths, as a request names them. */
  listStates(names: readonly string[]): ListState[] {
    return this.local.listStates(names);
  }

  listInfo(): ListInfo[] {
    return this.local.listInfo();
  }

  /** When a list was last stored, ms since the epoch; undefined when it never was (or was dropped since). */
  storedAt(name: string): number | undefined {
    return this.local.storedAt(name);
  }

  /** Time since the oldest list was last updated; undefined while any list never was. */
  updateLagMs(now: number): number | undefined {
    return this.local.updateLagMs(now);
  }

  /**
   * Why the lists named cannot vouch that a URL they do not hold is safe, at `now`; undefined when they
   * can. UnknownListError when one the server must publish does not exist there (or none of them does);
   * ListsNotCurrentError when one was never downloaded, or not updated for longer than it stays current
   * (UpdateSchedule.currentUntil: through one missed update, at least an hour). Optional lists the
   * server does not publish are left out.
   */
  notCurrent(names: readonly string[], now: number): UnknownListError | ListsNotCurrentError | undefined {
    const counted = this.published.counted(names);
    if ('error' in counted) return counted.error;
    const kept = counted.lists;
    const never = kept.filter((name) => this.local.storedAt(name) === undefined);
    if (never.length > 0) return new ListsNotCurrentError('never-updated', never);
    const stale = kept.filter((name) => now > this.schedule.currentUntil(name, this.local.storedAt(name)!));
    if (stale.length > 0) return new ListsNotCurrentError('stale', stale, Math.min(...stale.map((name) => this.local.storedAt(name)!)));
    return undefined;
  }

  /** Whether one list, stored, is current at `now`: {@link notCurrent} of it alone, without making an error. */
  isCurrent(name: string, now: number): boolean {
    const updatedAt = this.local.storedAt(name);
    return updatedAt !== undefined && now <= this.schedule.currentUntil(name, updatedAt);
  }

  /**
   * Takes the server's word on which lists it publishes for the names not yet known to be published:
   * those it has are fetched from now on, the others set aside until asked about again (reported in
   * the summary and by a `lists-not-published` event).
   */
  private learnPublished(names: readonly string[], published: readonly string[] | undefined, now: number): void {
    const lacking = this.published.learn(names, published);
    if (lacking.length === 0 || published === undefined) return;
    for (const name of lacking) this.schedule.notPublished(name, now + NOT_PUBLISHED_RECHECK_MS);
    this.parts.emit({ type: 'lists-not-published', lists: lacking, available: [...published] });
  }

  /** RF-2: the first background update at a random moment of the first window, later ones as waits allow. */
  start(): void {
    if (this.parts.names.length === 0) return;
    const { clock, random } = this.parts;
    this.schedule.delayStart(clock.now(), random(), this.parts.firstUpdateWindowMs);
    this.scheduleNext();
  }

  /** Stops background updates, and waits for one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.updating?.catch(() => undefined);
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const next = this.nextUpdateAt;
    if (next === undefined) return;
    // callAt, not one timer: a moment more than 24.8 days off would overflow Node's timer into a 1 ms
    // loop of updates with nothing due, each writing the state file.
    this.cancelTimer = callAt(this.parts.clock, next, () => {
      this.cancelTimer = undefined;
      // Nobody awaits a background update: whatever goes wrong is a failed update, reported and backed
      // off (RF-4), never an unhandled rejection.
      void this.update()
        .catch((err: unknown) => {
          this.failed(err);
        })
        .finally(() => this.scheduleNext());
    });
  }

  /**
   * Fetches every list whose wait is over, and again at once while the server asks for that with a zero
   * wait (SB-12), within a bound of rounds. Lists still waiting are left alone. One update at a time:
   * a call while one runs gets that one's summary.
   */
  update(): Promise<UpdateSummary> {
    this.updating ??= this.run().finally(() => {
      this.updating = undefined;
    });
    return this.updating;
  }

  private async run(): Promise<UpdateSummary> {
    const { clock } = this.parts;
    const summary: UpdateSummary = {
      updated: [],
      failed: [],
      error: undefined,
      notServed: [],
      deferred: undefined,
      nextUpdateAt: 0,
      backoffUntil: undefined,
    };
    /** Lists whose update this run refused: refused again, in full, the server keeps sending what cannot be applied. */
    const refused = new Set<string>();
    let round = 0;
    for (; round < MAX_UPDATE_ROUNDS && !this.stopped; round++) {
      const now = clock.now();
      let due = this.schedule.due(now);
      if (due.length === 0) {
        if (round === 0) summary.deferred = this.schedule.deferral(now);
        break;
      }
      let response;
      try {
        const transport = await this.parts.connection();
        // A name never stored is asked about first: a list the server does not publish would
        // otherwise stand empty and answer every URL SAFE.
        const unconfirmed = due.filter((name) => !this.published.has(name));
        if (unconfirmed.length > 0) {
          // Not an update: its answer leaves back-off as it is (RF-5 ends it with an update's 200).
          const published = await transport.listNames();
          this.learnPublished(unconfirmed, published, clock.now());
          due = due.filter((name) => this.published.has(name));
          if (due.length === 0) break;
        }
        response = await transport.fetchUpdates(this.listStates(due));
      } catch (err) {
        summary.error = this.failed(err);
        break;
      }
      const answeredAt = clock.now();
      // RF-5: a 200 answer ends back-off; each list then waits as long as the server said (RF-3, SB-12).
      this.schedule.answered(answeredAt);
      /** Why a list could not be kept: a failed update as a whole. */
      let keepError: UpdateError | undefined;
      const stored: Extract<ClientEvent, { type: 'update' }>['stored'] = [];
      for (const fetched of response.lists) {
        const waitMs = this.updateWait('error' in fetched ? response.minimumWaitMs : (fetched.minimumWaitMs ?? response.minimumWaitMs));
        this.schedule.listAnswered(fetched.name, answeredAt, waitMs);
        const next = 'error' in fetched ? fetched.error : this.applied(fetched.name, fetched.update);
        if (next instanceof ListTooLargeError) {
          // Not a corrupt update (SB-9) but one the client will not hold: fetching it again in full
          // would bring the same. The list keeps what it held, and the client backs off (RF-4).
          summary.failed.push({ list: fetched.name, error: next });
          keepError ??= next;
          continue;
        }
        if (next instanceof Error) {
          const error = listUpdateFailureOf(next);
          summary.failed.push({ list: fetched.name, error });
          keepError ??= await this.local.drop(fetched.name, error);
          if (refused.has(fetched.name)) {
            keepError ??= new UpdateLoopError(
              'refused-again',
              [fetched.name],
              `the server sent list "${fetched.name}" an update that could not be applied (${error.message}), again after the list was fetched in full`,
            );
          }
          refused.add(fetched.name);
          continue;
        }
        try {
          await this.local.store(next, answeredAt);
        } catch (err) {
          keepError ??= updateErrorOf(err);
          continue;
        }
        // Current from this answer on, for as long as its wait says; not moved by answers not kept.
        this.schedule.stored(fetched.name, answeredAt, waitMs ?? 0);
        // Applied, so a checksum it carried matched (applyUpdate refuses a mismatch).
        if ('update' in fetched)
          stored.push({ list: fetched.name, partial: fetched.update.partial, verified: fetched.update.checksum !== undefined });
        if (!summary.updated.includes(fetched.name)) summary.updated.push(fetched.name);
      }
      this.counts.updates++;
      this.parts.emit({ type: 'update', lists: due, stored, nextUpdateAt: this.nextUpdateAt! });
      if (keepError !== undefined) {
        // A list that cannot be stored (a full disk, a folder gone) or held (maxListEntries) is a failed
        // update: back off (RF-4) rather than download it again and again.
        summary.error = this.failed(keepError);
        break;
      }
    }
    const stillDue = round === MAX_UPDATE_ROUNDS && summary.error === undefined ? this.schedule.due(clock.now()) : [];
    if (stillDue.length > 0) {
      summary.error = this.failed(
        new UpdateLoopError('rounds', stillDue, `the server asked for ${MAX_UPDATE_ROUNDS} updates in a row without a wait, and more`),
      );
    }
    const stateError = await this.parts.saveSchedules();
    summary.error ??= stateError === undefined ? this.published.unknownLists() : updateErrorOf(stateError);
    summary.notServed = this.published.notServed;
    summary.nextUpdateAt = this.nextUpdateAt ?? clock.now();
    summary.backoffUntil = this.schedule.backoffUntil;
    return summary;
  }

  /** The list after an update, or why the update cannot be applied (SB-9) or kept (maxListEntries). */
  private applied(name: string, update: HashListUpdate): HashList | HashListUpdateError | ListTooLargeError {
    const list = this.local.list(name)!;
    // Before applyUpdate allocates the new list: partial updates could otherwise grow it without end.
    const entries = (update.partial ? list.size - update.removals.length : 0) + hashCount(update.additions);
    if (entries > this.parts.maxListEntries) return new ListTooLargeError(name, entries, this.parts.maxListEntries);
    try {
      return list.applyUpdate(update, this.parts.sha256);
    } catch (err) {
      if (err instanceof HashListUpdateError) return err;
      throw err;
    }
  }

  /**
   * An update that failed, whatever the cause: the next back-off step for all lists (RF-4), counted and
   * reported; or, for a 429 or 503 that said when to come back, a wait of that long instead.
   */
  private failed(err: unknown): UpdateError {
    const error = updateErrorOf(err);
    const now = this.parts.clock.now();
    const retryAfterMs = retryAfterOfRefusal(err, now);
    if (retryAfterMs === undefined) this.schedule.failed(now, this.parts.random());
    else this.schedule.retryAfter(now, retryAfterMs);
    this.counts.updateFailures++;
    this.parts.emit({
      type: 'update-failed',
      error,
      consecutiveFailures: this.schedule.consecutiveFailures,
      nextUpdateAt: this.nextUpdateAt!,
    });
    return error;
  }

  /** The server's wait for the next update, lengthened to `minimumUpdateWaitMs`; zero stays zero (SB-12). */
  private updateWait(serverWaitMs: number | undefined): number | undefined {
    return serverWaitMs === undefined || serverWaitMs === 0 ? serverWaitMs : Math.max(serverWaitMs, this.parts.minimumUpdateWaitMs);
  }
}
