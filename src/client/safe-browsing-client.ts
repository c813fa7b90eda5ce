import { LocalDatabase } from '../store/database.ts';
import { prefix32 } from '../url/hash.ts';
import { HashList, HashListUpdateError } from '../store/hash-list.ts';
import type { HashWidth } from '../store/hash-set.ts';
import type { WireEncoding } from '../wire/encoding.ts';
import { VERSION } from '../version.ts';
import {
  type AnsweredBy,
  type CheckContext,
  type CheckOutcome,
  localThreatListCheck,
  noStorageCheck,
  prepareUrl,
  realTimeCheck,
} from './check.ts';
import { type Clock, systemClock } from './clock.ts';
import { LocalCache, type LocalCacheOptions } from './local-cache.ts';
import { ObliviousHttp, type ObliviousHttpOptions } from './oblivious-http.ts';
import { RequestSchedule, type ScheduleState } from './schedule.ts';
import type { FullHashMatch } from './threats.ts';
import type { ListState, SearchResult, SizeConstraints, Transport } from './transport.ts';
import { V4Transport } from './transport-v4.ts';
import { V5Transport } from './transport-v5.ts';

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

export type Mode = 'realtime' | 'local' | 'nostorage';

export const GOOGLE_SERVER = 'https://safebrowsing.googleapis.com';
/** SB-11 threat lists as real v5 clients name them. */
export const DEFAULT_THREAT_LISTS = ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b'] as const;
export const GLOBAL_CACHE_LIST = 'gc-32b';
/** Several rounds are normal when the server sends a list in parts with zero waits (SB-12). */
const MAX_UPDATE_ROUNDS = 64;

export interface SafeBrowsingClientOptions {
  /** Server origin; Google's by default. */
  server?: string;
  apiKey?: string;
  protocol?: 'v5' | 'v4';
  /** Real-time (v5 only, the default there), local lists (the default for v4), or no storage. */
  mode?: Mode;
  /** Folder of the local database; without one, lists live in memory only. */
  dataDir?: string;
  /** Threat lists to keep locally (SB-11); the global cache `gc-32b` is added in real-time mode. */
  lists?: readonly string[];
  encoding?: WireEncoding;
  userAgent?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  sizeConstraints?: Partial<SizeConstraints>;
  /** Random decoy prefixes added to each search (SB-8); 0 (the default) sends none. */
  decoyPrefixes?: number;
  cache?: LocalCacheOptions;
  /** RF-2: the first automatic update happens at a random moment within this window after start(). */
  firstUpdateWindowMs?: number;
  /**
   * The shortest wait between complete list updates, whatever the server says (a caching proxy keeps
   * lists at least five minutes, SB-11). A zero wait, the server's "come back for the rest", still holds.
   */
  minimumUpdateWaitMs?: number;
  /**
   * Send searches through an Oblivious HTTP relay (SB-2): the relay sees that you search, the gateway
   * (the server) what, neither both. Updates go to `server` directly: they reveal nothing.
   */
  ohttp?: ObliviousHttpOptions;
  clock?: Clock;
  random?: () => number;
  onEvent?: (event: ClientEvent) => void;
}

/** What happened, for logs: every update round, dropped lists, damaged files, throttled searches. */
export type ClientEvent =
  | { type: 'update'; lists: string[]; nextUpdateAt: number }
  | { type: 'update-failed'; error: Error; consecutiveFailures: number; nextUpdateAt: number }
  | { type: 'list-dropped'; list: string; error: Error }
  | { type: 'damaged-file'; error: Error };

export interface CheckResult extends Omit<CheckOutcome, 'verdict'> {
  url: string;
  verdict: 'SAFE' | 'UNSAFE';
}

export interface ListInfo {
  name: string;
  /** Opaque version bytes, base64. */
  version: string;
  width: HashWidth;
  entries: number;
  checksum: string;
  /** ms since the epoch of the last successful update, undefined when never updated. */
  updatedAt: number | undefined;
}

