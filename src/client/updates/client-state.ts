import { DatabaseFileError, type ListStore, STATE_IGNORED } from '../../store/list-store.ts';
import { isScheduleState, type ScheduleState } from './schedule.ts';
import type { UpdateScheduleState } from './update-schedule.ts';

/** What a client keeps beside its lists between runs: its request schedules, so that RF-3 and RF-4 outlive restarts. */
export interface ClientState {
  updates?: UpdateScheduleState;
  search?: ScheduleState;
}

const SCHEDULE_SHAPE = '{"notBefore": <ms>, "failures": <count>}';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The client state read from `file`, checked field by field: a moment that is not a finite number would
 * make every wait comparison false and the update timer fire every millisecond. Throws DatabaseFileError
 * naming the first field that is wrong; undefined (no file) is no state.
 */
export function parseClientState(value: unknown, file: string): ClientState {
  const wrong = (detail: string) => new DatabaseFileError(file, detail, STATE_IGNORED);
  if (value === undefined) return {};
  if (!isRecord(value)) throw wrong('not a JSON object');
  const unknown = Object.keys(value).find((key) => key !== 'updates' && key !== 'search');
  if (unknown !== undefined) throw wrong(`unknown field "${unknown}"`);
  const state: ClientState = {};
  if (value['search'] !== undefined) {
    if (!isScheduleState(value['search'])) throw wrong(`"search" is ${JSON.stringify(value['search'])}, not ${SCHEDULE_SHAPE}`);
    state.search = value['search'];
  }
  const updates = value['updates'];
  if (isEarlierUpdatesState(updates)) {
    state.updates = fromEarlierUpdatesState(updates);
    return state;
  }
  if (updates !== undefined) {
    if (
      !isRecord(updates) ||
      !isRecord(updates['waits']) ||
      (updates['current'] !== undefined && !isRecord(updates['current'])) ||
      Object.keys(updates).some((key) => key !== 'waits' && key !== 'current' && key !== 'requests')
    ) {
      throw wrong('"updates" is not {"waits": {<list>: <ms>}, "current": {<list>: <ms>}, "requests": ' + SCHEDULE_SHAPE + '}');
    }
    if (!isScheduleState(updates['requests']))
      throw wrong(`"updates.requests" is ${JSON.stringify(updates['requests'])}, not ${SCHEDULE_SHAPE}`);
    const waits: Record<string, number> = {};
    for (const [name, notBefore] of Object.entries(updates['waits'])) {
      if (typeof notBefore !== 'number' || !Number.isFinite(notBefore))
        throw wrong(`"updates.waits.${name}" is ${JSON.stringify(notBefore)}, not a moment in ms`);
      waits[name] = notBefore;
    }
    state.updates = { waits, requests: updates['requests'] };
    if (updates['current'] !== undefined) {
      const current: Record<string, number> = {};
      for (const [name, until] of Object.entries(updates['current'])) {
        if (typeof until !== 'number' || !Number.isFinite(until))
          throw wrong(`"updates.current.${name}" is ${JSON.stringify(until)}, not a moment in ms`);
        current[name] = until;
      }
      state.updates.current = current;
    }
  }
  return state;
}

/** sbkit before the client-wide update back-off kept one schedule per list: `{"updates": {<list>: schedule}}`. */
function isEarlierUpdatesState(updates: unknown): updates is Record<string, ScheduleState> {
  return isRecord(updates) && !('waits' in updates) && Object.keys(updates).length > 0 && Object.values(updates).every(isScheduleState);
}

/**
 * The earlier per-list schedules as today's state, losing no wait (RF-3, RF-4 across the upgrade): each
 * list keeps its own moment, and a back-off any list was in holds back all, as back-off now does.
 */
function fromEarlierUpdatesState(updates: Record<string, ScheduleState>): UpdateScheduleState {
  const schedules = Object.values(updates);
  const failing = schedules.filter((schedule) => schedule.failures > 0);
  return {
    waits: Object.fromEntries(Object.entries(updates).map(([name, schedule]) => [name, schedule.notBefore])),
    requests: {
      notBefore: Math.max(0, ...failing.map((schedule) => schedule.notBefore)),
      failures: Math.max(0, ...failing.map((schedule) => schedule.failures)),
    },
  };
}

/**
 * The client state kept beside the lists (RF-3 and RF-4 outlive the process). Writes asked for while one
 * is under way become one write after it, of the state as it then is.
 */
export class ClientStateFile {
  /** The write under way; another follows it when the state changed meanwhile. */
  private writing: Promise<Error | undefined> | undefined;
  private changed = false;

  constructor(
    private readonly database: ListStore,
    private readonly current: () => ClientState,
    private readonly report: { damaged(error: DatabaseFileError): void; notSaved(error: Error): void },
  ) {}

  /** The state an earlier process saved, checked; a damaged one is reported and counts as none. */
  async read(): Promise<ClientState> {
    try {
      return parseClientState(await this.database.readState(), this.database.stateFile);
    } catch (err) {
      if (!(err instanceof DatabaseFileError)) throw err;
      this.report.damaged(err);
      return {};
    }
  }

  /**
   * Writes the current state (nothing for a read-only database). Never rejects: resolves to the error of
   * the last write, which is also reported.
   */
  save(): Promise<Error | undefined> {
    if (this.database.readOnly) return Promise.resolve(undefined);
    this.changed = true;
    this.writing ??= this.write();
    return this.writing;
  }

  private async write(): Promise<Error | undefined> {
    let error: Error | undefined;
    while (this.changed) {
      this.changed = false;
      try {
        await this.database.writeState(this.current());
        error = undefined;
      } catch (err) {
        error = err instanceof Error ? err : new Error(String(err));
        this.report.notSaved(error);
      }
    }
    // Cleared with no await after the last check: a change made from here on starts a new write.
    this.writing = undefined;
    return error;
  }
}
