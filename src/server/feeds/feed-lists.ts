import { type Clock, systemClock } from '../../time/clock.ts';
import type { Registry } from 'prom-client';
import type { ServerConfig } from '../config/config.ts';
import { type EntryEditStore, memoryEntryEdits } from './entry-edits.ts';
import { type EntriesEdited, FeedList, type FeedListsShared } from './feed-list.ts';
import { feedMetrics } from './feed-metrics.ts';
import type { ListLoadReport } from './list-load-report.ts';
import type { FileWatchOptions } from './sources/file-watch.ts';
import { serverFeedWorkers, type FeedWorkerPool } from './sources/feed-worker-pool.ts';
import { SourceStates, type SourceStatesOptions } from './sources/source-states.ts';
import { type FeedSourceStatus, sourceStatus } from './sources/source-status.ts';
import { ListCatalog } from '../catalog.ts';
import { ListHistory } from '../lists/list-history.ts';
import { memorySnapshotStore, type SnapshotStore } from '../lists/snapshot-store.ts';

export type { EntriesEdited } from './feed-list.ts';
export type { ListLoadReport, ReportedBadLine } from './list-load-report.ts';

export interface FeedListsOptions extends SourceStatesOptions {
  /**
   * The threads that hash its feeds and merge its lists, stopped by {@link FeedLists.close} (a pool
   * stopped starts new threads for later work); a pool of its own by default.
   */
  workers?: FeedWorkerPool;
  /** How file sources are watched (file-watch.ts); false: only at start, on their interval and on reload. */
  watch?: FileWatchOptions | false;
  /** Where the operator's edits of `entries` sources are kept; this process's memory by default. */
  edits?: EntryEditStore;
  /** Aborted while {@link FeedLists.start} runs: the start is abandoned as close() abandons a reload, its downloads cut. */
  signal?: AbortSignal;
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
 *
 * Each list is a FeedList (feed-list.ts), with its own timers, watch, reloads and publications; this
 * registry holds them in configuration order, with what they share: the sources' states and their
 * metrics, the feed workers, the snapshot store, the edits and the clock.
 */
export class FeedLists {
  /** The lists, for {@link createServer}'s `catalog`. */
  readonly catalog: ListCatalog;
  /** Every source's copy, validators and health. */
  readonly sources: SourceStates;
  /** The sources' metrics (feeds/feed-metrics.ts), for `/metrics`. */
  readonly metrics: Registry;
  /** Each list by name, in configuration order. */
  private readonly feeds: Map<string, FeedList>;
  private readonly clock: Clock;
  private readonly edits: EntryEditStore;
  /** Aborted by close(): downloads under way are abandoned, and nothing more is published. */
  private readonly stopping = new AbortController();

  private constructor(
    private config: ServerConfig,
    onReport: (report: ListLoadReport) => void,
    store: SnapshotStore,
    options: FeedListsOptions,
  ) {
    this.edits = options.edits ?? memoryEntryEdits();
    this.clock = options.clock ?? systemClock;
    this.sources = new SourceStates({ ...options, workers: options.workers ?? serverFeedWorkers() });
    this.metrics = feedMetrics(this.sources);
    const shared: FeedListsShared = {
      sources: this.sources,
      store,
      edits: this.edits,
      clock: this.clock,
      watch: options.watch ?? {},
      stopping: this.stopping.signal,
      tell: (report) => {
        try {
          onReport(report);
        } catch {
          // A failing report callback must not stop the list's refreshes; the report is still returned.
        }
      },
    };
    this.feeds = new Map(
      config.lists.map((list) => [
        list.name,
        new FeedList(list, config.feedLimits, new ListHistory(list, { keep: config.keepVersions }), shared),
      ]),
    );
    this.catalog = new ListCatalog([...this.feeds.values()].map((feed) => feed.history));
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
    const lists = new FeedLists(config, onReport, store, options);
    const abandon = () => void lists.close();
    if (options.signal?.aborted === true) abandon();
    options.signal?.addEventListener('abort', abandon, { once: true });
    try {
      // A list another instance published counts as in service: a source failing here then keeps that list
      // in service for every instance, rather than publishing the little this instance could read.
      for (const name of await store.follow([...lists.feeds.values()].map((feed) => feed.history))) {
        const feed = lists.feeds.get(name);
        if (feed !== undefined) feed.inService = true;
      }
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
    return [...this.feeds.keys()];
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
    if (this.stopping.signal.aborted) return [];
    const names = (lists: ServerConfig['lists']) => lists.map((list) => list.name).join('\n');
    if (names(config.lists) !== names(this.config.lists)) throw new RangeError('reconfigure takes the lists the server was started with');
    for (const feed of this.feeds.values()) feed.stop();
    this.config = config;
    for (const list of config.lists) this.feeds.get(list.name)!.configure(list, config.feedLimits);
    await this.watchFiles();
    // Stopped while the watches started: nothing more is read or published.
    if (this.stopping.signal.aborted) {
      for (const feed of this.feeds.values()) feed.stop();
      return [];
    }
    return this.reload();
  }

  /** Loads every list again now (the operator's reload): every source is read, URL feeds conditionally. */
  async reload(): Promise<ListLoadReport[]> {
    const reports: ListLoadReport[] = [];
    for (const feed of this.feeds.values()) reports.push(await feed.reload('now'));
    return reports;
  }

  /** Reloads the list `name` now (the operator's reload of one list); undefined when there is no such list. */
  reloadOne(name: string): Promise<ListLoadReport> | undefined {
    return this.feeds.get(name)?.reload('now');
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
    return (await this.feeds.get(name)?.editEntries(add, remove)) ?? 'unknown';
  }

  /**
   * Stops the refreshes, the watches and publications waiting to be tried again, abandons downloads
   * under way (a reload's, when the server stops during it) and stops the feed workers, a busy or hung
   * one included, which would keep the process alive until its task's timeout (10 minutes); what is
   * published stays served. Resolves once the workers have ended.
   */
  async close(): Promise<void> {
    for (const feed of this.feeds.values()) feed.close();
    this.stopping.abort();
    await this.sources.workers.close();
  }

  /** Starts watching every list's file sources; resolves once every watch knows its files' starting state. */
  private async watchFiles(): Promise<void> {
    await Promise.all([...this.feeds.values()].map((feed) => feed.watchFiles()));
  }
}
