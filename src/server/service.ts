// What `sbkit serve` assembles, in order, from settings the CLI made of its flags:
//
//   lists ─────── the embedded demo set (demo.ts)
//               │ a configuration's feeds (feed-lists.ts), published through a snapshot store: this
//               │   process's memory, a folder that keeps them across restarts (lists/disk-snapshot-store.ts),
//               │   or Redis shared with the other instances (redis/redis-snapshot-store.ts)
//               └ a mirror of an upstream (upstream-mirror.ts), its searches cached in Redis when shared
//   load control (guard/load-control.ts), its limits shared through Redis when asked
//   Oblivious HTTP gateway keys (ohttp/key-ring.ts, or ohttp/shared-key-ring.ts through Redis)
//   the HTTP application (app.ts, server.ts), its deadlines and connection caps (http/http-limits.ts), listening
//     on plain HTTP, or with a certificate (tls.ts) on HTTPS with HTTP/2 and HTTP/1.1
//
// A reload (SIGHUP) reads the configuration file and the certificate again, checks both, and applies
// what can change while serving (config-reload.ts): keys, admin token, waits, each list's sources; a
// configuration or certificate that does not check out is refused and the running one kept.
//
// With Redis, every part above starts even when Redis does not answer, serving from this instance's
// memory, and joins the shared state once Redis answers (redis-monitor.ts: its log lines and metrics;
// /readyz says 503 until the lists have joined).
//
// Everything opened is closed in the reverse order, when the service stops or when starting it fails
// half-way: the server first, which lets requests under way finish (connection-drain.ts), then the parts
// behind it, within what remains of the shutdown timeout: a part still closing then (a Redis that stopped
// answering) is left behind, and the log says which.

import { basename } from 'node:path';
import { Registry } from 'prom-client';
import type { ClientEvent } from '../client/options.ts';
import { SbkitError } from '../sbkit-error.ts';
import { planReload } from './operator/config-reload.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from './http/connection-drain.ts';
import { DEMO_LISTED_URL, demoCatalog } from './demo.ts';
import { FeedLists, type ListLoadReport } from './feeds/feed-lists.ts';
import { ConfigError } from './config/config-error.ts';
import { configWarnings, readServerConfig, type ServerConfig } from './config/config.ts';
import { diskEntryEdits, memoryEntryEdits } from './feeds/entry-edits.ts';
import type { HttpLimits } from './http/http-limits.ts';
import { DEFAULT_LOAD_CONTROL_CONFIG, type LoadControlConfig } from './guard/load-control-config.ts';
import { LoadControl } from './guard/load-control.ts';
import { DiskSnapshotStore } from './lists/disk-snapshot-store.ts';
import { RedisSnapshotStore } from './redis/redis-snapshot-store.ts';
import { hashCount } from '../store/hash-list.ts';
import { type GatewayKeys, KeyRing } from './ohttp/key-ring.ts';
import { SharedKeyRing } from './ohttp/shared-key-ring.ts';
import type { ListenAddress } from './http/listen-address.ts';
import { DEFAULT_KEY_PREFIX } from './redis/redis-connection.ts';
import { RedisEntryEdits } from './redis/redis-entry-edits.ts';
import { RedisMonitor } from './redis/redis-monitor.ts';
import { RedisSearchCache } from './redis/redis-search-cache.ts';
import { listedUrl } from './listed-url.ts';
import { createServer, type SafeBrowsingServer, type ServerOptions } from './http/server.ts';
import { describeCertificate, readTlsCredentials, type TlsCredentials, type TlsFiles } from './http/tls.ts';
import { UpstreamMirror } from './proxy/upstream-mirror.ts';

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
      /** The file `config` was read from, read again at a reload. */
      configFile?: string;
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
  /** Serve HTTPS (HTTP/2 and HTTP/1.1) with these files (`--tls-cert`, `--tls-key`), over the configuration's `tls`. */
  tls?: TlsFiles;
  /** How long stopping lets requests under way finish; 10 s by default (server.ts). */
  shutdownTimeoutMs?: number;
  /** Where the service tells what it does and what fails. */
  log: (message: string) => void;
  /** Serve `/admin/*` and `/metrics` only here (`--admin-listen`); else the configuration's `adminListen`, if any. */
  adminListen?: ListenAddress;
  /**
   * The admin token given outside the configuration (SBKIT_ADMIN_TOKEN), checked: it wins over the
   * configuration's `adminToken` at start and at every reload, and turns the operator endpoints on
   * without a configuration too.
   */
  adminToken?: string;
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
  /** A URL its threat lists hold, to try it with (a check of it answers UNSAFE); undefined when none can be named (listed-url.ts). */
  listedUrl: string | undefined;
  /**
   * Reads the configuration file and the certificate again and applies what may change while serving
   * (SIGHUP). A configuration or certificate that does not check out is refused, with a log line, and
   * the running one kept; settings that take a restart keep their running values, each with a log line.
   * Resolves to whether the reload was applied. Reloads run one at a time.
   */
  reload(): Promise<boolean>;
  /**
   * Stops listening, lets requests under way finish, then closes everything it opened, in the reverse
   * order, all within the shutdown timeout. Resolves to the parts it stopped waiting for (logged): their
   * connections may keep the process alive, which should then exit.
   */
  close(): Promise<{ cut: string[] }>;
}

