import { DatabaseFileError, isSafeListName, LocalDatabase } from '../store/database.ts';
import { prefix32 } from '../url/hash.ts';
import { HashList, HashListUpdateError, type HashListUpdate } from '../store/hash-list.ts';
import type { HashWidth } from '../store/hash-set.ts';
import type { WireEncoding } from '../wire/encoding.ts';
import { VERSION } from '../version.ts';
import {
  type AnsweredBy,
  type CheckContext,
  type CheckOutcome,
  finishChecks,
  localThreatListCheck,
  localThreatListStep,
  noStorageCheck,
  noStorageStep,
  prepareUrl,
  realTimeCheck,
  realTimeStep,
} from './check.ts';
import { type ClientState, parseClientState } from './client-state.ts';
import { type Clock, systemClock } from './clock.ts';
import { LocalCache, type LocalCacheOptions } from './local-cache.ts';
import {
  type ClientEvent,
  ClientOptionError,
  DEFAULT_THREAT_LISTS,
  GLOBAL_CACHE_LIST,
  GOOGLE_SERVER,
  isHttpUrl,
  type Mode,
  type SafeBrowsingClientOptions,
} from './options.ts';
import { RequestSchedule } from './schedule.ts';
import type { FullHashMatch } from './threats.ts';
import type { ListState, SearchResult, SizeConstraints, Transport } from './transport.ts';
import type { ServerSettings } from './transport-v5.ts';
import { UpdateSchedule } from './update-schedule.ts';
import { NoV4ListError, v4ListOf } from './v4-lists.ts';

/**
 * Prefixes per search request. The API allows 1000, but a v5 search is a GET whose prefixes fill the
 * query string (about 20 bytes each): 250 keep the request line near 5 KB, inside the 8 KB that common
 * front ends (nginx, many load balancers) accept by default. A refused request would start RF-4
 * back-off for everyone a proxy serves.
 */
export const SEARCH_PREFIXES_PER_REQUEST = 250;

/** The answers to the requests of one search as one: every full hash, the shortest durations, the longest wait. */
function mergeSearchResults(results: readonly SearchResult[]): SearchResult {
  if (results.length === 1) return results[0]!;
  const defined = (values: (number | undefined)[]) => values.filter((v): v is number => v !== undefined);
  const negative = defined(results.map((r) => r.negativeCacheDurationMs));
  const waits = defined(results.map((r) => r.minimumWaitMs));
  return {
    fullHashes: results.flatMap((r) => r.fullHashes),
    serverFullHashCount: results.reduce((sum, r) => sum + r.serverFullHashCount, 0),
    cacheDurationMs: Math.min(...results.map((r) => r.cacheDurationMs)),
    negativeCacheDurationMs: negative.length === 0 ? undefined : Math.min(...negative),
    minimumWaitMs: waits.length === 0 ? undefined : Math.max(...waits),
  };
}

/** Several rounds are normal when the server sends a list in parts with zero waits (SB-12). */
const MAX_UPDATE_ROUNDS = 64;

/** What {@link SafeBrowsingClient.checkUrl} found out about one URL. */
export interface CheckResult extends Omit<CheckOutcome, 'verdict'> {
  /** The URL as given. */
  url: string;
  /**
   * UNSAFE when an enforced threat matched: warn, and say the page is *suspected* (SB-3). SAFE otherwise;
   * with `error` set, that SAFE is the procedure's fallback after a failed or deferred search.
   */
  verdict: 'SAFE' | 'UNSAFE';
}

/** One local list as {@link SafeBrowsingClient.listInfo} describes it. */
export interface ListInfo {
  /** The list's v5 name, e.g. `se-4b`. */
  name: string;
  /** Opaque version bytes, base64; empty before the first update. */
  version: string;
  /** Bytes per stored hash: 4, 8, 16 or 32 (the name's `-4b`… suffix). */
  width: HashWidth;
  /** Hashes or hash prefixes held. */
  entries: number;
  /** SHA-256 of the sorted entries (SB-9), hex. */
  checksum: string;
  /** ms since the epoch of the last successful update, undefined when never updated. */
  updatedAt: number | undefined;
}

