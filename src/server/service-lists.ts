// Which lists `sbkit serve` serves, and what opens with them: the embedded demo set; a configuration's
// feeds, published through a snapshot store (this process's memory, a folder that keeps them across
// restarts, or Redis shared with the other instances) with the admin's entry edits kept alike; or a
// mirror of an upstream, its lists and search answers shared through Redis when there is one.

import { basename } from 'node:path';
import { DEMO_LISTED_URL, demoCatalog } from './demo.ts';
import { ConfigError } from './config/config-error.ts';
import type { ServerConfig } from './config/config.ts';
import { diskEntryEdits, memoryEntryEdits } from './feeds/entry-edits.ts';
import { FeedLists } from './feeds/feed-lists.ts';
import { DEFAULT_LOAD_CONTROL_CONFIG, type LoadControlConfig } from './guard/load-control-config.ts';
import type { ServerOptions } from './http/server.ts';
import { DiskSnapshotStore } from './lists/disk-snapshot-store.ts';
import { listedUrl } from './listed-url.ts';
import { MemoryUpstreamBudget } from './proxy/upstream-budget.ts';
import { UpstreamMirror } from './proxy/upstream-mirror.ts';
import { upstreamSearchLimits } from './proxy/upstream-searches.ts';
import { DEFAULT_KEY_PREFIX } from './redis/redis-connection.ts';
import { RedisEntryEdits } from './redis/redis-entry-edits.ts';
import type { RedisMonitor } from './redis/redis-monitor.ts';
import { RedisSearchCache } from './redis/redis-search-cache.ts';
import { RedisSnapshotStore } from './redis/redis-snapshot-store.ts';
import { RedisUpstreamBudget } from './redis/redis-upstream-budget.ts';
import { accessOptions, clockOf, type ListSource, type LoggingService } from './service-config.ts';
import type { Opened } from './service-lifecycle.ts';

/** The lists served, and what the HTTP application takes of them. */
export interface Lists {
  options: Omit<ServerOptions, 'host' | 'port' | 'loadControl'>;
  describe: string;
  /** The configuration's `loadControl` section; LC's defaults without a configuration. */
  loadControl: LoadControlConfig;
  /** Takes a configuration's sources (a reload); only for lists from a configuration. */
  reconfigure?: (config: ServerConfig) => Promise<unknown>;
  /** A URL the threat lists hold, when one can be named. */
  listedUrl?: string | undefined;
}

/** Opens the lists `service` names, and the parts behind them, into `opened`. */
export async function openLists(service: LoggingService, opened: Opened, monitor: RedisMonitor | undefined): Promise<Lists> {
  const { lists } = service;
  if (lists.from === 'demo') {
    return {
      options: { catalog: demoCatalog() },
      describe: 'the embedded demo lists',
      loadControl: DEFAULT_LOAD_CONTROL_CONFIG,
      listedUrl: DEMO_LISTED_URL,
    };
  }
  return lists.from === 'config' ? openFeeds(service, lists, opened, monitor) : openMirror(service, lists, opened, monitor);
}

/** A configuration's lists, loaded from their feeds and published through the store it keeps them in. */
async function openFeeds(
  service: LoggingService,
  lists: Extract<ListSource, { from: 'config' }>,
  opened: Opened,
  monitor: RedisMonitor | undefined,
): Promise<Lists> {
  const { redis, log } = service;
  const { dataDir } = lists;
  if (redis !== undefined && dataDir !== undefined) {
    throw new ConfigError(
      'dataDir',
      "keeps one instance's lists on disk; with Redis, Redis keeps them for every instance: use one or the other",
      lists.file,
    );
  }
  const store =
    redis !== undefined
      ? await opened.open('the lists in Redis', () =>
          RedisSnapshotStore.connect({ ...redis, log, watch: monitor?.watch('lists'), clock: clockOf(service) }),
        )
      : dataDir !== undefined
        ? await opened.open('the data folder', () => DiskSnapshotStore.open(dataDir, { log }))
        : undefined;
  const edits =
    redis !== undefined
      ? await opened.open('the entry edits in Redis', () => RedisEntryEdits.connect({ ...redis, log, watch: monitor?.watch('lists') }))
      : dataDir !== undefined
        ? await opened.step(() => diskEntryEdits(dataDir))
        : memoryEntryEdits();
  const editable = lists.config.lists.filter((list) => list.sources.some((source) => source.kind === 'entries'));
  if (edits.keeping === 'memory' && editable.length > 0) {
    log.warn(
      `the edits of ${editable.map((list) => list.name).join(', ')} through POST /admin/lists/NAME/entries are kept in memory ` +
        'and lost at restart: start with --data DIR (or dataDir in the configuration, or --redis) to keep them',
    );
  }
  // The signal cuts the first downloads of the feeds too: nothing is left reading once the start is abandoned.
  const feeds = await opened.open('the feeds', () =>
    FeedLists.start(lists.config, service.onListReport, store, { edits, signal: opened.signal, clock: clockOf(service) }),
  );
  return {
    options: {
      catalog: feeds.catalog,
      reload: () => feeds.reload(),
      feeds: () => feeds.sourceStatus(),
      metrics: feeds.metrics,
      lists: feeds,
      // The lists are published once before the server listens (FeedLists.start): ready unless Redis is awaited.
      readiness: () => (store instanceof RedisSnapshotStore ? store.notReadyReason() : null),
      ...accessOptions(lists.config),
    },
    // Only the file's name: the status page and /status.json are public, the layout of the disk is not.
    describe: basename(lists.file),
    loadControl: lists.config.loadControl,
    reconfigure: (config) => feeds.reconfigure(config),
    listedUrl: listedUrl(lists.config.lists, feeds.catalog),
  };
}

