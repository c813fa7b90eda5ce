import { callAt, type Clock, systemClock } from '../../time/clock.ts';
import type { Registry } from 'prom-client';
import type { ServerConfig } from './config.ts';
import { type EntryEdits, type EntryEditStore, MAX_EDITS_PER_LIST, memoryEntryEdits } from './entry-edits.ts';
import { feedMetrics } from './feed-metrics.ts';
import { loadList, type LoadedList, readSources } from './sources/feed-source.ts';
import { FileWatch, type FileWatchOptions } from './sources/file-watch.ts';
import { type ReadMode, SourceStates, type SourceStatesOptions } from './sources/source-states.ts';
import { type FeedSourceStatus, sourceStatus } from './sources/source-status.ts';
import { ListCatalog } from '../catalog.ts';
import { ListHistory } from '../lists/list-history.ts';
import { memorySnapshotStore, type SnapshotStore } from '../lists/snapshot-store.ts';
import { SnapshotStoreError } from '../lists/snapshot-store-error.ts';

/** A bad line of a feed as the operator is told of it: where it is and why it is no entry. */
export interface ReportedBadLine {
  /** The file path or URL (without credentials), or a description of inline entries. */
  source: string;
  /** 1-based line number in the feed. */
  line: number;
  /** Why the line is no entry. */
  reason: string;
}

/** The least time between a load of a list and the next one a timer starts. */
const MIN_TIMER_GAP_MS = 1000;

/**
 * A load whose content the snapshot store could not take (Redis away) is published again after this
 * wait, doubled after each refusal up to REPUBLISH_MAX_MS, until the store takes it or newer content
 * of the list replaces it: without it, content read during an outage waited for the next refresh,
 * an hour for a URL feed and for ever for a file read only on reload.
 */
const REPUBLISH_FIRST_MS = 1000;
const REPUBLISH_MAX_MS = 30_000;

/** Enough of each source's bad lines to see what is wrong with it, few enough for a log line. */
export const REPORTED_BAD_LINES_PER_SOURCE = 10;

/** What one (re)load of a list did, for logs and the operator's reload endpoint. */
export interface ListLoadReport {
  /** The list's name. */
  list: string;
  /** Distinct expressions read from its sources. */
  expressions: number;
  /** Bad lines over the sources that loaded. */
  badLines: number;
  /** The first bad lines of each source that loaded (up to REPORTED_BAD_LINES_PER_SOURCE), in source order. */
  firstBadLines: ReportedBadLine[];
  /** Sources that failed, and a snapshot store that could not take the list, as messages. */
  errors: string[];
  /**
   * False when this load published nothing: its sources held what they held at the last publication (304s,
   * texts unchanged, feeds not due yet), or a failed source without a copy, or a snapshot store that could
   * not take the list, kept the previous snapshot in service.
   */
  published: boolean;
  /**
   * Whether the version this instance last published holds exactly what this load read (its sources'
   * copies and the entry edits): true also when nothing new needed publishing (a content published
   * already, by this load or an earlier one), false when the list stays as it was without this load's
   * content (see `notServed`).
   */
  served: boolean;
  /** When not `served`: why, in words for the operator, and when it will be. */
  notServed?: string;
}

export interface FeedListsOptions extends SourceStatesOptions {
  /** How file sources are watched (file-watch.ts); false: only at start, on their interval and on reload. */
  watch?: FileWatchOptions | false;
  /** Where the operator's edits of `entries` sources are kept; this process's memory by default. */
  edits?: EntryEditStore;
  /** Aborted while {@link FeedLists.start} runs: the start is abandoned as close() abandons a reload, its downloads cut. */
  signal?: AbortSignal;
}

/** What an edit of a list's entries did: the edits now, and the reload that published them. */
export interface EntriesEdited {
  edits: EntryEdits;
  report: ListLoadReport;
}

/**
 * The lists of a configuration, loaded from their feeds, published as snapshots and refreshed on their
 * sources' intervals, as soon as a file source changes (file-watch.ts), and when the operator edits a
 * list's entries. A source that fails keeps counting with its last good copy (feeds/sources/source-states.ts),
 * rather than its entries being removed from every client only to come back an hour later, and is
 * tried again on its own back-off; a list is read again when its next source is due.
 *
 * Snapshots are published through a SnapshotStore: this process's memory by default, or a store that
 * several server instances share, which every instance publishes to and follows.
 */