interface Closable {
  close(): Promise<void> | void;
}

/**
 * Things opened in turn, closed in the reverse order, each once, whatever the others do. A start that
 * is abandoned (its `signal` aborts: the process was told to stop) stops waiting for the step under way
 * at once: a Redis that never answers or a feed that stalls must not hold a stop.
 */
class Opened {
  private readonly parts: { name: string; close: () => Promise<void> | void }[] = [];

  /** @param signal aborted when the start is to be abandoned. */
  constructor(readonly signal: AbortSignal | undefined) {}

  /** `name` says what it is in the log line of a close that was cut. */
  add<T extends Closable>(name: string, part: T): T {
    this.parts.push({ name, close: () => part.close() });
    return part;
  }

  /** Opens a part with `open` and adds it; a part that opens only after the start was abandoned is closed then. */
  async open<T extends Closable>(name: string, open: () => Promise<T>): Promise<T> {
    const part = await this.step(
      open,
      (late) =>
        void Promise.resolve()
          .then(() => late.close())
          .catch(() => undefined),
    );
    return this.add(name, part);
  }

  /**
   * Runs a step of the start, unless the start was abandoned: then, or once it is while the step is under
   * way, rejects with the signal's reason without waiting for the step, and hands what it gives later to `late`.
   */
  step<T>(run: () => Promise<T>, late: (value: T) => void = () => {}): Promise<T> {
    const { signal } = this;
    if (signal === undefined) return run();
    signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      // The signal's reason: an AbortError unless whoever aborted gave another.
      const abandon = () => reject(signal.reason as Error);
      signal.addEventListener('abort', abandon, { once: true });
      run()
        .finally(() => signal.removeEventListener('abort', abandon))
        .then((value) => (signal.aborted ? late(value) : resolve(value)), reject);
    });
  }

  /**
   * Closes every part, the last opened first. Once `timeoutMs` has passed, the parts not yet closed are
   * told to close all at once and nobody waits for them (a Redis that stopped answering must not hold a
   * stop without end): resolves to their names, and to the errors of parts that failed to close.
   */
  async closeAll(timeoutMs = Number.POSITIVE_INFINITY): Promise<{ cut: string[]; errors: unknown[] }> {
    const errors: unknown[] = [];
    const deadline = performance.now() + timeoutMs;
    const left = this.parts.splice(0).reverse();
    const close = (part: { close: () => Promise<void> | void }) =>
      Promise.resolve()
        .then(() => part.close())
        .catch((error: unknown) => void errors.push(error));
    while (left.length > 0) {
      if (!(await withinTime(close(left[0]!), deadline - performance.now()))) {
        for (const part of left.slice(1)) void close(part);
        return { cut: left.map((part) => part.name), errors };
      }
      left.shift();
    }
    return { cut: [], errors };
  }
}

/** Whether `done` settles within `ms`. */
async function withinTime(done: Promise<void>, ms: number): Promise<boolean> {
  if (ms === Number.POSITIVE_INFINITY) return done.then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([done.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
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
      changingMinimumWaitMs: config.changingMinimumWaitSeconds === undefined ? undefined : config.changingMinimumWaitSeconds * 1000,
      changingWindowMs: config.changingWindowSeconds * 1000,
      positiveCacheDurationMs: config.positiveCacheDurationSeconds * 1000,
      negativeCacheDurationMs: config.negativeCacheDurationSeconds * 1000,
      listCacheSeconds: config.listCacheSeconds,
    },
  };
}

interface Lists {
  options: Omit<ServerOptions, 'host' | 'port' | 'loadControl'>;
  describe: string;
  /** The configuration's `loadControl` section; LC's defaults without a configuration. */
  loadControl: LoadControlConfig;
  /** Takes a configuration's sources (a reload); only for lists from a configuration. */
  reconfigure?: (config: ServerConfig) => Promise<unknown>;
  /** A URL the threat lists hold, when one can be named. */
  listedUrl?: string | undefined;
}