/** Counters since the client was made, from {@link SafeBrowsingClient.stats}. */
export interface ClientStats {
  /** URLs checked. */
  checks: number;
  /** Checks by who gave the verdict: the memory cache, the local lists, or the server. */
  answeredBy: Record<AnsweredBy, number>;
  /** UNSAFE verdicts. */
  unsafe: number;
  /** Checks whose server request failed, answered by the spec's fallback verdict (SB-8). */
  failures: number;
  /** Checks that could not ask the server because a wait was in force (RF-3, RF-4). */
  deferred: number;
  /** Update rounds answered by the server. */
  updates: number;
  /** Update requests that failed. */
  updateFailures: number;
  /** Failures since the last answered update: N of RF-4's back-off. */
  consecutiveUpdateFailures: number;
  /** Time since the oldest list was last updated, ms; undefined before the first update. */
  updateLagMs: number | undefined;
  /** ms since the epoch when the next update may go out; undefined when no list is kept. */
  nextUpdateAt: number | undefined;
  /** Prefixes whose search answers the memory cache holds. */
  cachedPrefixes: number;
}

/**
 * A search could not be sent because RF-3 / RF-4 forbid it for now. Checks do not throw it: they give
 * the fallback verdict with this as their `error`.
 */
export class SearchDeferredError extends Error {
  /** Always `"SearchDeferredError"`, as logs and stack traces show it. */
  override readonly name = 'SearchDeferredError';

  constructor(
    /** ms since the epoch when the server may be asked again. */
    readonly notBefore: number,
  ) {
    super(`the server may not be asked again before ${new Date(notBefore).toISOString()} (request-frequency rules)`);
  }
}

/** What one {@link SafeBrowsingClient.update} did. */
export interface UpdateSummary {
  /** Lists that changed (or were confirmed current) and are stored. */
  updated: string[];
  /** Lists whose update could not be applied (a bad answer, a checksum mismatch): each is dropped and fetched in full next time (SB-9). */
  failed: {
    /** The list's name. */
    list: string;
    /** Why its update was refused. */
    error: Error;
  }[];
  /** Set when the whole request failed, when a list could not be stored, or when the schedule could not be saved. */
  error: Error | undefined;
  /** ms since the epoch when the next update may go out. */
  nextUpdateAt: number;
  /** Set while updates back off after failures (RF-4): no update is asked for before this moment. */
  backoffUntil: number | undefined;
}