/** An upstream's lists, mirrored, and its search answers, cached; both shared through Redis when there is one. */
async function openMirror(
  service: LoggingService,
  lists: Extract<ListSource, { from: 'upstream' }>,
  opened: Opened,
  monitor: RedisMonitor | undefined,
): Promise<Lists> {
  const { redis, log } = service;
  // Proxies keep their own namespace by default: lists mirrored from an upstream must not mix with lists
  // of the same names that instances publish from their own feeds on the same Redis.
  const shared =
    redis === undefined
      ? undefined
      : { ...redis, keyPrefix: redis.keyPrefix === DEFAULT_KEY_PREFIX ? `${DEFAULT_KEY_PREFIX}proxy:` : redis.keyPrefix };
  const store =
    shared === undefined
      ? undefined
      : await opened.open('the lists in Redis', () =>
          RedisSnapshotStore.connect({ ...shared, log, watch: monitor?.watch('lists'), clock: clockOf(service) }),
        );
  const searchCache =
    shared === undefined
      ? undefined
      : await opened.open('the search cache in Redis', () =>
          RedisSearchCache.connect({ ...shared, log, watch: monitor?.watch('search-cache') }),
        );
  // One bucket and one set of shares for the instances, each falling back to its own while Redis is away.
  const searchLimits = upstreamSearchLimits(lists.config?.upstreamSearches ?? {});
  const searchBudget =
    shared === undefined
      ? undefined
      : await opened.open('the upstream budget in Redis', () =>
          RedisUpstreamBudget.connect({
            ...shared,
            log,
            watch: monitor?.watch('upstream-budget'),
            limits: searchLimits,
            fallback: new MemoryUpstreamBudget(searchLimits, clockOf(service)),
          }),
        );
  const mirror = await opened.open('the upstream mirror', () =>
    UpstreamMirror.start({
      url: lists.url,
      apiKey: lists.apiKey,
      protocol: lists.protocol,
      dataDir: lists.dataDir,
      keepVersions: lists.config?.keepVersions,
      store,
      searchCache,
      searchLimits,
      searchClock: clockOf(service),
      searchBudget,
      log,
      onEvent: (event) => {
        if (event.type === 'update') log.info(`mirrored ${event.lists.join(', ')} from ${lists.url}`);
        if (event.type === 'update-failed')
          log.warn(`${lists.url} failed (${event.error.message}); next try ${new Date(event.nextUpdateAt).toISOString()}`);
        service.onClientEvent?.(event);
      },
    }),
  );
  return {
    options: {
      catalog: mirror.catalog,
      fullHashes: mirror.fullHashes,
      metrics: searchBudget?.metrics,
      listUnavailable: (name) => mirror.listUnavailable(name),
      // Until a first copy of the upstream's lists (from it, from --data or from the other instances),
      // a proxy would serve empty lists: not ready. A copy that stops being current later leaves it
      // ready: every instance meets an upstream outage at once, and taking them all out of the pool
      // would serve nobody; the lists' requests get 503 saying why, searches go on, the status page
      // shows it (docs/operations.md).
      readiness: () =>
        store?.notReadyReason() ??
        (mirror.catalog.all().some((history) => mirror.listReady(history.definition.name)) ? null : `no copy of ${lists.url}'s lists yet`),
      // SB-3: verdicts from Google's data say so on the lookup page; another upstream's do not.
      googleData: isGoogle(lists.url),
      ...(lists.config === undefined ? {} : accessOptions(lists.config)),
    },
    describe: `a mirror of ${lists.url}${redis === undefined ? '' : ' shared through Redis'}`,
    loadControl: lists.config?.loadControl ?? DEFAULT_LOAD_CONTROL_CONFIG,
  };
}

function isGoogle(upstream: string): boolean {
  try {
    return new URL(upstream).hostname.endsWith('.googleapis.com');
  } catch {
    return false;
  }
}