async function openLists(service: ServiceConfig, opened: Opened, monitor: RedisMonitor | undefined): Promise<Lists> {
  const { lists, redis, log } = service;
  if (lists.from === 'demo') {
    return {
      options: { catalog: demoCatalog() },
      describe: 'the embedded demo lists',
      loadControl: DEFAULT_LOAD_CONTROL_CONFIG,
      listedUrl: DEMO_LISTED_URL,
    };
  }
  if (lists.from === 'config') {
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
        ? await opened.open('the lists in Redis', () => RedisSnapshotStore.connect({ ...redis, log, watch: monitor?.watch('lists') }))
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
      log(
        `the edits of ${editable.map((list) => list.name).join(', ')} through POST /admin/lists/NAME/entries are kept in memory ` +
          'and lost at restart: start with --data DIR (or dataDir in the configuration, or --redis) to keep them',
      );
    }
    // The signal cuts the first downloads of the feeds too: nothing is left reading once the start is abandoned.
    const feeds = await opened.open('the feeds', () =>
      FeedLists.start(lists.config, service.onListReport, store, { edits, signal: opened.signal }),
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
  // Proxies keep their own namespace by default: lists mirrored from an upstream must not mix with lists
  // of the same names that instances publish from their own feeds on the same Redis.
  const shared =
    redis === undefined
      ? undefined
      : { ...redis, keyPrefix: redis.keyPrefix === DEFAULT_KEY_PREFIX ? `${DEFAULT_KEY_PREFIX}proxy:` : redis.keyPrefix };
  const store =
    shared === undefined
      ? undefined
      : await opened.open('the lists in Redis', () => RedisSnapshotStore.connect({ ...shared, log, watch: monitor?.watch('lists') }));
  const searchCache =
    shared === undefined
      ? undefined
      : await opened.open('the search cache in Redis', () =>
          RedisSearchCache.connect({ ...shared, log, watch: monitor?.watch('search-cache') }),
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
      // Until a first copy of the upstream's lists (from it, from --data or from the other instances),
      // a proxy would serve empty lists: not ready.
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

/** The metrics of the service's parts, as one registry for `/metrics`; undefined when no part has any. */
function mergedMetrics(registries: (Registry | undefined)[]): Registry | undefined {
  const present = registries.filter((registry) => registry !== undefined);
  return present.length === 0 ? undefined : Registry.merge(present);
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
  return opened.open('load control', () =>
    LoadControl.create({ settings: { ...config.settings, trustedProxies, trustedRelays }, redis, log: service.log }),
  );
}

/**
 * Every server is an Oblivious HTTP gateway too (SB-2): searches may come through a relay. Instances
 * sharing a Redis share their keys, so that a configuration one of them published works with all.
 */
async function openGatewayKeys(service: ServiceConfig, opened: Opened, monitor: RedisMonitor | undefined): Promise<GatewayKeys> {
  if (service.redis === undefined) return KeyRing.create(service.ohttp);
  const { redis } = service;
  return opened.open('the gateway keys in Redis', () =>
    SharedKeyRing.connect({ ...service.ohttp, ...redis, log: service.log, watch: monitor?.watch('ohttp-keys') }),
  );
}

/** The configuration a service runs from, if any, and the file it was read from. */
function configOf(lists: ListSource): { config: ServerConfig; file: string | undefined } | undefined {
  if (lists.from === 'config') return { config: lists.config, file: lists.file };
  if (lists.from === 'upstream' && lists.config !== undefined) return { config: lists.config, file: lists.configFile };
  return undefined;
}

/** A configuration's upstream key does something only for a proxy: anywhere else it is refused, not ignored. */
function refuseIdleUpstreamKey(lists: ListSource, config: ServerConfig, file: string | undefined): void {
  if (lists.from !== 'upstream' && config.upstreamKey !== undefined) {
    throw new ConfigError(
      'upstreamKey',
      'is the key of an upstream to mirror (upstreamKey or upstreamKeyFile); this server mirrors none',
      file,
    );
  }
}

/** `config` with the admin token given outside it, which wins over its own. */
function withAdminToken(service: ServiceConfig, config: ServerConfig): ServerConfig {
  return service.adminToken === undefined ? config : { ...config, adminToken: service.adminToken };
}

/** The service with its configuration's admin token replaced by the one given outside it, if any. */
function withOutsideToken(service: ServiceConfig): ServiceConfig {
  const { lists } = service;
  if (lists.from === 'demo' || lists.config === undefined) return service;
  return { ...service, lists: { ...lists, config: withAdminToken(service, lists.config) } };
}

/** The certificate files to serve: the flags', else the configuration's `tls`. */
function tlsFilesOf(service: ServiceConfig, config: ServerConfig | undefined, file: string | undefined): TlsFiles | undefined {
  if (service.tls !== undefined) return service.tls;
  if (config?.tls === undefined) return undefined;
  return { ...config.tls, origin: { cert: 'tls.cert', key: 'tls.key', ...(file === undefined ? {} : { file }) } };
}

/** Reads the certificate files, and tells the log which certificate is served. */
async function readCertificate(files: TlsFiles, log: (message: string) => void): Promise<TlsCredentials> {
  const credentials = await readTlsCredentials(files);
  log(`TLS certificate ${describeCertificate(credentials.cert)}`);
  return credentials;
}

/** What a reload needs of a running service. */
interface Running {
  service: ServiceConfig;
  server: SafeBrowsingServer;
  lists: Lists;
  /** The configuration in force, and its file; undefined for the demo lists and a proxy without one. */
  config: ServerConfig | undefined;
  file: string | undefined;
  /** Whether the server speaks TLS: switching it on or off takes a restart. */
  tls: boolean;
  /** Set when the service stops: a reload under way is abandoned. */
  stopping: boolean;
}

/**
 * A reload: the file read again and checked, the certificate too, before anything changes; then what
 * may change applied (config-reload.ts). Resolves to the configuration now in force, or undefined when
 * the reload was refused.
 */
async function reloadService(running: Running): Promise<{ config: ServerConfig | undefined } | undefined> {
  const { service, server, lists, file } = running;
  const { log } = service;
  let next = running.config;
  try {
    if (file !== undefined) next = withAdminToken(service, await readServerConfig(file));
    if (service.lists.from === 'upstream' && next !== undefined && next.lists.length > 0) {
      throw new ConfigError('lists', 'a proxy serves its upstream\'s lists; leave "lists" out of its configuration', file);
    }
    if (next !== undefined) refuseIdleUpstreamKey(service.lists, next, file);
  } catch (error) {
    if (!(error instanceof SbkitError)) throw error;
    log(`reload refused, the running configuration is kept: ${error.message}`);
    return undefined;
  }
  const plan =
    running.config === undefined || next === undefined
      ? undefined
      : planReload(withoutFlagTls(service, running.config), withoutFlagTls(service, next));
  const files = tlsFilesOf(service, plan?.config, file);
  let credentials: TlsCredentials | undefined;
  if (files !== undefined && running.tls) {
    try {
      credentials = await readTlsCredentials(files);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      log(`reload refused, the running configuration and certificate are kept: ${error.message}`);
      return undefined;
    }
  }
  for (const line of plan?.restartNeeded ?? []) log(`reload: ${line}`);
  for (const warning of next === undefined ? [] : configWarnings(next)) log(`reload: ${warning}`);
  // The certificate first: the lists are downloaded again below, and a slow feed must not keep a
  // renewed certificate (perhaps replacing one about to expire) out of service meanwhile.
  if (credentials !== undefined) {
    server.setCertificate(credentials);
    log(`TLS certificate ${describeCertificate(credentials.cert)}`);
  }
  if (plan !== undefined) {
    server.reconfigure(accessOptions(plan.config));
    await lists.reconfigure?.(plan.config);
  }
  // Stopped meanwhile: the lists abandoned their downloads and published nothing.
  if (running.stopping) {
    log('reload abandoned: stopping');
    return undefined;
  }
  const what = [file, credentials === undefined ? undefined : 'the certificate'].filter((part) => part !== undefined);
  log(`reloaded ${what.length === 0 ? 'nothing (no configuration file, no certificate)' : what.join(' and ')}; flags take a restart`);
  return { config: plan?.config ?? next };
}

/** With TLS set by flags, the configuration's `tls` plays no part, and a change of it none in a reload. */
function withoutFlagTls(service: ServiceConfig, config: ServerConfig): ServerConfig {
  if (service.tls === undefined) return config;
  const rest = { ...config };
  delete rest.tls;
  return rest;
}

/**
 * Stops the server, if it was made, then closes the parts opened, all within `timeoutMs`: the server lets
 * requests under way finish within it by itself (connection-drain.ts), the parts behind it get what
 * remains. Resolves to the parts left closing (logged) and the errors of those that failed to close.
 */
async function stopAll(
  server: SafeBrowsingServer | undefined,
  opened: Opened,
  timeoutMs: number,
  log: (message: string) => void,
): Promise<{ cut: string[]; errors: unknown[] }> {
  const stopBy = performance.now() + timeoutMs;
  const serverError = await server?.close().then(
    () => undefined,
    (error: unknown) => error,
  );
  const { cut, errors } = await opened.closeAll(stopBy - performance.now());
  if (cut.length > 0) log(`stopped without waiting for ${cut.join(', ')} to close: the ${timeoutMs / 1000} s to stop had passed`);
  if (serverError !== undefined) errors.unshift(serverError);
  return { cut, errors };
}

/**
 * Starts the service and resolves once it listens. Rejects, having closed whatever it opened (within the
 * shutdown timeout), with ConfigError, SnapshotStoreError or RedisConnectionError for parts that cannot
 * start (a Redis URL that is none, a data folder that cannot be created or written; a Redis that does not
 * answer is no reason not to start; certificate files that cannot be read or do not match), and with
 * ListenError when the address cannot be listened on. When `signal` aborts (the process is told to stop)
 * the start is abandoned: it rejects with the signal's reason without waiting for the step under way (a
 * Redis or a feed that does not answer), and a part that opens after that is closed as it opens.
 */
export async function startService(given: ServiceConfig, { signal }: { signal?: AbortSignal } = {}): Promise<Service> {
  const service = withOutsideToken(given);
  const opened = new Opened(signal);
  let created: SafeBrowsingServer | undefined;
  const monitor = service.redis === undefined ? undefined : new RedisMonitor(service.log);
  const shutdownTimeoutMs = service.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  try {
    const source = configOf(service.lists);
    if (source !== undefined) refuseIdleUpstreamKey(service.lists, source.config, source.file);
    for (const warning of source === undefined ? [] : configWarnings(source.config)) service.log(warning);
    const tlsFiles = tlsFilesOf(service, source?.config, source?.file);
    // Before anything else opens: a certificate that cannot be served stops the start at once.
    const tls = tlsFiles === undefined ? undefined : await opened.step(() => readCertificate(tlsFiles, service.log));
    const lists = await openLists(service, opened, monitor);
    const loadControl = await openLoadControl(service, lists.loadControl, opened, monitor);
    const ohttpKeys = await openGatewayKeys(service, opened, monitor);
    const config = source?.config;
    const operator = {
      // The configuration's token is in lists.options; without a configuration, only this one.
      ...(config === undefined && service.adminToken !== undefined ? { adminToken: service.adminToken } : {}),
      adminListen: service.adminListen ?? config?.adminListen,
      trustedProxies: [...(lists.loadControl.settings.trustedProxies ?? []), ...service.trustedProxies],
      log: service.log,
    };
    const { settings } = lists.loadControl;
    const server = (created = createServer({
      ...lists.options,
      ...operator,
      loadControl,
      ohttpKeys,
      metrics: mergedMetrics([lists.options.metrics, monitor?.metrics]),
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
      ...(tls === undefined ? {} : { tls }),
      shutdownTimeoutMs,
    }));
    const url = await opened.step(() => server.listen());
    const running: Running = { service, server, lists, config, file: source?.file, tls: tls !== undefined, stopping: false };
    let reloading: Promise<boolean> = Promise.resolve(true);
    return {
      url,
      adminUrl: server.adminUrl,
      describe: lists.describe,
      lists: lists.options.catalog
        .all()
        .map((history) => ({ name: history.definition.name, entries: hashCount(history.current().served()) })),
      listedUrl: lists.listedUrl,
      reload: () => {
        reloading = reloading.then(async () => {
          const outcome = await reloadService(running);
          if (outcome !== undefined) running.config = outcome.config;
          return outcome !== undefined;
        });
        // A reload that failed unexpectedly must not stop the next ones.
        const current = reloading;
        reloading = current.catch(() => false);
        return current;
      },
      close: async () => {
        running.stopping = true;
        const { cut, errors } = await stopAll(server, opened, shutdownTimeoutMs, service.log);
        if (errors.length > 0) throw new AggregateError(errors, 'parts of the service failed to close');
        return { cut };
      },
    };
  } catch (error) {
    // Bounded as a stop is: a part that does not close (a Redis that stopped answering) must not keep a
    // start that failed, or was abandoned, from ending.
    await stopAll(created, opened, shutdownTimeoutMs, service.log);
    throw error;
  }
}
