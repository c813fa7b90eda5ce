import { Command } from 'commander';
import { demoCatalog } from '../server/demo.ts';
import { ConfigError } from '../server/feeds/config-error.ts';
import { readServerConfig } from '../server/feeds/config.ts';
import { FeedLists } from '../server/feed-lists.ts';
import { DEFAULT_KEY_PREFIX, RedisSnapshotStore } from '../server/lists/redis-snapshot-store.ts';
import { SnapshotStoreError } from '../server/lists/snapshot-store-error.ts';
import { hashCount } from '../server/lists/sorted-hashes.ts';
import { createServer, type ServerOptions } from '../server/server.ts';
import { UpstreamMirror } from '../server/upstream-mirror.ts';
import { EXIT, type CliIo, type ExitStatus, UsageError } from './io.ts';

interface ServeFlags {
  host: string;
  port: string;
  config?: string;
  redis?: string;
  redisPrefix: string;
  upstream?: string;
  upstreamKey?: string;
  upstreamProtocol: 'v5' | 'v4';
  data?: string;
}

/** What a mode of `serve` contributes: the lists and searches to serve, and how to stop. */
interface Setup {
  options: Omit<ServerOptions, 'host' | 'port'>;
  describe: string;
  close(): Promise<void>;
}

/** Waits for Ctrl-C or a termination signal. */
function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Lists from the feeds of a configuration file, shared through Redis when asked. */
async function configSetup(flags: ServeFlags, configFile: string, io: CliIo): Promise<Setup> {
  const config = await readServerConfig(configFile);
  const store =
    flags.redis === undefined
      ? undefined
      : await RedisSnapshotStore.connect({ url: flags.redis, keyPrefix: flags.redisPrefix, log: (message) => io.err(`sbkit serve: ${message}\n`) });
  try {
    const feeds = await FeedLists.start(
      config,
      (report) => {
        const problems = report.errors.length === 0 ? '' : `; failed sources: ${report.errors.join('; ')}`;
        io.err(`sbkit serve: list ${report.list}: ${report.expressions} entries, ${report.badLines} bad lines${problems}${report.published ? '' : ' (previous version kept)'}\n`);
      },
      store,
    );
    return {
      options: {
        catalog: feeds.catalog,
        apiKeys: config.apiKeys,
        adminToken: config.adminToken,
        reload: () => feeds.reload(),
        settings: { minimumWaitMs: config.minimumWaitSeconds * 1000, cacheDurationMs: config.cacheDurationSeconds * 1000 },
      },
      describe: configFile,
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

/** Proxy mode: the upstream's lists mirrored, searches answered from a cache and the upstream (SB-11). */
async function upstreamSetup(flags: ServeFlags, upstream: string, io: CliIo): Promise<Setup> {
  const mirror = await UpstreamMirror.start({
    url: upstream,
    apiKey: flags.upstreamKey,
    protocol: flags.upstreamProtocol,
    dataDir: flags.data,
    onEvent: (event) => {
      if (event.type === 'update') io.err(`sbkit serve: mirrored ${event.lists.join(', ')} from ${upstream}\n`);
      if (event.type === 'update-failed') io.err(`sbkit serve: ${upstream} failed (${event.error.message}); next try ${new Date(event.nextUpdateAt).toISOString()}\n`);
    },
  });
  return { options: { catalog: mirror.catalog, fullHashes: mirror.fullHashes }, describe: `a mirror of ${upstream}`, close: () => mirror.close() };
}

async function setupFor(flags: ServeFlags, io: CliIo): Promise<Setup> {
  if (flags.upstream !== undefined && flags.config !== undefined) throw new UsageError('serve either your own lists (--config) or an upstream\'s (--upstream), not both');
  if (flags.redis !== undefined && flags.config === undefined) throw new UsageError('--redis shares the lists of a --config between instances');
  if (flags.upstream !== undefined) return upstreamSetup(flags, flags.upstream, io);
  if (flags.config !== undefined) return configSetup(flags, flags.config, io);
  return { options: { catalog: demoCatalog() }, describe: 'the embedded demo lists', close: async () => {} };
}

export function serveCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  return new Command('serve')
    .description('serve Safe Browsing v5 and v4 lists: your own (--config), a mirror of an upstream (--upstream), or an embedded demo set')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8080')
    .option('--config <file>', 'JSON configuration: lists, feeds, keys (docs/configuration.md)')
    .option('--redis <url>', 'share published lists with the other instances using this Redis, e.g. redis://127.0.0.1:6379')
    .option('--redis-prefix <prefix>', 'start of every Redis key: one per group of instances that serve the same lists', DEFAULT_KEY_PREFIX)
    .option('--upstream <url>', 'act as a caching proxy of this Safe Browsing server, e.g. https://safebrowsing.googleapis.com')
    .option('--upstream-key <key>', 'API key for the upstream')
    .option('--upstream-protocol <version>', 'protocol spoken to the upstream (v5 or v4)', 'v5')
    .option('--data <dir>', 'with --upstream: folder where the mirrored lists are kept between restarts')
    .action(async (flags: ServeFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${flags.port}"`);
      if (flags.upstreamProtocol !== 'v5' && flags.upstreamProtocol !== 'v4') throw new UsageError('--upstream-protocol is v5 or v4');
      let setup: Setup;
      try {
        setup = await setupFor(flags, io);
      } catch (err) {
        if (!(err instanceof ConfigError) && !(err instanceof SnapshotStoreError)) throw err;
        io.err(`sbkit serve: ${err.message}\n`);
        setExit(err instanceof SnapshotStoreError && err.reason !== 'invalid-url' ? EXIT.FAILED : EXIT.INVALID_INPUT);
        return;
      }
      const server = createServer({ ...setup.options, host: flags.host, port });
      let url: string;
      try {
        url = await server.listen();
      } catch (err) {
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
      await setup.close();
    });
}
