// What `sbkit serve` assembles, in order, from settings the CLI made of its flags:
//
//   lists ─────── the embedded demo set (demo.ts)
//               │ a configuration's feeds (feed-lists.ts), published through a snapshot store: this
//               │   process's memory, a folder that keeps them across restarts (lists/disk-snapshot-store.ts),
//               │   or Redis shared with the other instances (lists/redis-snapshot-store.ts)
//               └ a mirror of an upstream (upstream-mirror.ts), its searches cached in Redis when shared
//   load control (guard/load-control.ts), its limits shared through Redis when asked
//   Oblivious HTTP gateway keys (ohttp/key-ring.ts, or ohttp/shared-key-ring.ts through Redis)
//   the HTTP application (app.ts, server.ts), its deadlines and connection caps (guard/http-limits.ts), listening
//
// With Redis, every part above starts even when Redis does not answer, serving from this instance's
// memory, and joins the shared state once Redis answers (redis-monitor.ts: its log lines and metrics;
// /readyz says 503 until the lists have joined).
//
// Everything opened is closed by one function, in the reverse order, when the service stops or when
// starting it fails half-way.

import { basename } from 'node:path';
import type { ClientEvent } from '../client/options.ts';
import { demoCatalog } from './demo.ts';
import { FeedLists, type ListLoadReport } from './feed-lists.ts';
import type { ServerConfig } from './feeds/config.ts';
import type { HttpLimits } from './guard/http-limits.ts';
import { DEFAULT_LOAD_CONTROL_CONFIG, type LoadControlConfig } from './guard/load-control-config.ts';
import { LoadControl } from './guard/load-control.ts';
import { ConfigError } from './feeds/config-error.ts';
import { DiskSnapshotStore } from './lists/disk-snapshot-store.ts';
import { RedisSnapshotStore } from './lists/redis-snapshot-store.ts';
import { hashCount } from '../store/hash-list.ts';
import { type GatewayKeys, KeyRing } from './ohttp/key-ring.ts';
import { SharedKeyRing } from './ohttp/shared-key-ring.ts';
import type { ListenAddress } from './listen-address.ts';
import { DEFAULT_KEY_PREFIX } from './redis-connection.ts';
import { RedisMonitor } from './redis-monitor.ts';
import { RedisSearchCache } from './redis-search-cache.ts';
import { createServer, type ServerOptions } from './server.ts';
import { UpstreamMirror } from './upstream-mirror.ts';

/** Where the lists come from. */
export type ListSource =
  | { from: 'demo' }
  | {
      from: 'config';
      file: string;
      config: ServerConfig;
      /** The folder that keeps the published versions across restarts (not with Redis, which keeps them for all instances). */
      dataDir?: string | undefined;
    }
  /** A proxy's configuration holds everything but lists: keys, admin token, waits, load control. */
  | {
      from: 'upstream';
      url: string;
      apiKey: string | undefined;
      protocol: 'v5' | 'v4';
      dataDir: string | undefined;
      config: ServerConfig | undefined;
    };

export interface ServiceConfig {
  host: string;
  port: number;
  lists: ListSource;
  /** Share lists, search answers, limits and gateway keys with the other instances through this Redis. */
  redis: { url: string; keyPrefix: string } | undefined;
  /** False: no load control at all, whatever the configuration says. */
  loadControl: boolean;
  /** Trusted proxies and relays besides the configuration's. */
  trustedProxies: readonly string[];
  trustedRelays: readonly string[];
  /** Origins whose scripts may call the API, besides the configuration's `cors.origins`. */
  corsOrigins?: readonly string[];
  /** How long each gateway key is the current one, and how long a replaced one is still accepted. */
  ohttp: { rotateMs: number; overlapMs: number };
  /** Deadlines and connection caps set by flags, over the configuration's `http` section. */
  httpLimits?: Partial<HttpLimits>;
  /** Where the service tells what it does and what fails. */
  log: (message: string) => void;
  /** Serve `/admin/*` and `/metrics` only here (`--admin-listen`); else the configuration's `adminListen`, if any. */
  adminListen?: ListenAddress;
  /** Each (re)load of a configuration's list. */
  onListReport?: (report: ListLoadReport) => void;
  /** The events of a mirror's client. */
  onClientEvent?: (event: ClientEvent) => void;
}