export class FeedLists {
  /** The lists, for {@link createServer}'s `catalog`. */
  readonly catalog: ListCatalog;
  /** Every source's copy, validators and health. */
  readonly sources: SourceStates;
  /** The sources' metrics (feeds/feed-metrics.ts), for `/metrics`. */
  readonly metrics: Registry;
  /** The next timer's load of each list, as the function that cancels it. */
  private readonly timers = new Map<string, () => void>();
  private stopped = false;
  private readonly clock: Clock;
  private readonly loaded = new Set<string>();
  /** The content key (feed-source.ts LoadedList) each list was last published with by this process. */
  private readonly publishedKeys = new Map<string, string>();
  /** The reload of each list under way, if any: one at a time, so that an older read never publishes last. */
  private readonly reloading = new Map<string, Promise<unknown>>();
  /** The publication of each list under way, if any: one at a time, each from the copies held when its turn comes. */
  private readonly publishing = new Map<string, Promise<unknown>>();
  /** Lists whose reload is asked for and not yet begun: asking again adds nothing. */
  private readonly asked = new Set<string>();
  private watch: FileWatch | undefined;
  private readonly edits: EntryEditStore;
  /** Publications of each list begun so far: one tried again is dropped once a newer one has begun. */
  private readonly publications = new Map<string, number>();
  /** The timer of each list's publication waiting to be tried again. */
  private readonly republishing = new Map<string, NodeJS.Timeout>();
  /** Aborted by close(): downloads under way are abandoned, and nothing more is published. */
  private readonly stopping = new AbortController();

  private constructor(
    private config: ServerConfig,
    private readonly histories: Map<string, ListHistory>,
    private readonly onReport: (report: ListLoadReport) => void,
    private readonly store: SnapshotStore,
    private readonly options: FeedListsOptions,
  ) {
    this.edits = options.edits ?? memoryEntryEdits();
    this.catalog = new ListCatalog(histories.values());
    this.clock = options.clock ?? systemClock;
    this.sources = new SourceStates(options);
    this.metrics = feedMetrics(this.sources);
  }

  /** Each source's state now, in words too, for the status page and /status.json. */
  sourceStatus(): FeedSourceStatus[] {
    const now = this.clock.now();
    return this.sources.all().map((state) => sourceStatus(state, now));
  }

  /**
   * Serves what `store` holds already, loads every list once, then keeps refreshing the ones whose
   * sources have intervals. Each (re)load is told to `onReport`; a source that fails does not reject.
   * `options` gives the timers' clock and the back-off's random numbers (tests).
   *
   * @throws SnapshotStoreError when the store cannot be read.
   */
  static async start(
    config: ServerConfig,
    onReport: (report: ListLoadReport) => void = () => {},
    store: SnapshotStore = memorySnapshotStore,
    options: FeedListsOptions = {},
  ): Promise<FeedLists> {
    const histories = new Map(config.lists.map((list) => [list.name, new ListHistory(list, { keep: config.keepVersions })]));
    const lists = new FeedLists(config, histories, onReport, store, options);
    const abandon = () => lists.close();
    if (options.signal?.aborted === true) abandon();
    options.signal?.addEventListener('abort', abandon, { once: true });
    try {
      // A list another instance published counts as loaded: a source failing here then keeps that list in
      // service for every instance, rather than publishing the little this instance could read.
      for (const name of await store.follow([...histories.values()])) lists.loaded.add(name);
      // Watched before the first load: a file changed while it is read is read again.
      await lists.watchFiles();
      await lists.reload();
    } finally {
      options.signal?.removeEventListener('abort', abandon);
    }
    return lists;
  }

  /** The lists' names, in configuration order. */
  get names(): string[] {
    return this.config.lists.map((list) => list.name);
  }

  /** Where the operator's edits of `entries` sources are kept. */
  get editKeeping(): EntryEditStore['keeping'] {
    return this.edits.keeping;
  }

  /**
   * Takes the sources, refresh intervals and feed limits of `config` (a configuration read again, on
   * SIGHUP) and loads every list from them now. The lists themselves cannot change without a restart:
   * `config` must define the same lists as the running one (config-reload.ts makes it so).
   */
  async reconfigure(config: ServerConfig): Promise<ListLoadReport[]> {
    if (this.stopped) return [];
    const names = (lists: ServerConfig['lists']) => lists.map((list) => list.name).join('\n');
    if (names(config.lists) !== names(this.config.lists)) throw new RangeError('reconfigure takes the lists the server was started with');
    this.cancelTimers();
    this.closeWatch();
    this.config = config;
    await this.watchFiles();
    // Stopped while the watches started: nothing more is read or published.
    if (this.stopped) {
      this.closeWatch();
      return [];
    }
    return this.reload();
  }

