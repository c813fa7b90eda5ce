import type { ServerConfig } from './feeds/config.ts';
import { listRefreshMs, loadList, type LoadedList } from './feeds/feed-source.ts';
import { ListCatalog } from './catalog.ts';
import { ListHistory } from './lists/list-history.ts';

/** What one (re)load of a list did, for logs and the operator's reload endpoint. */
export interface ListLoadReport {
  list: string;
  expressions: number;
  badLines: number;
  /** Sources that failed, as messages. */
  errors: string[];
  /** False when a failed source kept the previous snapshot in service. */
  published: boolean;
}

/**
 * The lists of a configuration, loaded from their feeds, published as snapshots and refreshed on their
 * sources' intervals. A refresh in which a source fails keeps the list as it was, rather than removing
 * that source's entries from every client only to add them back an hour later.
 */
export class FeedLists {
  readonly catalog: ListCatalog;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly loaded = new Set<string>();

  private constructor(
    private readonly config: ServerConfig,
    private readonly histories: Map<string, ListHistory>,
    private readonly onReport: (report: ListLoadReport) => void,
  ) {
    this.catalog = new ListCatalog(histories.values());
  }

  /** Loads every list once, then keeps refreshing the ones whose sources have intervals. */
  static async start(config: ServerConfig, onReport: (report: ListLoadReport) => void = () => {}): Promise<FeedLists> {
    const histories = new Map(config.lists.map((list) => [list.name, new ListHistory(list, { keep: config.keepVersions })]));
    const lists = new FeedLists(config, histories, onReport);
    await lists.reload();
    for (const list of config.lists) {
      const interval = listRefreshMs(list);
      if (interval === undefined) continue;
      const timer = setInterval(() => void lists.reloadList(list.name), interval);
      timer.unref();
      lists.timers.push(timer);
    }
    return lists;
  }

  /** Loads every list again now (the operator's reload). */
  async reload(): Promise<ListLoadReport[]> {
    const reports: ListLoadReport[] = [];
    for (const list of this.config.lists) reports.push(await this.reloadList(list.name));
    return reports;
  }

  private async reloadList(name: string): Promise<ListLoadReport> {
    const list = this.config.lists.find((l) => l.name === name)!;
    const loaded: LoadedList = await loadList(list, this.config.feedLimits);
    const keepPrevious = loaded.errors.length > 0 && this.loaded.has(name);
    if (!keepPrevious) {
      this.histories.get(name)!.publish(loaded.fullHashes);
      this.loaded.add(name);
    }
    const report = {
      list: name,
      expressions: loaded.expressions,
      badLines: loaded.badLines,
      errors: loaded.errors.map((e) => e.message),
      published: !keepPrevious,
    };
    this.onReport(report);
    return report;
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
  }
}