export interface ClientStats {
  checks: number;
  answeredBy: Record<AnsweredBy, number>;
  unsafe: number;
  /** Checks whose server request failed, answered by the spec's fallback verdict (SB-8). */
  failures: number;
  /** Checks that could not ask the server because a wait was in force (RF-3, RF-4). */
  deferred: number;
  updates: number;
  updateFailures: number;
  consecutiveUpdateFailures: number;
  /** Time since the oldest list was last updated, ms; undefined before the first update. */
  updateLagMs: number | undefined;
  nextUpdateAt: number | undefined;
  cachedPrefixes: number;
}

/** A search could not be sent because RF-3 / RF-4 forbid it for now. */
export class SearchDeferredError extends Error {
  override readonly name = 'SearchDeferredError';

  constructor(readonly notBefore: number) {
    super(`the server may not be asked again before ${new Date(notBefore).toISOString()} (request-frequency rules)`);
  }
}

export interface UpdateSummary {
  updated: string[];
  failed: { list: string; error: Error }[];
  /** Set when the whole request failed. */
  error: Error | undefined;
  nextUpdateAt: number;
}

interface PersistedState {
  updates?: Record<string, ScheduleState>;
  search?: ScheduleState;
}

function widthOfName(name: string): HashWidth {
  const match = /-(4|8|16|32)b$/.exec(name);
  return match === null ? 4 : (Number(match[1]) as HashWidth);
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
  readonly mode: Mode;
  readonly protocol: 'v5' | 'v4';
  private readonly transport: Transport;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly cache: LocalCache;
  private readonly lists = new Map<string, HashList>();
  private readonly updatedAt = new Map<string, number>();
  private readonly threatListNames: string[];
  private readonly globalCacheName: string | undefined;
  private readonly updateSchedules = new Map<string, RequestSchedule>();
  private searchSchedule: RequestSchedule;
  private database: LocalDatabase | undefined;
  private timer: unknown;
  private opened: Promise<void> | undefined;
  private updating: Promise<UpdateSummary> | undefined;
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

  constructor(private readonly options: SafeBrowsingClientOptions = {}) {
    this.protocol = options.protocol ?? 'v5';
    this.mode = options.mode ?? (this.protocol === 'v5' ? 'realtime' : 'local');
    if (this.mode === 'realtime' && this.protocol === 'v4') {
      throw new RangeError('real-time mode needs the v5 protocol (v4 has no global cache); use mode "local" or "nostorage"');
    }
    if (options.ohttp !== undefined && this.protocol === 'v4') throw new RangeError('Oblivious HTTP carries v5 hashes:search only; use the v5 protocol');
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.cache = new LocalCache(options.cache);
    this.threatListNames = this.mode === 'nostorage' ? [] : [...(options.lists ?? DEFAULT_THREAT_LISTS)];
    this.globalCacheName = this.mode === 'realtime' ? GLOBAL_CACHE_LIST : undefined;
    for (const name of this.allListNames()) this.lists.set(name, HashList.empty(name, widthOfName(name)));
    this.searchSchedule = new RequestSchedule(this.clock.now(), 0, 0);
    const settings = {
      serverUrl: options.server ?? GOOGLE_SERVER,
      apiKey: options.apiKey,
      encoding: options.encoding ?? 'protobuf',
      userAgent: options.userAgent ?? `sbkit/${VERSION}`,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
      sizeConstraints: { maxUpdateEntries: 0, maxDatabaseEntries: 0, ...options.sizeConstraints },
    };
    const oblivious = options.ohttp === undefined ? undefined : new ObliviousHttp(options.ohttp);
    this.transport =
      this.protocol === 'v5'
        ? new V5Transport(settings, oblivious === undefined ? undefined : (request, http) => oblivious.send(request, http))
        : new V4Transport(settings, this.threatListNames);
  }

  private allListNames(): string[] {
    return this.globalCacheName === undefined ? this.threatListNames : [...this.threatListNames, this.globalCacheName];
  }

  /** Loads the local database and the persisted schedule; idempotent. */
  open(): Promise<void> {
    this.opened ??= this.load();
    return this.opened;
  }

  private async load(): Promise<void> {
    const now = this.clock.now();
    if (this.options.dataDir !== undefined && this.mode !== 'nostorage') {
      this.database = await LocalDatabase.open(this.options.dataDir, (error) => this.emit({ type: 'damaged-file', error }));
      for (const name of this.allListNames()) {
        const stored = this.database.get(name);
        if (stored === undefined) continue;
        this.lists.set(name, stored.list);
        this.updatedAt.set(name, stored.updatedAt);
      }
    }
    const state = ((await this.database?.readState()) ?? {}) as PersistedState;
    for (const name of this.allListNames()) {
      const saved = state.updates?.[name];
      this.updateSchedules.set(name, saved === undefined ? new RequestSchedule(now, 0, 0) : RequestSchedule.restore(saved));
    }
    if (state.search !== undefined) this.searchSchedule = RequestSchedule.restore(state.search);
  }

  /**
   * Starts keeping the lists current in the background. RF-2: the first update goes out at a random
   * moment within the first minute (`firstUpdateWindowMs`), later ones as the server's waits and
   * back-off allow.
   */
  async start(): Promise<void> {
    await this.open();
    if (this.allListNames().length === 0) return;
    const rand = this.random();
    for (const schedule of this.updateSchedules.values()) schedule.delayStart(this.clock.now(), rand, this.options.firstUpdateWindowMs);
    this.scheduleNextUpdate();
  }

  /** Stops background updates and forgets the cache. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.updating?.catch(() => undefined);
    this.cache.clear();
  }

  /** The earliest moment any list may be fetched again. */
  get nextUpdateAt(): number | undefined {
    let earliest: number | undefined;
    for (const schedule of this.updateSchedules.values()) earliest = Math.min(earliest ?? Infinity, schedule.earliest);
    return earliest;
  }

  private scheduleNextUpdate(): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const next = this.nextUpdateAt;
    if (next === undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.update().finally(() => this.scheduleNextUpdate());
    }, Math.max(0, next - this.clock.now()));
  }

  /**
   * Fetches every list whose wait is over, and again at once while the server asks for that with a zero
   * wait (SB-12), within a bound of rounds. Lists still waiting are left alone: an explicit update obeys
   * the minimum waits and back-off like the background one does.
   */
  update(): Promise<UpdateSummary> {
    this.updating ??= this.runUpdate().finally(() => {
      this.updating = undefined;
    });
    return this.updating;
  }

  private async runUpdate(): Promise<UpdateSummary> {
    await this.open();
    const summary: UpdateSummary = { updated: [], failed: [], error: undefined, nextUpdateAt: 0 };
    for (let round = 0; round < MAX_UPDATE_ROUNDS && !this.closed; round++) {
      const now = this.clock.now();
      const due = this.allListNames().filter((name) => this.updateSchedules.get(name)!.mayRequest(now));
      if (due.length === 0) break;
      const asked = this.listStates(due);
      let response;
      try {
        response = await this.transport.fetchUpdates(asked);
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        const rand = this.random();
        for (const name of due) this.updateSchedules.get(name)!.failed(this.clock.now(), rand);
        this.counters.updateFailures++;
        summary.error = error;
        const consecutiveFailures = this.updateSchedules.get(due[0]!)!.consecutiveFailures;
        this.emit({ type: 'update-failed', error, consecutiveFailures, nextUpdateAt: this.nextUpdateAt! });
        break;
      }
      const answeredAt = this.clock.now();
      for (const fetched of response.lists) {
        const schedule = this.updateSchedules.get(fetched.name)!;
        if ('error' in fetched) {
          schedule.succeeded(answeredAt, this.updateWait(response.minimumWaitMs));
          summary.failed.push({ list: fetched.name, error: fetched.error });
          await this.dropList(fetched.name, fetched.error);
          continue;
        }
        schedule.succeeded(answeredAt, this.updateWait(fetched.minimumWaitMs ?? response.minimumWaitMs));
        try {
          const next = this.lists.get(fetched.name)!.applyUpdate(fetched.update);
          await this.database?.save(next, answeredAt);
          this.lists.set(fetched.name, next);
          this.updatedAt.set(fetched.name, answeredAt);
          if (!summary.updated.includes(fetched.name)) summary.updated.push(fetched.name);
        } catch (err) {
          if (!(err instanceof HashListUpdateError)) throw err;
          summary.failed.push({ list: fetched.name, error: err });
          await this.dropList(fetched.name, err);
        }
      }
      this.counters.updates++;
      this.emit({ type: 'update', lists: due, nextUpdateAt: this.nextUpdateAt! });
    }
    await this.saveState();
    summary.nextUpdateAt = this.nextUpdateAt ?? this.clock.now();
    return summary;
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

  /** SB-9: a list that failed to update is dropped and fetched again from scratch. */
  private async dropList(name: string, error: Error): Promise<void> {
    const width = this.lists.get(name)?.width ?? widthOfName(name);
    this.lists.set(name, HashList.empty(name, width));
    this.updatedAt.delete(name);
    await this.database?.drop(name);
    this.emit({ type: 'list-dropped', list: name, error });
  }

  private async saveState(): Promise<void> {
    if (this.database === undefined) return;
    const updates: Record<string, ScheduleState> = {};
    for (const [name, schedule] of this.updateSchedules) updates[name] = schedule.state;
    await this.database.writeState({ updates, search: this.searchSchedule.state } satisfies PersistedState);
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
    try {
      const lists = this.listStates(this.threatListNames);
      const chunks: (readonly number[])[] = [];
      for (let start = 0; start < prefixes.length; start += SEARCH_PREFIXES_PER_REQUEST) chunks.push(prefixes.slice(start, start + SEARCH_PREFIXES_PER_REQUEST));
      const result = mergeSearchResults(await Promise.all(chunks.map((chunk) => this.transport.search(chunk, lists))));
      this.searchSchedule.succeeded(this.clock.now(), result.minimumWaitMs);
      return result;
    } catch (err) {
      this.searchSchedule.failed(this.clock.now(), this.random());
      throw err;
    }
  }

  /**
   * The full hashes under 4-byte prefixes, from the local cache where it knows and from the server for
   * the rest (cached in turn, negative answers too): what a caching proxy needs of its upstream.
   * `cacheDurationMs` is the shortest time any of the answers stays valid. Rejects like a search does.
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

  /** A local list as it stands (a proxy republishes its upstream's lists from here). */
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
   * Checks one URL the user is about to visit (SB-3: the final URL after redirects). Throws
   * InvalidUrlError for input that is no http(s) URL; server failures do not throw but give the
   * spec's fallback verdict with `error` set.
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
    this.count(outcome);
    return { ...outcome, url, verdict: outcome.verdict === 'UNSAFE' ? 'UNSAFE' : 'SAFE' };
  }

  async checkUrls(urls: readonly string[], options: { inFrame?: boolean } = {}): Promise<CheckResult[]> {
    const results: CheckResult[] = [];
    for (const url of urls) results.push(await this.checkUrl(url, options));
    return results;
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

  /** The local lists, for `sbkit lists` and dashboards. */
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

  stats(): ClientStats {
    const now = this.clock.now();
    const times = this.allListNames().map((name) => this.updatedAt.get(name));
    const oldest = times.includes(undefined) || times.length === 0 ? undefined : Math.min(...(times as number[]));
    const failures = [...this.updateSchedules.values()].map((s) => s.consecutiveFailures);
    return {
      ...this.counters,
      answeredBy: { ...this.counters.answeredBy },
      consecutiveUpdateFailures: Math.max(0, ...failures),
      updateLagMs: oldest === undefined ? undefined : now - oldest,
      nextUpdateAt: this.nextUpdateAt,
      cachedPrefixes: this.cache.size,
    };
  }
}