  /** Starts watching the file sources, each change asking for a reload of the lists that read the file. */
  private async watchFiles(): Promise<void> {
    // Stopped (a start abandoned): nothing to watch for.
    if (this.options.watch === false || this.stopped) return;
    const readers = new Map<string, string[]>();
    for (const list of this.config.lists) {
      for (const source of list.sources)
        if (source.kind === 'file') readers.set(source.path, [...(readers.get(source.path) ?? []), list.name]);
    }
    if (readers.size === 0) return;
    this.watch = new FileWatch(
      [...readers.keys()],
      (path) => {
        for (const name of readers.get(path) ?? []) this.askReload(name);
      },
      this.options.watch,
    );
    await this.watch.ready;
  }

  private closeWatch(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  /**
   * A reload of `name` after the one under way, if any, which may have read a file before it changed; a
   * reload asked for and not yet begun already covers it. File sources are read at every load; URL
   * sources only when due.
   */
  private askReload(name: string): void {
    if (this.asked.has(name)) return;
    this.asked.add(name);
    void this.reloadList(name, 'due', () => this.asked.delete(name));
  }

  /**
   * Sets the timer of the next load of `name`, when its next source is due (its refresh interval, or its
   * back-off after a failure); a list without sources to refresh gets none.
   */
  private schedule(name: string): void {
    this.timers.get(name)?.();
    this.timers.delete(name);
    const due = this.sources.nextCheckAt(name);
    if (this.stopped || due === undefined) return;
    // A load that failed before a source could set its next check leaves a moment past: not a tight loop.
    const at = Math.max(due, this.clock.now() + MIN_TIMER_GAP_MS);
    this.timers.set(
      name,
      callAt(this.clock, at, () => {
        this.timers.delete(name);
        void this.reloadList(name, 'due');
      }),
    );
  }

  private cancelTimers(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  /** Loads every list again now (the operator's reload): every source is read, URL feeds conditionally. */
  async reload(): Promise<ListLoadReport[]> {
    const reports: ListLoadReport[] = [];
    for (const list of this.config.lists) reports.push(await this.reloadList(list.name, 'now'));
    return reports;
  }

  /** Reloads the list `name` now (the operator's reload of one list); undefined when there is no such list. */
  reloadOne(name: string): Promise<ListLoadReport> | undefined {
    return this.histories.has(name) ? this.reloadList(name, 'now') : undefined;
  }

  /**
   * Adds `add` to and removes `remove` from the entries of the list `name` (canonical expressions), keeps
   * the edits (entry-edits.ts) and publishes the list at once. `unknown` when there is no such list,
   * `no-entries` when it has no `entries` source for the edits to lie over, `too-many` when the list
   * would hold more than MAX_EDITS_PER_LIST edits. Rejects when the edits cannot be kept.
   *
   * The list is merged again from the copies its sources hold, none of them read again: an operator's
   * edit during an incident waits neither for a download under way (a feed that hangs until its
   * timeout), nor for a feed that is due, nor for its file sources; a load under way publishes after it,
   * the edit included (its edits are read once its sources are).
   */
  async editEntries(
    name: string,
    add: readonly string[],
    remove: readonly string[],
  ): Promise<EntriesEdited | 'unknown' | 'no-entries' | 'too-many'> {
    const list = this.config.lists.find((candidate) => candidate.name === name);
    if (list === undefined) return 'unknown';
    if (!list.sources.some((source) => source.kind === 'entries')) return 'no-entries';
    // The store checks the cap as it writes: a check here, before the write, let concurrent edits all pass.
    const edits = await this.edits.update(name, add, remove, MAX_EDITS_PER_LIST);
    if (edits === 'too-many') return edits;
    return { edits, report: await this.publishHeld(name) };
  }

  /** Reloads one list once any reload of it under way has finished. Never rejects: failures are reported. */
  private reloadList(name: string, mode: Exclude<ReadMode, 'held'>, begins: () => void = () => {}): Promise<ListLoadReport> {
    return inTurn(this.reloading, name, () => {
      begins();
      return this.loadAndPublish(name, mode);
    });
  }

  /** Reads the sources of `name` that are due in `mode`, then publishes the list from its copies. */
  private async loadAndPublish(name: string, mode: Exclude<ReadMode, 'held'>): Promise<ListLoadReport> {
    const list = this.config.lists.find((l) => l.name === name)!;
    try {
      await readSources(list, { ...this.config.feedLimits, signal: this.stopping.signal }, this.sources, mode);
    } catch (err) {
      const report = this.failedUnexpectedly(name, err);
      this.schedule(name);
      this.tell(report);
      return report;
    }
    // The next load is timed once this one has read its sources (their next checks).
    return this.publishHeld(name, () => this.schedule(name));
  }

  /**
   * Merges the list `name` from the copies its sources hold and the edits, and publishes it unless that
   * content is published already or a source without a copy holds it back. Publications of a list run one
   * at a time, each merging what is held when its turn comes, so that the last one holds the newest copies
   * and edits; a download does not hold one up. `done` runs before the report is told. Never rejects:
   * failures are reported.
   */
  private publishHeld(name: string, done: () => void = () => {}): Promise<ListLoadReport> {
    return inTurn(this.publishing, name, async () => {
      const report = await this.mergeAndPublish(name);
      done();
      // Stopped meanwhile: nothing was published, and nothing is told.
      if (!this.stopping.signal.aborted) this.tell(report);
      return report;
    });
  }

  private async mergeAndPublish(name: string): Promise<ListLoadReport> {
    const list = this.config.lists.find((l) => l.name === name)!;
    const publication = (this.publications.get(name) ?? 0) + 1;
    this.publications.set(name, publication);
    clearTimeout(this.republishing.get(name));
    this.republishing.delete(name);
    // Stopped meanwhile (SIGTERM during a reload): what was read is not published.
    if (this.stopping.signal.aborted) return abandoned(name);
    const errors: string[] = [];
    try {
      let editsRead: EntryEdits | undefined;
      const readEdits = async () => (editsRead = await this.edits.read(name));
      const loaded = await loadList(list, this.config.feedLimits, this.sources, 'held', readEdits);
      if (this.stopping.signal.aborted) return abandoned(name);
      errors.push(
        ...loaded.errors.map((e) => e.message),
        ...loaded.stale.map((s) => `${s.error.message}; its copy from ${new Date(s.copySince).toISOString()} still counts`),
      );
      const firstBadLines = loaded.sources.flatMap(({ source, badLines }) =>
        badLines.slice(0, REPORTED_BAD_LINES_PER_SOURCE).map(({ line, reason }) => ({ source, line, reason })),
      );
      const report: ListLoadReport = {
        list: name,
        expressions: loaded.expressions,
        badLines: loaded.badLines,
        firstBadLines,
        errors,
        published: false,
        served: false,
      };
      // A source without a copy would take its entries out of a list served before: it stays as it was.
      // Nor is content published again that this process published last (304s, texts unchanged).
      const held = (loaded.errors.length > 0 || loaded.unread.length > 0) && this.loaded.has(name);
      let notServed = held ? this.heldBack(name, loaded) : undefined;
      if (!held && this.publishedKeys.get(name) !== loaded.contentKey) {
        const refusal = await this.publish(name, loaded.fullHashes, loaded.contentKey);
        if (refusal === undefined) {
          report.published = true;
          if (editsRead !== undefined) await this.recheckEdits(name, editsRead);
        } else {
          notServed =
            `the snapshot store could not take the list (${refusal.message}); it is tried again in a moment, ` +
            'at growing intervals, and the previous version stays served meanwhile';
          this.republishLater(name, publication, loaded, { ...report, errors: [...errors], notServed }, REPUBLISH_FIRST_MS);
          errors.push(refusal.message);
        }
      }
      // Compared with what this instance last published, not with whether this publication published: a
      // content published already (by a concurrent one, or unchanged) is served all the same.
      report.served = this.publishedKeys.get(name) === loaded.contentKey;
      if (!report.served && notServed !== undefined) report.notServed = notServed;
      return report;
    } catch (err) {
      return this.failedUnexpectedly(name, err, errors);
    }
  }

  /** The report of a load or publication that failed in a way no source explains; the list keeps its snapshot. */
  private failedUnexpectedly(name: string, err: unknown, errors: string[] = []): ListLoadReport {
    const why = `reload failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`;
    return {
      list: name,
      expressions: 0,
      badLines: 0,
      firstBadLines: [],
      errors: [...errors, why],
      published: false,
      served: false,
      notServed: why,
    };
  }

  /** Publishes through the store; resolves to the store's refusal, if it refused. */
  private async publish(name: string, fullHashes: Uint8Array, contentKey: string): Promise<SnapshotStoreError | undefined> {
    try {
      await this.store.publish(this.histories.get(name)!, fullHashes);
      this.loaded.add(name);
      this.publishedKeys.set(name, contentKey);
      return undefined;
    } catch (err) {
      if (!(err instanceof SnapshotStoreError)) throw err;
      return err;
    }
  }

  /** Tries a refused publication again after `waitMs`, unless `publication` is no longer the list's newest by then. */
  private republishLater(name: string, publication: number, loaded: LoadedList, report: ListLoadReport, waitMs: number): void {
    const timer = setTimeout(() => {
      this.republishing.delete(name);
      void inTurn(this.publishing, name, async () => {
        if (this.publications.get(name) !== publication || this.stopping.signal.aborted) return report;
        let refusal;
        try {
          refusal = await this.publish(name, loaded.fullHashes, loaded.contentKey);
        } catch (err) {
          const failed = {
            ...report,
            errors: [...report.errors, `publication failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`],
          };
          this.tell(failed);
          return failed;
        }
        if (refusal !== undefined) {
          this.republishLater(name, publication, loaded, report, Math.min(2 * waitMs, REPUBLISH_MAX_MS));
          return report;
        }
        const published: ListLoadReport = { ...report, published: true, served: true };
        delete published.notServed;
        this.tell(published);
        return published;
      });
    }, waitMs);
    timer.unref();
    this.republishing.set(name, timer);
  }

  private tell(report: ListLoadReport): void {
    try {
      this.onReport(report);
    } catch {
      // A failing report callback must not stop the list's refreshes; the report is still returned.
    }
  }

  /**
   * Edits shared with other instances (Redis) may change between this publication's read of them and its
   * end, which every instance then follows: when they did, the list is published once more, so that an
   * edit made meanwhile on another instance is not left out for longer than one more publication.
   */
  private async recheckEdits(name: string, used: EntryEdits): Promise<void> {
    if (this.edits.keeping !== 'redis') return;
    const now = await this.edits.read(name);
    if (JSON.stringify(now) !== JSON.stringify(used)) void this.publishHeld(name);
  }

  /**
   * Why a load of `name` with a source that has no copy was not published, in words: which sources, and
   * when they are tried next.
   */
  private heldBack(name: string, loaded: LoadedList): string {
    const next = this.sources.nextCheckAt(name);
    const when = next === undefined ? 'at the next reload' : `next tried at ${new Date(next).toISOString()}`;
    const why = [
      ...loaded.errors.map((error) => error.message),
      ...loaded.unread.map((source) => `${source} is being read for the first time`),
    ];
    const one = why.length === 1;
    return (
      `the list stays as it was: ${why.join('; ')}, and ` +
      `${one ? 'that source has' : 'those sources have'} no copy in this process yet; ` +
      `publishing without ${one ? 'it' : 'them'} would take ${one ? 'its' : 'their'} entries out of every client. ` +
      `What this load read is served once ${one ? 'that source is' : 'those sources are'} read (${when}).`
    );
  }

  /**
   * Stops the refreshes, the watches and publications waiting to be tried again, and abandons downloads
   * under way (a reload's, when the server stops during it); what is published stays served.
   */
  close(): void {
    this.stopped = true;
    this.cancelTimers();
    this.closeWatch();
    for (const timer of this.republishing.values()) clearTimeout(timer);
    this.republishing.clear();
    this.stopping.abort();
  }
}

/** Runs `work` on list `name` once what `queue` runs on it now has finished: one at a time. */
function inTurn<T>(queue: Map<string, Promise<unknown>>, name: string, work: () => Promise<T>): Promise<T> {
  const next = (queue.get(name) ?? Promise.resolve()).then(work);
  queue.set(name, next);
  void next.finally(() => {
    if (queue.get(name) === next) queue.delete(name);
  });
  return next;
}

/** The report of a publication the server's stop abandoned: nothing published. */
function abandoned(name: string): ListLoadReport {
  return {
    list: name,
    expressions: 0,
    badLines: 0,
    firstBadLines: [],
    errors: ['abandoned: stopping'],
    published: false,
    served: false,
    notServed: 'the server is stopping',
  };
}
