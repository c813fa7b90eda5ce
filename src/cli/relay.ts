import { Command } from 'commander';
import type { LoadControl } from '../server/guard/load-control.ts';
import { SbkitError } from '../sbkit-error.ts';
import { httpLimitFlags, withHttpLimitFlags } from './http-limit-flags.ts';
import { addressFlag } from './serve.ts';
import { EXIT, exitStatusOf, type CliIo, type ExitStatus, untilStopped, UsageError } from './io.ts';

interface RelayFlags {
  gateway: string;
  host: string;
  port: string;
  loadControl: boolean;
  trustedProxy?: string[];
  redis?: string;
  redisPrefix?: string;
  gatewayTimeout: string;
}

const RELAY_KEY_PREFIX = 'sbkit:relay:';

/** `sbkit relay`: an Oblivious HTTP relay (SB-2) in front of one gateway, behind load control. */
export function relayCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('relay')
    .description('forward Oblivious HTTP searches to one gateway, so that it never learns who asks')
    .requiredOption('--gateway <url>', "the gateway's URL, e.g. https://sb.example/ohttp-gateway")
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8081')
    .option('--no-load-control', 'forward every request at once: no load control (no per-client limits, no 503 under load)')
    .option(
      '--trusted-proxy <address...>',
      'load balancers (addresses or CIDR blocks) in front of the relay whose X-Forwarded-For names the client',
    )
    .option('--redis <url>', 'share the per-client limits with the other relay instances using this Redis')
    .option('--redis-prefix <prefix>', `with --redis, start of every Redis key of these relays (default: ${RELAY_KEY_PREFIX})`)
    .option('--gateway-timeout <seconds>', "longest the gateway's answer may take, to its last byte", '10')
    .action(async (flags: RelayFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${flags.port}"`);
      if (flags.redisPrefix !== undefined && flags.redis === undefined)
        throw new UsageError('--redis-prefix goes with --redis, the keys of which it starts; without it nothing is kept in Redis');
      let gateway: URL;
      try {
        gateway = new URL(flags.gateway);
      } catch {
        throw new UsageError(`--gateway must be a URL such as https://sb.example/ohttp-gateway, not "${flags.gateway}"`);
      }
      const gatewayTimeout = Number(flags.gatewayTimeout);
      if (!(Number.isFinite(gatewayTimeout) && gatewayTimeout >= 0.1 && gatewayTimeout <= 600))
        throw new UsageError(`--gateway-timeout must be a number of seconds from 0.1 to 600, not "${flags.gatewayTimeout}"`);
      const httpLimits = httpLimitFlags(flags);
      // The server's code is loaded only now: `--help` and the other commands never need it.
      const { LoadControl } = await import('../server/guard/load-control.ts');
      const { createRelayApp } = await import('../server/ohttp/relay.ts');
      const trustedProxies = addressFlag('--trusted-proxy', flags.trustedProxy ?? [], 'trusted proxy');
      let loadControl: LoadControl | undefined;
      try {
        loadControl = flags.loadControl
          ? await LoadControl.create({
              settings: { trustedProxies },
              redis: flags.redis === undefined ? undefined : { url: flags.redis, keyPrefix: flags.redisPrefix ?? RELAY_KEY_PREFIX },
              log: (message) => io.err(`sbkit relay: ${message}\n`),
            })
          : undefined;
      } catch (error) {
        if (!(error instanceof SbkitError)) throw error;
        io.err(`sbkit relay: ${error.message}\n`);
        setExit(exitStatusOf(error));
        return;
      }
      const app = createRelayApp({
        gateway: gateway.href,
        loadControl,
        timeoutMs: Math.round(gatewayTimeout * 1000),
        httpLimits,
        trustedProxies,
      });
      try {
        await app.listen({ host: flags.host, port });
      } catch (error) {
        await loadControl?.close();
        io.err(`sbkit relay: cannot listen on ${flags.host}:${port}: ${(error as Error).message}\n`);
        setExit(EXIT.FAILED);
        return;
      }
      const address = app.server.address();
      const url = `http://${flags.host}:${typeof address === 'object' && address !== null ? address.port : port}/ohttp-relay`;
      io.err(`sbkit relay: listening on ${url}, forwarding to ${gateway.href}\n`);
      await untilStopped();
      await app.close();
      await loadControl?.close();
    });
  return withHttpLimitFlags(command);
}