export interface Service {
  /** The base URL it listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The operator listener's base URL, when `/admin/*` and `/metrics` have one of their own. */
  adminUrl: string | undefined;
  /** What it serves, in words. */
  describe: string;
  /** The lists served, with their entries. */
  lists: { name: string; entries: number }[];
  /** Stops listening, then closes everything it opened, in the reverse order. */
  close(): Promise<void>;
}

/** Things opened in turn, closed in the reverse order, each once, whatever the others do. */
class Opened {
  private readonly closers: (() => Promise<void> | void)[] = [];

  add<T extends { close(): Promise<void> | void }>(part: T): T {
    this.closers.push(() => part.close());
    return part;
  }

  async closeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'parts of the service failed to close');
  }
}

/** What a configuration sets besides its lists: who may ask, the operator's token, the waits served. */
function accessOptions(config: ServerConfig): Pick<ServerOptions, 'apiKeys' | 'adminToken' | 'settings' | 'corsOrigins'> {
  return {
    apiKeys: config.apiKeys,
    corsOrigins: config.corsOrigins,
    adminToken: config.adminToken,
    settings: {
      minimumWaitMs: config.minimumWaitSeconds * 1000,
      cacheDurationMs: config.cacheDurationSeconds * 1000,
      listCacheSeconds: config.listCacheSeconds,
    },
  };
}

interface Lists {
  options: Omit<ServerOptions, 'host' | 'port' | 'loadControl'>;
  describe: string;
  /** The configuration's `loadControl` section; LC's defaults without a configuration. */
  loadControl: LoadControlConfig;
}

