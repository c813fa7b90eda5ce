// The client's facade on any runtime: options read once (client-settings.ts), then the parts wired
// together — what the client keeps of its server (lists-and-searches.ts: the list updater, the hash
// searcher with its memory cache, the store and state file their schedules are saved in) and the URL
// checks over them (url-checks.ts: the SB-8 procedures of its mode, in batches, counted). What differs
// between runtimes (hashing, storage, HTTP) comes in as a ClientRuntime.

import { type ClientSettings, clientSettings } from './client-settings.ts';
import { ListsAndSearches } from './lists-and-searches.ts';
import type { Mode, SafeBrowsingClientOptions } from './options.ts';
import type { ClientRuntime } from './runtime/client-runtime.ts';
import type { UpdateSummary } from './updates/list-updater.ts';
import type { ListInfo } from './updates/local-lists.ts';
import { type CheckCounts, type CheckResult, UrlChecks } from './url-checks.ts';

/** Counters since the client was made, from {@link SafeBrowsingClient.stats}. */
export interface ClientStats extends CheckCounts {
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
  readonly protocol: 'v5' | 'v4' | 'webrisk';
  private readonly settings: ClientSettings;
  private readonly kept: ListsAndSearches;
  private readonly checks: UrlChecks;

  /** A client on `runtime`; a runtime's entry (Node's, the browser's) makes it with that runtime's parts. */
  protected constructor(options: SafeBrowsingClientOptions, runtime: ClientRuntime) {
    const settings = (this.settings = clientSettings(options, runtime));
    this.protocol = settings.protocol;
    this.mode = settings.mode;
    this.kept = new ListsAndSearches(settings, options, runtime);
    this.checks = new UrlChecks(this.kept, settings, runtime.hasher, options.decoyPrefixes ?? 0);
  }

  /**
   * Loads the local database and the persisted request schedules; idempotent, and done by every other
   * method first. Damaged files are reported as `damaged-file` events, never thrown.
   *
   * @throws {@link DatabaseStorageError} when `dataDir` cannot be created or read.
   */
  open(): Promise<void> {
    return this.kept.open();
  }

  /**
   * Starts keeping the lists current in the background. RF-2: the first update goes out at a random
   * moment within the first minute (`firstUpdateWindowMs`), later ones as the server's waits and
   * back-off allow. Failed background updates are reported as `update-failed` events, never thrown.
   *
   * @throws {@link ClientOptionError} for a read-only client; {@link DatabaseStorageError} as {@link open}.
   */
  start(): Promise<void> {
    return this.kept.start();
  }

  /**
   * Stops background updates, saves the request schedules (RF-3 and RF-4 waits, of searches too, outlive
   * the process), forgets the cache and closes the store (IndexedDB's connection): a client is not used
   * after it is closed.
   */
  close(): Promise<void> {
    return this.kept.close();
  }

  /** The earliest moment any list may be fetched again. */
  get nextUpdateAt(): number | undefined {
    return this.kept.updater.nextUpdateAt;
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
    return this.kept.update();
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
    return this.checks.check(urls, options.inFrame ?? false);
  }

  /** Drops the local cache, e.g. under memory pressure (SB-4 allows it at any time). */
  clearCache(): void {
    this.kept.cache.clear();
  }

  /** The local lists (threat lists, and the global cache in real-time mode), for `sbkit lists` and dashboards. */
  listInfo(): ListInfo[] {
    return this.kept.updater.listInfo();
  }

  /** What the client has done since it was made, and how current its lists are. */
  stats(): ClientStats {
    const { updater, cache } = this.kept;
    return {
      ...this.checks.counted,
      ...updater.counts,
      consecutiveUpdateFailures: updater.consecutiveFailures,
      updateLagMs: updater.updateLagMs(this.settings.clock.now()),
      nextUpdateAt: updater.nextUpdateAt,
      cachedPrefixes: cache.size,
    };
  }
}
