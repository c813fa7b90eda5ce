import type { ServerConfig } from './feeds/config.ts';
import { listRefreshMs, loadList, type LoadedList } from './feeds/feed-source.ts';
import { ListCatalog } from './catalog.ts';
import { ListHistory } from './lists/list-history.ts';
import { memorySnapshotStore, type SnapshotStore } from './lists/snapshot-store.ts';
import { SnapshotStoreError } from './lists/snapshot-store-error.ts';

/** A bad line of a feed as the operator is told of it: where it is and why it is no entry. */
export interface ReportedBadLine {
  /** The file path or URL (without credentials), or a description of inline entries. */
  source: string;
  /** 1-based line number in the feed. */
  line: number;
  /** Why the line is no entry. */
  reason: string;
}

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
  /** False when a failed source, or a snapshot store that could not take the list, kept the previous snapshot in service. */
  published: boolean;
}

/**
 * The lists of a configuration, loaded from their feeds, published as snapshots and refreshed on their
 * sources' intervals. A refresh in which a source fails keeps the list as it was, rather than removing
 * that source's entries from every client only to add them back an hour later.
 *
 * Snapshots are published through a SnapshotStore: this process's memory by default, or a store that
 * several server instances share, which every instance publishes to and follows.
 */
export class FeedLists {
  /** The lists, for {@link createServer}'s `catalog`. */
  readonly catalog: ListCatalog;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly loaded = new Set<string>();
  /** The reload of each list under way, if any: one at a time, so that an older read never publishes last. */
  private readonly reloading = new Map<string, Promise<ListLoadReport>>();

  private constructor(
    private config: ServerConfig,
    private readonly histories: Map<string, ListHistory>,
    private readonly onReport: (report: ListLoadReport) => void,
    private readonly store: SnapshotStore,
  ) {
    this.catalog = new ListCatalog(histories.values());
  }

  /**
   * Serves what `store` holds already, loads every list once, then keeps refreshing the ones whose
   * sources have intervals. Each (re)load is told to `onReport`; a source that fails does not reject.
   *
   * @throws SnapshotStoreError when the store cannot be read.
   */
  static async start(
    config: ServerConfig,
    onReport: (report: ListLoadReport) => void = () => {},
    store: SnapshotStore = memorySnapshotStore,
  ): Promise<FeedLists> {
    const histories = new Map(config.lists.map((list) => [list.name, new ListHistory(list, { keep: config.keepVersions })]));
    const lists = new FeedLists(config, histories, onReport, store);
    // A list another instance published counts as loaded: a source failing here then keeps that list in
    // service for every instance, rather than publishing the little this instance could read.
    for (const name of await store.follow([...histories.values()])) lists.loaded.add(name);
    await lists.reload();
    lists.scheduleRefreshes();
    return lists;
  }

  /**
   * Takes the sources, refresh intervals and feed limits of `config` (a configuration read again, on
   * SIGHUP) and loads every list from them now. The lists themselves cannot change without a restart:
   * `config` must define the same lists as the running one (config-reload.ts makes it so).
   */
  async reconfigure(config: ServerConfig): Promise<ListLoadReport[]> {
    const names = (lists: ServerConfig['lists']) => lists.map((list) => list.name).join('\n');
    if (names(config.lists) !== names(this.config.lists)) throw new RangeError('reconfigure takes the lists the server was started with');
    this.close();
    this.config = config;
    this.scheduleRefreshes();
    return this.reload();
  }

  private scheduleRefreshes(): void {
    for (const list of this.config.lists) {
      const interval = listRefreshMs(list);
      if (interval === undefined) continue;
      // A refresh still under way when the next is due is not doubled up.
      const timer = setInterval(() => {
        if (!this.reloading.has(list.name)) void this.reloadList(list.name);
      }, interval);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Loads every list again now (the operator's reload). */
  async reload(): Promise<ListLoadReport[]> {
    const reports: ListLoadReport[] = [];
    for (const list of this.config.lists) reports.push(await this.reloadList(list.name));
    return reports;
  }

  /** Reloads one list once any reload of it under way has finished. Never rejects: failures are reported. */
  private reloadList(name: string): Promise<ListLoadReport> {
    const previous = this.reloading.get(name) ?? Promise.resolve();
    const next = previous.then(() => this.loadAndPublish(name));
    this.reloading.set(name, next);
    void next.finally(() => {
      if (this.reloading.get(name) === next) this.reloading.delete(name);
    });
    return next;
  }

  private async loadAndPublish(name: string): Promise<ListLoadReport> {
    const list = this.config.lists.find((l) => l.name === name)!;
    const errors: string[] = [];
    let report: ListLoadReport;
    try {
      const loaded: LoadedList = await loadList(list, this.config.feedLimits);
      errors.push(...loaded.errors.map((e) => e.message));
      let published = !(errors.length > 0 && this.loaded.has(name));
      if (published) {
        try {
          await this.store.publish(this.histories.get(name)!, loaded.fullHashes);
          this.loaded.add(name);
        } catch (err) {
          if (!(err instanceof SnapshotStoreError)) throw err;
          errors.push(err.message);
          published = false;
        }
      }
      const firstBadLines = loaded.sources.flatMap(({ source, badLines }) =>
        badLines.slice(0, REPORTED_BAD_LINES_PER_SOURCE).map(({ line, reason }) => ({ source, line, reason })),
      );
      report = { list: name, expressions: loaded.expressions, badLines: loaded.badLines, firstBadLines, errors, published };
    } catch (err) {
      // A refresh runs from a timer: whatever goes wrong is reported, and the list keeps its snapshot.
      errors.push(`reload failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`);
      report = { list: name, expressions: 0, badLines: 0, firstBadLines: [], errors, published: false };
    }
    try {
      this.onReport(report);
    } catch {
      // A failing report callback must not stop the list's refreshes; the report is still returned.
    }
    return report;
  }

  /** Stops the refreshes; what is published stays served. */
  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
  }
}
