// What `sbkit serve` runs: the lists (a configuration's feeds, an upstream's mirror or the demo set),
// load control and the Oblivious HTTP gateway's keys, assembled into a server that runs until stopped.

import { demoCatalog } from '../server/demo.ts';
import { ConfigError } from '../server/feeds/config-error.ts';
import { readServerConfig, type ServerConfig } from '../server/feeds/config.ts';
import { FeedLists } from '../server/feed-lists.ts';
import { RedisSnapshotStore } from '../server/lists/redis-snapshot-store.ts';
import { SnapshotStoreError } from '../server/lists/snapshot-store-error.ts';
import { hashCount } from '../server/lists/sorted-hashes.ts';
import { createServer, type ServerOptions } from '../server/server.ts';
import { UpstreamMirror } from '../server/upstream-mirror.ts';
import { DEFAULT_KEY_PREFIX, RedisConnectionError } from '../server/redis-connection.ts';
import { TrustedProxies } from '../server/guard/client-address.ts';
import { LoadControl } from '../server/guard/load-control.ts';
import { type GatewayKeys, KeyRing } from '../server/ohttp/key-ring.ts';
import { SharedKeyRing } from '../server/ohttp/shared-key-ring.ts';
import { DEFAULT_LOAD_CONTROL_CONFIG, type LoadControlConfig } from '../server/guard/load-control-config.ts';
import { RedisSearchCache } from '../server/redis-search-cache.ts';
import { reportDatabaseEvent } from './client-events.ts';
import { EXIT, type CliIo, type ExitStatus, untilStopped, UsageError } from './io.ts';

export interface ServeFlags {
  host: string;
  port: string;
  config?: string;
  redis?: string;
  redisPrefix: string;
  upstream?: string;
  upstreamKey?: string;
  upstreamProtocol: 'v5' | 'v4';
  data?: string;
  /** False with --no-load-control. */
  loadControl: boolean;
  trustedProxy?: string[];
  trustedRelay?: string[];
  ohttpRotate: string;
  ohttpOverlap: string;
}

/** What a mode of `serve` contributes: the lists and searches to serve, and how to stop. */
interface Setup {
  options: Omit<ServerOptions, 'host' | 'port' | 'loadControl'>;
  describe: string;
  /** The configuration's `loadControl` section; LC's defaults without a configuration. */
  loadControl: LoadControlConfig;
  close(): Promise<void>;
}

/** What a configuration sets besides its lists: who may ask, the operator's token, the waits served. */
function accessOptions(config: ServerConfig): Pick<ServerOptions, 'apiKeys' | 'adminToken' | 'settings'> {
  return {
    apiKeys: config.apiKeys,
    adminToken: config.adminToken,
    settings: { minimumWaitMs: config.minimumWaitSeconds * 1000, cacheDurationMs: config.cacheDurationSeconds * 1000 },
  };
}

/** Lists from the feeds of a configuration file, shared through Redis when asked. */
async function configSetup(flags: ServeFlags, configFile: string, io: CliIo): Promise<Setup> {
  const config = await readServerConfig(configFile);
  const store =
    flags.redis === undefined
      ? undefined
      : await RedisSnapshotStore.connect({
          url: flags.redis,
          keyPrefix: flags.redisPrefix,
          log: (message) => io.err(`sbkit serve: ${message}\n`),
        });
  try {
    const feeds = await FeedLists.start(
      config,
      (report) => {
        const problems = report.errors.length === 0 ? '' : `; failed sources: ${report.errors.join('; ')}`;
        io.err(
          `sbkit serve: list ${report.list}: ${report.expressions} entries, ${report.badLines} bad lines${problems}${report.published ? '' : ' (previous version kept)'}\n`,
        );
        for (const bad of report.firstBadLines) io.err(`sbkit serve:   ${bad.source}, line ${bad.line}: ${bad.reason}\n`);
      },
      store,
    );
    return {
      options: { catalog: feeds.catalog, reload: () => feeds.reload(), ...accessOptions(config) },
      describe: configFile,
      loadControl: config.loadControl,
      close: async () => {
        feeds.close();
        await store?.close();
      },
    };
  } catch (err) {
    await store?.close();
    throw err;
  }
}

/**
 * Proxy mode: the upstream's lists mirrored, searches answered from a cache and the upstream (SB-11);
 * with --redis, instances share the mirrored lists' versions and the upstream's search answers.
 */
