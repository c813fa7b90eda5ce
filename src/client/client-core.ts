// The client's facade on any runtime: options checked once, then the parts wired together — the list
// updater (the database, its updates and their schedule), the hash searcher (the memory cache and
// searches within their schedule), the state file both schedules are saved in, and the SB-8 check
// procedures. What differs between runtimes (hashing, storage, HTTP) comes in as a ClientRuntime.

import { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST } from '../lists/known-lists.ts';
import { listNameProblem, listNameReason } from '../lists/list-name.ts';
import type { HashList } from '../store/hash-list.ts';
import type { ListStore } from '../store/list-store.ts';
import {
  type AnsweredBy,
  type CheckContext,
  type CheckOutcome,
  type CheckStep,
  type Threat,
  finishChecks,
  localThreatListStep,
  localThreatListStepsInBulk,
  noStorageStep,
  prepareUrl,
  type PreparedUrl,
  realTimeStep,
} from './check.ts';
import { ClientStateFile } from './updates/client-state.ts';
import { type Clock, systemClock } from '../time/clock.ts';
import { HashSearcher } from './hash-searcher.ts';
import { type CheckError, SearchDeferredError, ClientOptionError, ListsNotCurrentError, UnexpectedError } from './client-errors.ts';
import { UnknownListError } from '../lists/unknown-list-error.ts';
import { type ListInfo, ListUpdater, type UpdateSummary } from './updates/list-updater.ts';
import { LocalCache } from './local-cache.ts';
import {
  type ClientEvent,
  DEFAULT_MAX_LIST_ENTRIES,
  GOOGLE_SERVER,
  isHttpUrl,
  type Mode,
  type SafeBrowsingClientOptions,
} from './options.ts';
import type { FullHash } from '../lists/threat-details.ts';
import { hexOfHashString } from '../url/hash-string.ts';
import type { ClientRuntime } from './runtime/client-runtime.ts';
import { checkClientOptions } from './option-check.ts';
import type { Transport } from './transport/transport.ts';

/** URLs looked up in the local lists together in a bulk check (local mode), and the fewest that make one. */
const BULK_CHECK_URLS = 8192;
const BULK_CHECK_MIN_URLS = 1024;

/** What {@link SafeBrowsingClient.checkUrl} found out about one URL: checked, or not. */
export type CheckResult = CheckedResult | UncheckedResult;

interface ResultOfUrl {
  /** The URL as given. */
  url: string;
  /** The URL after SB-5 canonicalization. */
  canonicalUrl: string;
  /** Every threat the URL matched, enforced or not (CANARY, FRAME_ONLY outside frames). */
  threats: Threat[];
}

/** A URL that was checked. */
export interface CheckedResult extends ResultOfUrl {
  /** UNSAFE when an enforced threat matched: warn, and say the page is *suspected* (SB-3); SAFE when none did. */
  verdict: 'SAFE' | 'UNSAFE';
  /** Who gave the verdict: the memory cache, the local lists, or the server. */
  answeredBy: AnsweredBy;
  /** Never set: a checked URL met no error. */
  error?: undefined;
}

/** A URL that could not be checked: never to be taken for SAFE. */
export interface UncheckedResult extends ResultOfUrl {
  /** Not checked: neither SAFE nor UNSAFE. */
  verdict: 'UNKNOWN';
  /** Nobody answered. */
  answeredBy?: undefined;
  /** Why: no answer from the server, a wait the rules impose, lists that cannot vouch, any other failure. */
  error: CheckError;
}

