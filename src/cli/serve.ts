import { Command } from 'commander';
import type { ListCatalog } from '../server/catalog.ts';
import { demoCatalog } from '../server/demo.ts';
import { ConfigError } from '../server/feeds/config-error.ts';
import { readServerConfig } from '../server/feeds/config.ts';
import { FeedLists } from '../server/feed-lists.ts';
import { createServer, type ServerOptions } from '../server/server.ts';
import { EXIT, type CliIo, type ExitStatus, UsageError } from './io.ts';

interface ServeFlags {
  host: string;
  port: string;
  config?: string;
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

export function serveCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  return new Command('serve')
    .description('serve Safe Browsing v5 and v4 lists; with no configuration, an embedded demo data set')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8080')
    .option('--config <file>', 'JSON configuration: lists, feeds, keys (docs/configuration.md)')
    .action(async (flags: ServeFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${flags.port}"`);
      let catalog: ListCatalog;
      let feeds: FeedLists | undefined;
      const options: Partial<ServerOptions> = {};
      if (flags.config === undefined) {
        catalog = demoCatalog();
      } else {
        try {
          const config = await readServerConfig(flags.config);
          feeds = await FeedLists.start(config, (report) => {
            const problems = report.errors.length === 0 ? '' : `; failed sources: ${report.errors.join('; ')}`;
            io.err(`sbkit serve: list ${report.list}: ${report.expressions} entries, ${report.badLines} bad lines${problems}${report.published ? '' : ' (previous version kept)'}\n`);
          });
          catalog = feeds.catalog;
          Object.assign(options, {
            apiKeys: config.apiKeys,
            settings: { minimumWaitMs: config.minimumWaitSeconds * 1000, cacheDurationMs: config.cacheDurationSeconds * 1000 },
          });
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          io.err(`sbkit serve: ${err.message}\n`);
          setExit(EXIT.INVALID_INPUT);
          return;
        }
      }
      const server = createServer({ ...options, catalog, host: flags.host, port });
      let url: string;
      try {
        url = await server.listen();
      } catch (err) {
        feeds?.close();
        io.err(`sbkit serve: cannot listen on ${flags.host}:${port}: ${(err as Error).message}\n`);
        setExit(EXIT.FAILED);
        return;
      }
      const names = catalog.all().map((h) => `${h.definition.name} (${h.current().fullHashCount})`);
      const source = flags.config === undefined ? 'the embedded demo lists' : flags.config;
      io.err(`sbkit serve: listening on ${url} with ${source}: ${names.join(', ')}\n`);
      io.err(`try: npx sbkit check --server ${url} http://testsafebrowsing.appspot.com/s/phishing.html\n`);
      await untilStopped();
      feeds?.close();
      await server.close();
    });
}