async function upstreamSetup(flags: ServeFlags, upstream: string, io: CliIo): Promise<Setup> {
  // A proxy's configuration holds everything but lists: keys, admin token, waits, load control.
  const config = flags.config === undefined ? undefined : await readServerConfig(flags.config);
  if (config !== undefined && config.lists.length > 0) {
    throw new UsageError(
      `${flags.config}: a proxy serves its upstream's lists; leave "lists" out of the configuration given with --upstream`,
    );
  }
  const log = (message: string) => io.err(`sbkit serve: ${message}\n`);
  const shared: { close(): Promise<void> }[] = [];
  const closeShared = async () => {
    for (const part of shared) await part.close();
  };
  // Proxies keep their own namespace by default: lists mirrored from an upstream must not mix with
  // lists of the same names that instances publish from their own feeds on the same Redis.
  const keyPrefix = flags.redisPrefix === DEFAULT_KEY_PREFIX ? `${DEFAULT_KEY_PREFIX}proxy:` : flags.redisPrefix;
  try {
    const store = flags.redis === undefined ? undefined : await RedisSnapshotStore.connect({ url: flags.redis, keyPrefix, log });
    if (store !== undefined) shared.push(store);
    const searchCache = flags.redis === undefined ? undefined : await RedisSearchCache.connect({ url: flags.redis, keyPrefix, log });
    if (searchCache !== undefined) shared.push(searchCache);
    const mirror = await UpstreamMirror.start({
      url: upstream,
      apiKey: flags.upstreamKey,
      protocol: flags.upstreamProtocol,
      dataDir: flags.data,
      keepVersions: config?.keepVersions,
      store,
      searchCache,
      log,
      onEvent: (event) => {
        if (event.type === 'update') log(`mirrored ${event.lists.join(', ')} from ${upstream}`);
        if (event.type === 'update-failed')
          log(`${upstream} failed (${event.error.message}); next try ${new Date(event.nextUpdateAt).toISOString()}`);
        reportDatabaseEvent(io, event);
      },
    });
    return {
      // SB-3: verdicts from Google's data say so on the lookup page; another upstream's do not.
      options: {
        catalog: mirror.catalog,
        fullHashes: mirror.fullHashes,
        listReady: (name) => mirror.listReady(name),
        googleData: isGoogle(upstream),
        ...(config === undefined ? {} : accessOptions(config)),
      },
      describe: `a mirror of ${upstream}${flags.redis === undefined ? '' : ' shared through Redis'}`,
      loadControl: config?.loadControl ?? DEFAULT_LOAD_CONTROL_CONFIG,
      close: async () => {
        await mirror.close();
        await closeShared();
      },
    };
  } catch (err) {
    await closeShared();
    throw err;
  }
}

function isGoogle(upstream: string): boolean {
  try {
    return new URL(upstream).hostname.endsWith('.googleapis.com');
  } catch {
    return false;
  }
}

/** The LC-5 gate, unless switched off; with --redis its limits are shared by the instances. */
async function startLoadControl(flags: ServeFlags, config: LoadControlConfig, io: CliIo): Promise<LoadControl | undefined> {
  if (!flags.loadControl || !config.enabled) return undefined;
  const trustedProxies = addressFlag(
    '--trusted-proxy',
    [...(config.settings.trustedProxies ?? []), ...(flags.trustedProxy ?? [])],
    'trusted proxy',
  );
  const trustedRelays = addressFlag(
    '--trusted-relay',
    [...(config.settings.trustedRelays ?? []), ...(flags.trustedRelay ?? [])],
    'trusted relay',
  );
  return LoadControl.create({
    settings: { ...config.settings, trustedProxies, trustedRelays },
    redis: flags.redis === undefined ? undefined : { url: flags.redis, keyPrefix: flags.redisPrefix },
    log: (message) => io.err(`sbkit serve: ${message}\n`),
  });
}