async function openLists(service: ServiceConfig, opened: Opened, monitor: RedisMonitor | undefined): Promise<Lists> {
  const { lists, redis, log } = service;
  if (lists.from === 'demo') {
    return { options: { catalog: demoCatalog() }, describe: 'the embedded demo lists', loadControl: DEFAULT_LOAD_CONTROL_CONFIG };
  }
  if (lists.from === 'config') {
    if (redis !== undefined && lists.dataDir !== undefined) {
      throw new ConfigError(
        'dataDir',
        "keeps one instance's lists on disk; with Redis, Redis keeps them for every instance: use one or the other",
        lists.file,
      );
    }
    const store =
      redis !== undefined
        ? opened.add(await RedisSnapshotStore.connect({ ...redis, log, watch: monitor?.watch('lists') }))
        : lists.dataDir !== undefined
          ? opened.add(await DiskSnapshotStore.open(lists.dataDir, { log }))
          : undefined;
    const feeds = opened.add(await FeedLists.start(lists.config, service.onListReport, store));
    return {
      options: {
        catalog: feeds.catalog,
        reload: () => feeds.reload(),
        readiness: () => (store instanceof RedisSnapshotStore ? store.notReadyReason() : null),
        ...accessOptions(lists.config),
      },
      // Only the file's name: the status page and /status.json are public, the layout of the disk is not.
      describe: basename(lists.file),
      loadControl: lists.config.loadControl,
    };
  }
  // Proxies keep their own namespace by default: lists mirrored from an upstream must not mix with lists
  // of the same names that instances publish from their own feeds on the same Redis.
  const shared =
    redis === undefined
      ? undefined
      : { ...redis, keyPrefix: redis.keyPrefix === DEFAULT_KEY_PREFIX ? `${DEFAULT_KEY_PREFIX}proxy:` : redis.keyPrefix };
  const store =
    shared === undefined ? undefined : opened.add(await RedisSnapshotStore.connect({ ...shared, log, watch: monitor?.watch('lists') }));
  const searchCache =
    shared === undefined
      ? undefined
      : opened.add(await RedisSearchCache.connect({ ...shared, log, watch: monitor?.watch('search-cache') }));
  const mirror = opened.add(
    await UpstreamMirror.start({
      url: lists.url,
      apiKey: lists.apiKey,
      protocol: lists.protocol,
      dataDir: lists.dataDir,
      keepVersions: lists.config?.keepVersions,
      store,
      searchCache,
      searchLimits: lists.config?.upstreamSearches,
      log,
      onEvent: (event) => {
        if (event.type === 'update') log(`mirrored ${event.lists.join(', ')} from ${lists.url}`);
        if (event.type === 'update-failed')
          log(`${lists.url} failed (${event.error.message}); next try ${new Date(event.nextUpdateAt).toISOString()}`);
        service.onClientEvent?.(event);
      },
    }),
  );
  return {
    options: {
      catalog: mirror.catalog,
      fullHashes: mirror.fullHashes,
      listReady: (name) => mirror.listReady(name),
      readiness: () => store?.notReadyReason() ?? null,
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

/** The LC-5 gate, unless switched off; with Redis its limits are shared by the instances. */
async function openLoadControl(
  service: ServiceConfig,
  config: LoadControlConfig,
  opened: Opened,
  monitor: RedisMonitor | undefined,
): Promise<LoadControl | undefined> {
  if (!service.loadControl || !config.enabled) return undefined;
  const trustedProxies = [...(config.settings.trustedProxies ?? []), ...service.trustedProxies];
  const trustedRelays = [...(config.settings.trustedRelays ?? []), ...service.trustedRelays];
  const redis = service.redis === undefined ? undefined : { ...service.redis, watch: monitor?.watch('load-control') };
  return opened.add(await LoadControl.create({ settings: { ...config.settings, trustedProxies, trustedRelays }, redis, log: service.log }));
}

/**
 * Every server is an Oblivious HTTP gateway too (SB-2): searches may come through a relay. Instances
 * sharing a Redis share their keys, so that a configuration one of them published works with all.
 */
async function openGatewayKeys(service: ServiceConfig, opened: Opened, monitor: RedisMonitor | undefined): Promise<GatewayKeys> {
  if (service.redis === undefined) return KeyRing.create(service.ohttp);
  return opened.add(
    await SharedKeyRing.connect({ ...service.ohttp, ...service.redis, log: service.log, watch: monitor?.watch('ohttp-keys') }),
  );
}

/**
 * Starts the service and resolves once it listens. Rejects, having closed whatever it opened, with
 * ConfigError, SnapshotStoreError or RedisConnectionError for parts that cannot start (a Redis URL that
 * is none, a data folder that cannot be used; a Redis that does not answer is no reason not to start),
 * and with ListenError when the address cannot be listened on.
 */
export async function startService(service: ServiceConfig): Promise<Service> {
  const opened = new Opened();
  const monitor = service.redis === undefined ? undefined : new RedisMonitor(service.log);
  try {
    const lists = await openLists(service, opened, monitor);
    const loadControl = await openLoadControl(service, lists.loadControl, opened, monitor);
    const ohttpKeys = await openGatewayKeys(service, opened, monitor);
    const config = service.lists.from === 'demo' ? undefined : service.lists.config;
    const operator = {
      adminListen: service.adminListen ?? config?.adminListen,
      trustedProxies: [...(lists.loadControl.settings.trustedProxies ?? []), ...service.trustedProxies],
      log: service.log,
    };
    const { settings } = lists.loadControl;
    const server = opened.add(
      createServer({
        ...lists.options,
        ...operator,
        loadControl,
        ohttpKeys,
        metrics: monitor?.metrics,
        corsOrigins: [...(lists.options.corsOrigins ?? []), ...(service.corsOrigins ?? [])],
        serving: lists.describe,
        host: service.host,
        port: service.port,
        httpLimits: { ...config?.http, ...service.httpLimits },
        // Proxies and relays carry many clients each: no cap on their connections per address.
        trustedPeers: [
          ...(settings.trustedProxies ?? []),
          ...(settings.trustedRelays ?? []),
          ...service.trustedProxies,
          ...service.trustedRelays,
        ],
      }),
    );
    const url = await server.listen();
    return {
      url,
      adminUrl: server.adminUrl,
      describe: lists.describe,
      lists: lists.options.catalog
        .all()
        .map((history) => ({ name: history.definition.name, entries: hashCount(history.current().served()) })),
      close: () => opened.closeAll(),
    };
  } catch (error) {
    await opened.closeAll().catch(() => undefined);
    throw error;
  }
}