/** Counters since the client was made, from {@link SafeBrowsingClient.stats}. */
export interface ClientStats {
  /** URLs checked. */
  checks: number;
  /** Checks by who gave the verdict: the memory cache, the local lists, or the server. */
  answeredBy: Record<AnsweredBy, number>;
  /** UNSAFE verdicts. */
  unsafe: number;
  /** Checks that could not be made: UNKNOWN verdicts. */
  unknown: number;
  /** Checks whose server request failed (some still answered, by the local lists in real-time mode). */
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
 * The Safe Browsing client on any runtime: keeps the local lists current (RF and SB-12 rules), answers
 * URL checks by the SB-8 procedure of its mode, and never asks the server more often than the rules allow.
 *
 *   checkUrl ─▶ realTimeCheck ─UNSURE─▶ localThreatListCheck      (mode realtime)
 *            ─▶ localThreatListCheck                               (mode local)
 *            ─▶ noStorageCheck                                     (mode nostorage)
 *   each: expressions → hashes → local cache → [lists] → hashes:search → cache → verdict
 */
export class SafeBrowsingClientCore {
  /** The SB-4 mode checks run in. */
  readonly mode: Mode;
  /** The protocol spoken to the server. */
  readonly protocol: 'v5' | 'v4';
  private readonly threatListNames: string[];
  private readonly globalCacheName: string | undefined;
  private readonly cache: LocalCache;
  private readonly updater: ListUpdater;
  private readonly searcher: HashSearcher;
  private readonly clock: Clock;
  private readonly random: () => number;
  private transport: Promise<Transport> | undefined;
  private stateFile: ClientStateFile | undefined;
  /** The store the lists and schedules are kept in, once opened; closed with the client. */
  private store: ListStore | undefined;
  private opened: Promise<void> | undefined;
  private readonly counters = {
    checks: 0,
    answeredBy: { cache: 0, database: 0, server: 0 } as Record<AnsweredBy, number>,
    unsafe: 0,
    unknown: 0,
    failures: 0,
    deferred: 0,
  };

  /** A client on `runtime`; a runtime's entry (Node's, the browser's) makes it with that runtime's parts. */
  protected constructor(
    private readonly options: SafeBrowsingClientOptions,
    private readonly runtime: ClientRuntime,
  ) {
    checkClientOptions(options, runtime.optionRules);
    this.protocol = options.protocol ?? 'v5';
    this.mode = options.mode ?? (this.protocol === 'v5' ? 'realtime' : 'local');
    if (this.mode === 'realtime' && this.protocol === 'v4') {
      throw new ClientOptionError('real-time mode needs the v5 protocol (v4 has no global cache); use mode "local" or "nostorage"', {
        option: 'mode',
      });
    }
    if (options.ohttp !== undefined && this.protocol === 'v4')
      throw new ClientOptionError('Oblivious HTTP carries v5 hashes:search only; use the v5 protocol', { option: 'ohttp' });
    const serverUrl = options.server ?? GOOGLE_SERVER;
    if (!isHttpUrl(serverUrl))
      throw new ClientOptionError(`the server "${serverUrl}" is not an http or https URL, such as ${GOOGLE_SERVER}`, { option: 'server' });
    // Checked in no-storage mode too, where the lists named are not kept: a name that cannot work is a mistake.
    for (const name of options.lists ?? []) {
      const problem = listNameProblem(name);
      if (problem !== undefined) throw new ClientOptionError(`lists: ${listNameReason(name, problem)}`, { option: 'lists' });
    }
    // No threat list would answer every URL from nothing: SAFE for all of them.
    if (options.lists?.length === 0 && this.mode !== 'nostorage')
      throw new ClientOptionError(
        `lists is empty; ${this.mode} mode needs at least one threat list (or mode "nostorage", which keeps none)`,
        {
          option: 'lists',
        },
      );
    const maxListEntries = options.maxListEntries ?? DEFAULT_MAX_LIST_ENTRIES;
    this.threatListNames = this.mode === 'nostorage' ? [] : [...(options.lists ?? DEFAULT_THREAT_LISTS)];
    this.globalCacheName = this.mode === 'realtime' ? GLOBAL_CACHE_LIST : undefined;
    const clock = (this.clock = options.clock ?? systemClock);
    this.random = options.random ?? Math.random;
    this.cache = new LocalCache(options.cache);
    const settings = {
      serverUrl,
      apiKey: options.apiKey,
      encoding: options.encoding ?? 'protobuf',
      userAgent: options.userAgent ?? runtime.userAgent,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
      sizeConstraints: { maxUpdateEntries: 0, maxDatabaseEntries: 0, ...options.sizeConstraints },
      maxListEntries,
    };
    const threatLists = this.threatListNames;
    // Lists the caller did not name are kept only where the server publishes them; named ones it must.
    const optional = new Set<string>(options.lists === undefined ? threatLists : []);
    if (this.globalCacheName !== undefined) optional.add(this.globalCacheName);
    const connection = () => (this.transport ??= runtime.connect(this.protocol, settings, this.threatListNames, options.ohttp, clock));
    const saveSchedules = () => this.stateFile?.save() ?? Promise.resolve(undefined);
    this.updater = new ListUpdater({
      names: this.globalCacheName === undefined ? threatLists : [...threatLists, this.globalCacheName],
      threatLists,
      optional,
      connection,
      clock,
      random: this.random,
      emit: (event) => this.emit(event),
      saveSchedules,
      firstUpdateWindowMs: options.firstUpdateWindowMs,
      minimumUpdateWaitMs: options.minimumUpdateWaitMs ?? 0,
      maxListEntries,
      sha256: runtime.sha256,
    });
    this.searcher = new HashSearcher({
      connection,
      cache: this.cache,
      clock,
      random: this.random,
      listStates: () => this.updater.listStates(this.threatListNames),
      saveSchedules,
    });
  }