/** Addresses and CIDR blocks given to `flag`, checked as load control will read them; UsageError otherwise. */
export function addressFlag(flag: string, entries: string[], what: string): string[] {
  try {
    new TrustedProxies(entries, what);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
  return entries;
}

/**
 * Every server is an Oblivious HTTP gateway too (SB-2): searches may come through a relay. Instances
 * sharing a Redis share their keys, so that a configuration one of them published works with all.
 */
async function gatewayKeys(flags: ServeFlags, io: CliIo): Promise<GatewayKeys & { close?(): Promise<void> }> {
  const rotateHours = Number(flags.ohttpRotate);
  const overlapMinutes = Number(flags.ohttpOverlap);
  if (!(Number.isFinite(rotateHours) && rotateHours > 0 && rotateHours <= 24 * 365))
    throw new UsageError(`--ohttp-rotate is a number of hours, more than 0, not "${flags.ohttpRotate}"`);
  if (!(Number.isFinite(overlapMinutes) && overlapMinutes >= 0 && overlapMinutes < rotateHours * 60)) {
    throw new UsageError(`--ohttp-overlap is a number of minutes from 0 to less than the rotation period, not "${flags.ohttpOverlap}"`);
  }
  const timing = { rotateMs: rotateHours * 3_600_000, overlapMs: overlapMinutes * 60_000 };
  if (flags.redis === undefined) return KeyRing.create(timing);
  return SharedKeyRing.connect({
    ...timing,
    url: flags.redis,
    keyPrefix: flags.redisPrefix,
    log: (message) => io.err(`sbkit serve: ${message}\n`),
  });
}

async function setupFor(flags: ServeFlags, io: CliIo): Promise<Setup> {
  if (flags.redis !== undefined && flags.config === undefined && flags.upstream === undefined) {
    throw new UsageError('--redis shares the lists of a --config, or of an --upstream, between instances');
  }
  if (flags.upstream !== undefined) return upstreamSetup(flags, flags.upstream, io);
  if (flags.config !== undefined) return configSetup(flags, flags.config, io);
  return {
    options: { catalog: demoCatalog() },
    describe: 'the embedded demo lists',
    loadControl: DEFAULT_LOAD_CONTROL_CONFIG,
    close: async () => {},
  };
}

/** Runs `sbkit serve` with its flags until a signal stops it. */
export async function serve(flags: ServeFlags, io: CliIo, setExit: (status: ExitStatus) => void): Promise<void> {
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${flags.port}"`);
  if (flags.upstreamProtocol !== 'v5' && flags.upstreamProtocol !== 'v4') throw new UsageError('--upstream-protocol is v5 or v4');
  let setup: Setup;
  try {
    setup = await setupFor(flags, io);
  } catch (err) {
    if (!(err instanceof ConfigError) && !(err instanceof SnapshotStoreError) && !(err instanceof RedisConnectionError)) throw err;
    io.err(`sbkit serve: ${err.message}\n`);
    setExit(err instanceof ConfigError || err.reason === 'invalid-url' ? EXIT.INVALID_INPUT : EXIT.FAILED);
    return;
  }
  let loadControl: LoadControl | undefined;
  try {
    loadControl = await startLoadControl(flags, setup.loadControl, io);
  } catch (err) {
    await setup.close();
    if (!(err instanceof RedisConnectionError)) throw err;
    io.err(`sbkit serve: ${err.message}\n`);
    setExit(err.reason === 'invalid-url' ? EXIT.INVALID_INPUT : EXIT.FAILED);
    return;
  }
  let ohttpKeys: GatewayKeys & { close?(): Promise<void> };
  try {
    ohttpKeys = await gatewayKeys(flags, io);
  } catch (err) {
    await loadControl?.close();
    await setup.close();
    if (!(err instanceof RedisConnectionError)) throw err;
    io.err(`sbkit serve: ${err.message}\n`);
    setExit(EXIT.FAILED);
    return;
  }
  const server = createServer({ ...setup.options, loadControl, ohttpKeys, serving: setup.describe, host: flags.host, port });
  let url: string;
  try {
    url = await server.listen();
  } catch (err) {
    await ohttpKeys.close?.();
    await loadControl?.close();
    await setup.close();
    io.err(`sbkit serve: cannot listen on ${flags.host}:${port}: ${(err as Error).message}\n`);
    setExit(EXIT.FAILED);
    return;
  }
  const names = setup.options.catalog.all().map((h) => `${h.definition.name} (${hashCount(h.current().served())})`);
  io.err(`sbkit serve: listening on ${url} with ${setup.describe}: ${names.join(', ')}\n`);
  io.err(`try: npx sbkit check --server ${url} http://testsafebrowsing.appspot.com/s/phishing.html\n`);
  await untilStopped();
  await server.close();
  await ohttpKeys.close?.();
  await loadControl?.close();
  await setup.close();
}