/** The width a list's hashes have: its name's -4b, -8b, -16b or -32b suffix; 4 bytes without one. */
function widthOfName(name: string): HashWidth {
  const match = /-(4|8|16|32)b$/.exec(name);
  return match === null ? 4 : (Number(match[1]) as HashWidth);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The Safe Browsing client: keeps the local lists current (RF and SB-12 rules), answers URL checks by
 * the SB-8 procedure of its mode, and never asks the server more often than the rules allow.
 *
 *   checkUrl ─▶ realTimeCheck ─UNSURE─▶ localThreatListCheck      (mode realtime)
 *            ─▶ localThreatListCheck                               (mode local)
 *            ─▶ noStorageCheck                                     (mode nostorage)
 *   each: expressions → hashes → local cache → [lists] → hashes:search → cache → verdict
 */
export class SafeBrowsingClient {
  /** The SB-4 mode checks run in. */
  readonly mode: Mode;
  /** The protocol spoken to the server. */
  readonly protocol: 'v5' | 'v4';
  private readonly serverSettings: ServerSettings;
  private transport: Promise<Transport> | undefined;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly cache: LocalCache;
  private readonly lists = new Map<string, HashList>();
  private readonly updatedAt = new Map<string, number>();
  private readonly threatListNames: string[];
  private readonly globalCacheName: string | undefined;
  private updateSchedule: UpdateSchedule;
  private searchSchedule: RequestSchedule;
  private database: LocalDatabase | undefined;
  private timer: unknown;
  private opened: Promise<void> | undefined;
  private updating: Promise<UpdateSummary> | undefined;
  /** The write of the schedules under way; another is made after it when they changed meanwhile. */
  private stateWrite: Promise<Error | undefined> | undefined;
  private stateChanged = false;
  private closed = false;
  private readonly counters = {
    checks: 0,
    answeredBy: { cache: 0, database: 0, server: 0 } as Record<AnsweredBy, number>,
    unsafe: 0,
    failures: 0,
    deferred: 0,
    updates: 0,
    updateFailures: 0,
  };

  /**
   * Makes a client; nothing is read or asked until {@link open}, {@link start}, {@link update} or a check.
   *
   * @throws {@link ClientOptionError} for options that cannot work: real-time mode or Oblivious HTTP over
   *   v4, a server that is no http(s) URL, a list name that is none, a list v4 does not have.
   */
  constructor(private readonly options: SafeBrowsingClientOptions = {}) {
    this.protocol = options.protocol ?? 'v5';
    this.mode = options.mode ?? (this.protocol === 'v5' ? 'realtime' : 'local');
    if (this.mode === 'realtime' && this.protocol === 'v4') {
      throw new ClientOptionError('real-time mode needs the v5 protocol (v4 has no global cache); use mode "local" or "nostorage"');
    }
    if (options.ohttp !== undefined && this.protocol === 'v4') throw new ClientOptionError('Oblivious HTTP carries v5 hashes:search only; use the v5 protocol');
    const serverUrl = options.server ?? GOOGLE_SERVER;
    if (!isHttpUrl(serverUrl)) throw new ClientOptionError(`the server "${serverUrl}" is not an http or https URL, such as ${GOOGLE_SERVER}`);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.cache = new LocalCache(options.cache);
    this.threatListNames = this.mode === 'nostorage' ? [] : [...(options.lists ?? DEFAULT_THREAT_LISTS)];
    this.globalCacheName = this.mode === 'realtime' ? GLOBAL_CACHE_LIST : undefined;
    // Checked in no-storage mode too, where the lists named are not kept: a name that cannot work is a mistake.
    const unsafeName = options.lists?.find((name) => !isSafeListName(name));
    if (unsafeName !== undefined) throw new ClientOptionError(`"${unsafeName}" is not a list name: list names are short ASCII words such as se-4b`);
    for (const name of this.allListNames()) this.lists.set(name, HashList.empty(name, widthOfName(name)));
    const now = this.clock.now();
    this.updateSchedule = new UpdateSchedule(this.allListNames(), now);
    this.searchSchedule = new RequestSchedule(now, 0, 0);
    this.serverSettings = {
      serverUrl,
      apiKey: options.apiKey,
      encoding: options.encoding ?? 'protobuf',
      userAgent: options.userAgent ?? `sbkit/${VERSION}`,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
      sizeConstraints: { maxUpdateEntries: 0, maxDatabaseEntries: 0, ...options.sizeConstraints },
    };
    try {
      // Every list named must exist in v4, in no-storage mode too, where none is kept: the name is a mistake.
      if (this.protocol === 'v4') for (const name of options.lists ?? []) v4ListOf(name);
    } catch (err) {
      if (err instanceof NoV4ListError) throw new ClientOptionError(err.message, { cause: err });
      throw err;
    }
  }

  /**
   * The protocol's transport, loaded at the first request: a program that makes a client, or checks
   * URLs that its cache and lists answer, loads no protobuf or HPKE code.
   */
  private connection(): Promise<Transport> {
    this.transport ??= this.loadTransport();
    return this.transport;
  }

  private async loadTransport(): Promise<Transport> {
    if (this.protocol === 'v4') {
      const { V4Transport } = await import('./transport-v4.ts');
      return new V4Transport(this.serverSettings, this.threatListNames);
    }
    const { V5Transport } = await import('./transport-v5.ts');
    const relay = this.options.ohttp;
    if (relay === undefined) return new V5Transport(this.serverSettings);
    const { ObliviousHttp } = await import('./oblivious-http.ts');
    const oblivious = new ObliviousHttp(relay);
    return new V5Transport(this.serverSettings, (request, http) => oblivious.send(request, http));
  }

  private allListNames(): string[] {
    return this.globalCacheName === undefined ? this.threatListNames : [...this.threatListNames, this.globalCacheName];
  }

  /**
   * Loads the local database and the persisted request schedules; idempotent, and done by every other
   * method first. Damaged files are reported as `damaged-file` events, never thrown.
   *
   * @throws {@link DatabaseStorageError} when `dataDir` cannot be created or read.
   */
  open(): Promise<void> {
    this.opened ??= this.load();
    return this.opened;
  }

  private async load(): Promise<void> {
    if (this.options.dataDir === undefined || this.mode === 'nostorage') return;
    const reportDamage = (error: Error) => this.emit({ type: 'damaged-file', error });
    const database = await LocalDatabase.open(this.options.dataDir, { onDamaged: reportDamage, readOnly: this.options.readOnly === true });
    this.database = database;
    for (const name of this.allListNames()) {
      const stored = database.get(name);
      if (stored === undefined) continue;
      const width = widthOfName(name);
      if (stored.list.width !== width) {
        // Not this list's width: fetched again in full, which then replaces the file.
        reportDamage(new DatabaseFileError(database.fileOf(name), `it holds ${stored.list.width}-byte hashes, the list ${width}-byte ones`));
        continue;
      }
      this.lists.set(name, stored.list);
      this.updatedAt.set(name, stored.updatedAt);
    }
    let state: ClientState = {};
    try {
      state = parseClientState(await database.readState(), database.stateFile);
    } catch (err) {
      // A state that cannot be used counts as none, reported once here and replaced at the next save.
      if (!(err instanceof DatabaseFileError)) throw err;
      reportDamage(err);
    }
    if (state.updates !== undefined) this.updateSchedule = new UpdateSchedule(this.allListNames(), this.clock.now(), state.updates);
    if (state.search !== undefined) this.searchSchedule = RequestSchedule.restore(state.search);
  }

  /**
   * Starts keeping the lists current in the background. RF-2: the first update goes out at a random
   * moment within the first minute (`firstUpdateWindowMs`), later ones as the server's waits and
   * back-off allow. Failed background updates are reported as `update-failed` events, never thrown.
   *
   * @throws {@link ClientOptionError} for a read-only client; {@link DatabaseStorageError} as {@link open}.
   */
  async start(): Promise<void> {
    this.refuseWhenReadOnly('start');
    await this.open();
    if (this.allListNames().length === 0) return;
    this.updateSchedule.delayStart(this.clock.now(), this.random(), this.options.firstUpdateWindowMs);
    this.scheduleNextUpdate();
  }

  /**
   * Stops background updates, saves the request schedules (RF-3 and RF-4 waits, of searches too, outlive
   * the process) and forgets the cache.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.updating?.catch(() => undefined);
    await this.opened?.catch(() => undefined);
    await this.saveState();
    this.cache.clear();
  }

  /** The earliest moment any list may be fetched again. */
  get nextUpdateAt(): number | undefined {
    return this.updateSchedule.earliest;
  }

  private scheduleNextUpdate(): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const next = this.nextUpdateAt;
    if (next === undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      // Nobody awaits a background update: whatever goes wrong is a failed update, reported and backed
      // off (RF-4), never an unhandled rejection.
      void this.update()
        .catch((err: unknown) => {
          this.updateFailed(err);
        })
        .finally(() => this.scheduleNextUpdate());
    }, Math.max(0, next - this.clock.now()));
  }

  private refuseWhenReadOnly(method: 'start' | 'update'): void {
    if (this.options.readOnly === true) throw new ClientOptionError(`${method}() refused: this client opens its data folder read-only (readOnly: true) and never changes its lists`);
  }

  /**
   * Fetches every list whose wait is over, and again at once while the server asks for that with a zero
   * wait (SB-12), within a bound of rounds. Lists still waiting are left alone: an explicit update obeys
   * the minimum waits and back-off like the background one does. A failed request does not reject: the
   * summary's `error` says what went wrong.
   *
   * @throws {@link ClientOptionError} for a read-only client; {@link DatabaseStorageError} as {@link open}.
   */
  update(): Promise<UpdateSummary> {
    this.updating ??= this.runUpdate().finally(() => {
      this.updating = undefined;
    });
    return this.updating;
  }

  private async runUpdate(): Promise<UpdateSummary> {
    this.refuseWhenReadOnly('update');
    await this.open();
    const summary: UpdateSummary = { updated: [], failed: [], error: undefined, nextUpdateAt: 0, backoffUntil: undefined };
    for (let round = 0; round < MAX_UPDATE_ROUNDS && !this.closed; round++) {
      const due = this.updateSchedule.due(this.clock.now());
      if (due.length === 0) break;
      let response;
      try {
        response = await (await this.connection()).fetchUpdates(this.listStates(due));
      } catch (err) {
        summary.error = this.updateFailed(err);
        break;
      }
      const answeredAt = this.clock.now();
      // RF-5: a 200 answer ends back-off; each list then waits as long as the server said (RF-3, SB-12).
      this.updateSchedule.answered(answeredAt);
      let storageError: Error | undefined;
      for (const fetched of response.lists) {
        const waitMs = 'error' in fetched ? response.minimumWaitMs : (fetched.minimumWaitMs ?? response.minimumWaitMs);
        this.updateSchedule.listAnswered(fetched.name, answeredAt, this.updateWait(waitMs));
        const next = 'error' in fetched ? fetched.error : this.applied(fetched.name, fetched.update);
        if (next instanceof Error) {
          summary.failed.push({ list: fetched.name, error: next });
          storageError ??= await this.dropList(fetched.name, next);
          continue;
        }
        try {
          await this.database?.save(next, answeredAt);
        } catch (err) {
          // The old list stays, in memory as on disk, so that the version asked for next is the one kept.
          storageError ??= asError(err);
          continue;
        }
        this.lists.set(fetched.name, next);
        this.updatedAt.set(fetched.name, answeredAt);
        if (!summary.updated.includes(fetched.name)) summary.updated.push(fetched.name);
      }
      this.counters.updates++;
      this.emit({ type: 'update', lists: due, nextUpdateAt: this.nextUpdateAt! });
      if (storageError !== undefined) {
        // A list that cannot be stored (a full disk, a folder gone) is a failed update: back off (RF-4)
        // rather than download it again and again.
        summary.error = this.updateFailed(storageError);
        break;
      }
    }
    const stateError = await this.saveState();
    summary.error ??= stateError;
    summary.nextUpdateAt = this.nextUpdateAt ?? this.clock.now();
    summary.backoffUntil = this.updateSchedule.backoffUntil;
    return summary;
  }

  /** The list after an update, or why the update cannot be applied (SB-9). */
  private applied(name: string, update: HashListUpdate): HashList | HashListUpdateError {
    try {
      return this.lists.get(name)!.applyUpdate(update);
    } catch (err) {
      if (err instanceof HashListUpdateError) return err;
      throw err;
    }
  }

  /** An update that failed, whatever the cause: the next back-off step for all lists (RF-4), counted and reported. */
  private updateFailed(err: unknown): Error {
    const error = asError(err);
    this.updateSchedule.failed(this.clock.now(), this.random());
    this.counters.updateFailures++;
    this.emit({ type: 'update-failed', error, consecutiveFailures: this.updateSchedule.consecutiveFailures, nextUpdateAt: this.nextUpdateAt! });
    return error;
  }

  private listStates(names: readonly string[]): ListState[] {
    return names.map((name) => {
      const list = this.lists.get(name)!;
      return { name, version: list.version, width: list.width };
    });
  }

  /** The server's wait for the next update, lengthened to `minimumUpdateWaitMs`; zero stays zero (SB-12). */
  private updateWait(serverWaitMs: number | undefined): number | undefined {
    const floor = this.options.minimumUpdateWaitMs ?? 0;
    return serverWaitMs === undefined || serverWaitMs === 0 ? serverWaitMs : Math.max(serverWaitMs, floor);
  }

  /**
   * SB-9: a list that failed to update is dropped and fetched again from scratch, at the width its name
   * gives. Resolves to the error when its file could not be removed.
   */
  private async dropList(name: string, error: Error): Promise<Error | undefined> {
    this.lists.set(name, HashList.empty(name, widthOfName(name)));
    this.updatedAt.delete(name);
    this.emit({ type: 'list-dropped', list: name, error });
    try {
      await this.database?.drop(name);
      return undefined;
    } catch (err) {
      return asError(err);
    }
  }

  /**
   * Writes the request schedules beside the lists, so that RF-3 and RF-4 outlive the process. Writes asked
   * for while one is under way become one write after it. Never rejects: resolves to the error of the last
   * write, which is also reported as a `state-not-saved` event.
   */
  private saveState(): Promise<Error | undefined> {
    const database = this.database;
    if (database === undefined || database.readOnly) return Promise.resolve(undefined);
    this.stateChanged = true;
    this.stateWrite ??= this.writeState(database);
    return this.stateWrite;
  }

  private async writeState(database: LocalDatabase): Promise<Error | undefined> {
    let error: Error | undefined;
    while (this.stateChanged) {
      this.stateChanged = false;
      try {
        await database.writeState({ updates: this.updateSchedule.state, search: this.searchSchedule.state } satisfies ClientState);
        error = undefined;
      } catch (err) {
        error = asError(err);
        this.emit({ type: 'state-not-saved', error });
      }
    }
    // Cleared with no await after the last check: a change made from here on starts a new write.
    this.stateWrite = undefined;
    return error;
  }

  private emit(event: ClientEvent): void {
    this.options.onEvent?.(event);
  }

  /**
   * One search, within the request-frequency rules (RF-3, RF-4). More prefixes than one request should
   * carry go out as several requests at once, ruled as one search: a v4 minimum wait set by the first
   * answer cannot hold back the rest, and a failure of any is one failure.
   */
  private async askServer(prefixes: readonly number[]): Promise<SearchResult> {
    const now = this.clock.now();
    if (!this.searchSchedule.mayRequest(now)) throw new SearchDeferredError(this.searchSchedule.earliest);
    const failuresBefore = this.searchSchedule.consecutiveFailures;
    try {
      const lists = this.listStates(this.threatListNames);
      const chunks: (readonly number[])[] = [];
      for (let start = 0; start < prefixes.length; start += SEARCH_PREFIXES_PER_REQUEST) chunks.push(prefixes.slice(start, start + SEARCH_PREFIXES_PER_REQUEST));
      const transport = await this.connection();
      const result = mergeSearchResults(await Promise.all(chunks.map((chunk) => transport.search(chunk, lists))));
      this.searchSchedule.succeeded(this.clock.now(), result.minimumWaitMs);
      await this.searchScheduleChanged(failuresBefore);
      return result;
    } catch (err) {
      this.searchSchedule.failed(this.clock.now(), this.random());
      await this.searchScheduleChanged(failuresBefore);
      throw err;
    }
  }

  /**
   * RF-3 and RF-4 outlive the process: a search wait now in force, or back-off begun or ended, is saved
   * before the check answers (a v5 search without a wait writes nothing), so that not even a crash right
   * after it lets the next process break the rule. That costs the check a synced write, only then.
   */
  private async searchScheduleChanged(failuresBefore: number): Promise<void> {
    if (this.searchSchedule.earliest > this.clock.now() || this.searchSchedule.consecutiveFailures !== failuresBefore) await this.saveState();
  }

  /**
   * The full hashes under 4-byte prefixes, from the local cache where it knows and from the server for
   * the rest (cached in turn, negative answers too): what a caching proxy needs of its upstream.
   * `cacheDurationMs` is the shortest time any of the answers stays valid.
   *
   * @throws {@link SearchDeferredError} while RF-3 or RF-4 forbid asking the server; the transport's
   *   errors when the search fails.
   * @internal
   */
  async searchPrefixes(prefixes: readonly number[]): Promise<{ fullHashes: FullHashMatch[]; cacheDurationMs: number }> {
    const now = this.clock.now();
    const fullHashes: FullHashMatch[] = [];
    const remaining: number[] = [];
    let validForMs = Infinity;
    for (const prefix of new Set(prefixes)) {
      const entry = this.cache.lookup(prefix, now);
      if (entry === undefined) {
        remaining.push(prefix);
        continue;
      }
      fullHashes.push(...entry.fullHashes);
      validForMs = Math.min(validForMs, entry.expiresAt - now);
    }
    if (remaining.length > 0) {
      const response = await this.askServer(remaining);
      const answeredAt = this.clock.now();
      this.cache.store(remaining, response, answeredAt);
      const asked = new Set(remaining);
      // From the answer itself, not the cache: a zero cache duration must not lose a threat.
      fullHashes.push(...response.fullHashes.filter((match) => asked.has(prefix32(match.fullHash))));
      for (const prefix of remaining) validForMs = Math.min(validForMs, (this.cache.lookup(prefix, answeredAt)?.expiresAt ?? answeredAt) - answeredAt);
    }
    return { fullHashes, cacheDurationMs: Number.isFinite(validForMs) ? Math.max(0, validForMs) : 0 };
  }

  /**
   * A local list as it stands (a proxy republishes its upstream's lists from here).
   *
   * @internal
   */
  list(name: string): HashList | undefined {
    return this.lists.get(name);
  }

  private checkContext(inFrame: boolean): CheckContext {
    return {
      cache: this.cache,
      lists: {
        inGlobalCache: (hash) => this.globalCacheName !== undefined && this.lists.get(this.globalCacheName)!.matches(hash),
        inThreatLists: (hash) => this.threatListNames.some((name) => this.lists.get(name)!.matches(hash)),
      },
      search: (prefixes) => this.askServer(prefixes),
      now: () => this.clock.now(),
      decoyPrefixes: this.options.decoyPrefixes ?? 0,
      random: this.random,
      inFrame,
    };
  }

  /**
   * Checks one URL the user is about to visit (SB-3: the final URL after redirects) by the SB-8 procedure
   * of the client's mode. Server failures do not throw but give the spec's fallback verdict with
   * `error` set. `inFrame`: the URL is a frame's, where FRAME_ONLY threats count.
   *
   * @throws {@link InvalidUrlError} for input that is no http(s) URL.
   */
  async checkUrl(url: string, options: { inFrame?: boolean } = {}): Promise<CheckResult> {
    await this.open();
    const ctx = this.checkContext(options.inFrame ?? false);
    const prepared = prepareUrl(url);
    let outcome: CheckOutcome;
    if (this.mode === 'realtime') {
      outcome = await realTimeCheck(ctx, prepared);
      if (outcome.verdict === 'UNSURE') {
        const earlierError = outcome.error;
        outcome = await localThreatListCheck(ctx, prepared);
        outcome.error ??= earlierError;
      }
    } else if (this.mode === 'local') {
      outcome = await localThreatListCheck(ctx, prepared);
    } else {
      outcome = await noStorageCheck(ctx, prepared);
    }
    return this.result(url, outcome);
  }

  /**
   * Checks many URLs with few searches: each URL goes through the SB-8 procedure of the mode as checkUrl
   * takes it, but the prefixes that the local cache cannot answer go to the server together, in one
   * search (of several requests of at most SEARCH_PREFIXES_PER_REQUEST prefixes) per step of the
   * procedure, so at most two in real-time mode. Each URL gets the verdict checkUrl would give it; a
   * failed search gives each URL that needed it its procedure's fallback. Rejects with InvalidUrlError,
   * before asking anything, when any URL is unusable.
   */
  async checkUrls(urls: readonly string[], options: { inFrame?: boolean } = {}): Promise<CheckResult[]> {
    await this.open();
    const ctx = this.checkContext(options.inFrame ?? false);
    const prepared = urls.map(prepareUrl);
    const first = this.mode === 'realtime' ? realTimeStep : this.mode === 'local' ? localThreatListStep : noStorageStep;
    const outcomes = await finishChecks(ctx, prepared.map((p) => first(ctx, p)));
    // RealTimeCheck's UNSURE, from the global cache or a failed search: LocalThreatListCheck decides.
    const unsure = outcomes.flatMap((outcome, i) => (outcome.verdict === 'UNSURE' ? [i] : []));
    const local = await finishChecks(ctx, unsure.map((i) => localThreatListStep(ctx, prepared[i]!)));
    unsure.forEach((i, k) => {
      const outcome = local[k]!;
      outcome.error ??= outcomes[i]!.error;
      outcomes[i] = outcome;
    });
    return outcomes.map((outcome, i) => this.result(urls[i]!, outcome));
  }

  private result(url: string, outcome: CheckOutcome): CheckResult {
    this.count(outcome);
    return { ...outcome, url, verdict: outcome.verdict === 'UNSAFE' ? 'UNSAFE' : 'SAFE' };
  }

  private count(outcome: CheckOutcome): void {
    this.counters.checks++;
    this.counters.answeredBy[outcome.answeredBy]++;
    if (outcome.verdict === 'UNSAFE') this.counters.unsafe++;
    if (outcome.error instanceof SearchDeferredError) this.counters.deferred++;
    else if (outcome.error !== undefined) this.counters.failures++;
  }

  /** Drops the local cache, e.g. under memory pressure (SB-4 allows it at any time). */
  clearCache(): void {
    this.cache.clear();
  }

  /** The local lists (threat lists, and the global cache in real-time mode), for `sbkit lists` and dashboards. */
  listInfo(): ListInfo[] {
    return this.allListNames().map((name) => {
      const list = this.lists.get(name)!;
      return {
        name,
        version: Buffer.from(list.version).toString('base64'),
        width: list.width,
        entries: list.size,
        checksum: Buffer.from(list.checksum).toString('hex'),
        updatedAt: this.updatedAt.get(name),
      };
    });
  }

  /** What the client has done since it was made, and how current its lists are. */
  stats(): ClientStats {
    const now = this.clock.now();
    const times = this.allListNames().map((name) => this.updatedAt.get(name));
    const oldest = times.includes(undefined) || times.length === 0 ? undefined : Math.min(...(times as number[]));
    return {
      ...this.counters,
      answeredBy: { ...this.counters.answeredBy },
      consecutiveUpdateFailures: this.updateSchedule.consecutiveFailures,
      updateLagMs: oldest === undefined ? undefined : now - oldest,
      nextUpdateAt: this.nextUpdateAt,
      cachedPrefixes: this.cache.size,
    };
  }
}