  /**
   * Loads the local database and the persisted request schedules; idempotent, and done by every other
   * method first. Damaged files are reported as `damaged-file` events, never thrown.
   *
   * @throws {@link DatabaseStorageError} when `dataDir` cannot be created or read.
   */
  open(): Promise<void> {
    // A load that failed (storage blocked, a folder not yet mounted) is tried again by the next call,
    // rather than every later check failing with the first error.
    this.opened ??= this.load().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  private async load(): Promise<void> {
    if (this.mode === 'nostorage') return;
    const reportDamage = (error: Error) => this.emit({ type: 'damaged-file', error });
    const database = await this.runtime.openStore(this.options, reportDamage);
    if (database === undefined) return;
    this.store = database;
    this.stateFile = new ClientStateFile(database, () => ({ updates: this.updater.state, search: this.searcher.state }), {
      damaged: reportDamage,
      notSaved: (error) => this.emit({ type: 'state-not-saved', error }),
    });
    const state = await this.stateFile.read();
    this.updater.load(database, state.updates);
    if (state.search !== undefined) this.searcher.restore(state.search);
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
    this.updater.start();
  }

  /**
   * Stops background updates, saves the request schedules (RF-3 and RF-4 waits, of searches too, outlive
   * the process), forgets the cache and closes the store (IndexedDB's connection): a client is not used
   * after it is closed.
   */
  async close(): Promise<void> {
    await this.updater.stop();
    await this.opened?.catch(() => undefined);
    await this.stateFile?.save();
    this.cache.clear();
    this.store?.close();
    this.store = undefined;
  }

  /** The earliest moment any list may be fetched again. */
  get nextUpdateAt(): number | undefined {
    return this.updater.nextUpdateAt;
  }

  private refuseWhenReadOnly(method: 'start' | 'update'): void {
    if (this.options.readOnly === true)
      throw new ClientOptionError(
        `${method}() refused: this client opens its data folder read-only (readOnly: true) and never changes its lists`,
        { option: 'readOnly' },
      );
  }

  /**
   * Fetches every list whose wait is over, and again at once while the server asks for that with a zero
   * wait (SB-12), within a bound of rounds. Lists still waiting are left alone: an explicit update obeys
   * the minimum waits and back-off like the background one does. A failed request does not reject: the
   * summary's `error` says what went wrong.
   *
   * @throws {@link ClientOptionError} for a read-only client; {@link DatabaseStorageError} as {@link open}.
   */
  async update(): Promise<UpdateSummary> {
    this.refuseWhenReadOnly('update');
    await this.open();
    return this.updater.update();
  }

  private emit(event: ClientEvent): void {
    this.options.onEvent?.(event);
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
  async searchPrefixes(prefixes: readonly number[]): Promise<{ fullHashes: FullHash[]; cacheDurationMs: number }> {
    await this.open();
    const { fullHashes, cacheDurationMs } = await this.searcher.searchPrefixes(prefixes);
    return { fullHashes: fullHashes.map(({ fullHash, details }) => ({ fullHash: hexOfHashString(fullHash), details })), cacheDurationMs };
  }

  /**
   * What the memory cache alone knows of these prefixes (SB-4): the full hashes it holds under them, the
   * prefixes it has no answer for, and how long the answers it has stay valid. What a proxy looks at
   * before it spends a request of its upstream on a search.
   *
   * @internal
   */
  cachedSearch(prefixes: readonly number[]): { fullHashes: FullHash[]; remaining: number[]; cacheDurationMs: number } {
    const now = this.clock.now();
    const { remaining, fullHashes, expiresAt } = this.cache.consult(prefixes, now);
    return {
      fullHashes: fullHashes.map(({ fullHash, details }) => ({ fullHash: hexOfHashString(fullHash), details })),
      remaining: [...remaining],
      cacheDurationMs: Number.isFinite(expiresAt) ? Math.max(0, expiresAt - now) : 0,
    };
  }

  /**
   * A local list as it stands (a proxy republishes its upstream's lists from here).
   *
   * @internal
   */
  list(name: string): HashList | undefined {
    return this.updater.list(name);
  }

  private checkContext(inFrame: boolean): CheckContext {
    // The lists as they stand when the check begins: one consistent set for all of its URLs, looked up
    // once rather than by name for every hash.
    // The global cache too vouches only while current (and published): otherwise no URL is sent past the server.
    const now = this.clock.now();
    const globalCache =
      this.globalCacheName === undefined || !this.updater.isCurrent(this.globalCacheName, now)
        ? undefined
        : this.updater.list(this.globalCacheName);
    const threatLists = this.threatListNames.flatMap((name) => this.updater.list(name) ?? []);
    return {
      cache: this.cache,
      listsProblem: this.mode === 'nostorage' ? undefined : this.updater.notCurrent(this.threatListNames, now),
      lists: {
        inGlobalCache: (hash) => globalCache !== undefined && globalCache.matches(hash),
        inThreatLists: (hash, prefix) => {
          for (const list of threatLists) if (list.matches(hash, prefix)) return true;
          return false;
        },
        // Each list's answers ORed together: a prefix is listed when any list holds it.
        inThreatListsByPrefix: threatLists.every((list) => list.width === 4)
          ? (prefixes, found) => {
              found.fill(0);
              const each = new Uint8Array(found.length);
              for (const list of threatLists) {
                list.hasEachPrefix(prefixes, each);
                for (let i = 0; i < found.length; i++) found[i]! |= each[i]!;
              }
            }
          : undefined,
      },
      search: (prefixes) => this.searcher.search(prefixes),
      now: () => this.clock.now(),
      decoyPrefixes: this.options.decoyPrefixes ?? 0,
      random: this.random,
      inFrame,
    };
  }

  /**
   * Checks one URL the user is about to visit (SB-3: the final URL after redirects) by the SB-8 procedure
   * of the client's mode: {@link checkUrls} of one URL. Failures do not throw: a URL that could not be
   * checked is UNKNOWN, with `error` set. `inFrame`: the URL is a frame's, where FRAME_ONLY threats count.
   *
   * @throws {@link InvalidUrlError} for input that is no http(s) URL.
   */
  async checkUrl(url: string, options: { inFrame?: boolean } = {}): Promise<CheckResult> {
    return (await this.checkUrls([url], options))[0]!;
  }

  /**
   * Checks many URLs with few searches: each URL goes through the SB-8 procedure of the mode, but the
   * prefixes that the local cache cannot answer go to the server together, in one search (of several
   * requests of at most 250 prefixes) per step of the procedure, so at most two in real-time mode. Each
   * URL gets the verdict it would get alone; a failed search makes each URL that needed it UNKNOWN (in
   * real-time mode, unless current local lists answer it).
   *
   * @throws {@link InvalidUrlError}, before anything is asked, when any URL is unusable.
   */
  async checkUrls(urls: readonly string[], options: { inFrame?: boolean } = {}): Promise<CheckResult[]> {
    await this.open();
    const ctx = this.checkContext(options.inFrame ?? false);
    const first = this.mode === 'realtime' ? realTimeStep : this.mode === 'local' ? localThreatListStep : noStorageStep;
    // A URL answered without the server gets its result at once, so that only results outlive the loop
    // (most of a bulk check's URLs, and what the garbage collector would otherwise copy). The rest wait
    // for one search together, with their prepared hashes in real-time mode, whose UNSURE needs them again.
    const results = new Array<CheckResult>(urls.length);
    const waiting: { index: number; step: CheckStep; prepared: PreparedUrl | undefined }[] = [];
    const settle = (i: number, step: CheckStep, p: PreparedUrl | undefined): void => {
      if ('outcome' in step && step.outcome.verdict !== 'UNSURE') results[i] = this.result(urls[i]!, step.outcome);
      else waiting.push({ index: i, step, prepared: this.mode === 'realtime' ? p : undefined });
    };
    const take = (i: number, p: PreparedUrl): void => settle(i, first(ctx, p), p);
    // A bulk check in local mode with an empty cache, on a runtime that hashes synchronously, looks its
    // URLs up in the lists BULK_CHECK_URLS at a time, several times faster than one by one (check.ts).
    const hashAllNow = this.runtime.hasher.hashAllNow;
    const byPrefix = ctx.lists.inThreatListsByPrefix;
    if (
      this.mode === 'local' &&
      urls.length >= BULK_CHECK_MIN_URLS &&
      this.cache.size === 0 &&
      hashAllNow !== undefined &&
      byPrefix !== undefined
    ) {
      for (let start = 0; start < urls.length; start += BULK_CHECK_URLS) {
        const steps = localThreatListStepsInBulk(ctx, urls.slice(start, start + BULK_CHECK_URLS), hashAllNow, byPrefix);
        steps.forEach((step, k) => settle(start + k, step, undefined));
      }
    } else {
      // Node hashes as it goes; an asynchronous hasher's digests (WebCrypto) are awaited together, once
      // per call, and the URLs then take their first step in order.
      const hashing: { index: number; prepared: Promise<PreparedUrl> }[] = [];
      for (let i = 0; i < urls.length; i++) {
        const p = prepareUrl(urls[i]!, this.runtime.hasher);
        if (p instanceof Promise) hashing.push({ index: i, prepared: p });
        else take(i, p);
      }
      if (hashing.length > 0) {
        const hashed = await Promise.all(hashing.map((h) => h.prepared));
        hashing.forEach((h, k) => take(h.index, hashed[k]!));
      }
    }
    const outcomes = await finishChecks(
      ctx,
      waiting.map((w) => w.step),
    );
    // RealTimeCheck's UNSURE, from the global cache or a failed search: LocalThreatListCheck decides.
    // Should it not be able to either, the failed search says best why the URL went unchecked.
    const searchErrors = outcomes.map((outcome) => outcome.error);
    const unsure = waiting.flatMap((w, k) => (w.prepared !== undefined && outcomes[k]!.verdict === 'UNSURE' ? [k] : []));
    if (unsure.length > 0) {
      const local = await finishChecks(
        ctx,
        unsure.map((k) => localThreatListStep(ctx, waiting[k]!.prepared!)),
      );
      unsure.forEach((k, j) => {
        const outcome = local[j]!;
        if (outcome.verdict === 'UNKNOWN') outcome.error = searchErrors[k] ?? outcome.error;
        outcomes[k] = outcome;
      });
    }
    waiting.forEach((w, k) => (results[w.index] = this.result(urls[w.index]!, outcomes[k]!, searchErrors[k])));
    return results;
  }

  /** The result of a procedure's outcome; `searchError`, a search of it that failed, is counted whatever the verdict. */
  private result(url: string, outcome: CheckOutcome, searchError?: CheckError): CheckResult {
    this.counters.checks++;
    // Searches that failed or were deferred; lists that could not vouch asked nobody.
    const failure = searchError ?? outcome.error;
    if (failure instanceof SearchDeferredError) this.counters.deferred++;
    else if (failure !== undefined && !(failure instanceof ListsNotCurrentError || failure instanceof UnknownListError))
      this.counters.failures++;
    const { canonicalUrl, threats, answeredBy, error } = outcome;
    // Spelled out rather than spread (a seventh of a bulk check's time); the keys in the same order.
    if ((outcome.verdict !== 'SAFE' && outcome.verdict !== 'UNSAFE') || answeredBy === undefined) {
      this.counters.unknown++;
      return {
        verdict: 'UNKNOWN',
        canonicalUrl,
        threats,
        error: error ?? new UnexpectedError('the check', 'it ended without a verdict'),
        url,
      };
    }
    this.counters.answeredBy[answeredBy]++;
    if (outcome.verdict === 'UNSAFE') {
      this.counters.unsafe++;
      return { verdict: 'UNSAFE', canonicalUrl, threats, answeredBy, url };
    }
    return { verdict: 'SAFE', canonicalUrl, threats, answeredBy, url };
  }

  /** Drops the local cache, e.g. under memory pressure (SB-4 allows it at any time). */
  clearCache(): void {
    this.cache.clear();
  }

  /** The local lists (threat lists, and the global cache in real-time mode), for `sbkit lists` and dashboards. */
  listInfo(): ListInfo[] {
    return this.updater.listInfo();
  }

  /** What the client has done since it was made, and how current its lists are. */
  stats(): ClientStats {
    return {
      ...this.counters,
      ...this.updater.counts,
      answeredBy: { ...this.counters.answeredBy },
      consecutiveUpdateFailures: this.updater.consecutiveFailures,
      updateLagMs: this.updater.updateLagMs(this.clock.now()),
      nextUpdateAt: this.updater.nextUpdateAt,
      cachedPrefixes: this.cache.size,
    };
  }
}
