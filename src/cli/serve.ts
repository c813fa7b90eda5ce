import { Command } from 'commander';
import { DEFAULT_KEY_PREFIX } from '../server/redis-connection.ts';
import type { CliIo, ExitStatus } from './io.ts';
import type { ServeFlags } from './serve-run.ts';

/** `sbkit serve`; the server's code is loaded when the command runs, never for `--help` or other commands. */
export function serveCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  return new Command('serve')
    .description('serve Safe Browsing v5 and v4 lists: your own (--config), a mirror of an upstream (--upstream), or an embedded demo set')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8080')
    .option(
      '--config <file>',
      'JSON configuration: lists, feeds, keys, load control (docs/configuration.md); with --upstream, all but lists',
    )
    .option(
      '--redis <url>',
      'share published lists (and, with --upstream, cached searches) with the other instances using this Redis, e.g. redis://127.0.0.1:6379',
    )
    .option(
      '--redis-prefix <prefix>',
      `start of every Redis key: one per group of instances that serve the same lists (proxies: ${DEFAULT_KEY_PREFIX}proxy: unless set)`,
      DEFAULT_KEY_PREFIX,
    )
    .option('--upstream <url>', 'act as a caching proxy of this Safe Browsing server, e.g. https://safebrowsing.googleapis.com')
    .option('--upstream-key <key>', 'API key for the upstream')
    .option('--upstream-protocol <version>', 'protocol spoken to the upstream (v5 or v4)', 'v5')
    .option('--data <dir>', 'with --upstream: folder where the mirrored lists are kept between restarts')
    .option('--no-load-control', 'serve every request at once: no LC-1..5 limits (for a server only you use)')
    .option('--trusted-proxy <address...>', 'load balancers and proxies (addresses or CIDR blocks) whose X-Forwarded-For names the client')
    .option(
      '--trusted-relay <address...>',
      'Oblivious HTTP relays (addresses or CIDR blocks) in front of this gateway: only the load rules apply to what they forward, since each carries many clients',
    )
    .option('--ohttp-rotate <hours>', 'Oblivious HTTP gateway: how long each key is the current one', '24')
    .option('--ohttp-overlap <minutes>', 'Oblivious HTTP gateway: how long a replaced key is still accepted', '60')
    .action(async (flags: ServeFlags) => {
      const { serve } = await import('./serve-run.ts');
      await serve(flags, io, setExit);
    });
}
