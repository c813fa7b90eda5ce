// `sbkit serve`: flags turned into the service's settings (server/service.ts assembles and runs it), the
// service's failures turned into exit statuses, and the process's signals into its lifecycle:
//
//   SIGTERM, SIGINT  stop listening, let requests under way finish and close everything, all within
//                    --shutdown-timeout (10 s), exit 0; while starting, abandon the start at once and
//                    close what was opened (exit 0); a second one while stopping exits at once (status 2)
//   SIGHUP           read the configuration file and the certificate again (Service.reload)

import { resolve } from 'node:path';
import { Command } from 'commander';
import type { ClientEvent } from '../client/options.ts';
import { ConfigError } from '../server/config/config-error.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from '../server/http/connection-drain.ts';
import type { Service } from '../server/service.ts';
import type { TlsFiles } from '../server/http/tls.ts';
import { TrustedProxies } from '../server/guard/client-address.ts';
import { corsOriginProblem } from '../server/api/cors.ts';
import { type ListenAddress, parseListenAddress } from '../server/http/listen-address.ts';
import { DEFAULT_KEY_PREFIX } from '../server/redis/redis-connection.ts';
import type { ListSource, ServiceConfig } from '../server/service.ts';
import { databaseEventMessage } from './client-events.ts';
import { ListReportLog } from './list-report-log.ts';
import { type LogFlags, type ServeLog, serveLog, withLogFlags } from './serve-log.ts';
import { httpLimitFlags, withHttpLimitFlags } from './http-limit-flags.ts';
import { SbkitError } from '../sbkit-error.ts';
import { adminTokenProblem } from '../server/operator/admin-token.ts';
import { SECRET_VARIABLES, secretFromEnvironment } from './secret-variables.ts';
import { EXIT, exitStatusOf, type CliIo, type ExitStatus, UsageError } from './io.ts';

interface ServeFlags extends LogFlags {
  host: string;
  port: string;
  config?: string;
  redis?: string;
  redisPrefix?: string;
  upstream?: string;
  upstreamKey?: string;
  upstreamProtocol?: string;
  data?: string;
  /** False with --no-load-control. */
  loadControl: boolean;
  trustedProxy?: string[];
  trustedRelay?: string[];
  corsOrigin?: string[];
  ohttpRotate: string;
  ohttpOverlap: string;
  adminListen?: string;
  tlsCert?: string;
  tlsKey?: string;
  shutdownTimeout: string;
}

/** Addresses and CIDR blocks given to `flag`, checked as load control will read them; UsageError otherwise. */
export function addressFlag(flag: string, entries: string[], what: string): string[] {
  try {
    new TrustedProxies(entries, what);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new UsageError(`${flag}: ${error.problem}`);
  }
  return entries;
}

/** `--tls-cert` and `--tls-key`, both or neither. */
function tlsFlags(flags: ServeFlags): TlsFiles | undefined {
  if (flags.tlsCert === undefined && flags.tlsKey === undefined) return undefined;
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) throw new UsageError('--tls-cert and --tls-key go together');
  return { cert: resolve(flags.tlsCert), key: resolve(flags.tlsKey), origin: { cert: '--tls-cert', key: '--tls-key' } };
}

/** Longest --shutdown-timeout: an hour is past any request's deadline (http-limits.ts). */
const MAX_SHUTDOWN_SECONDS = 3600;

function shutdownTimeoutFlag(text: string): number {
  const seconds = text.trim() === '' ? NaN : Number(text);
  if (!(Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_SHUTDOWN_SECONDS)) {
    throw new UsageError(`--shutdown-timeout is a number of seconds from 0 to ${MAX_SHUTDOWN_SECONDS}, not "${text}"`);
  }
  return Math.round(seconds * 1000);
}

function adminListenFlag(text: string): ListenAddress {
  const address = parseListenAddress(text);
  if ('problem' in address) throw new UsageError(`--admin-listen ${address.problem}`);
  return address;
}

/**
 * The lists to serve: an upstream's, a configuration's, or the demo set. Reads the configuration file,
 * and with --upstream the upstream's key: --upstream-key, else SBKIT_UPSTREAM_KEY (or its file), else
 * the configuration's upstreamKey. Without --upstream that variable is not read: it may be set for
 * every command of a machine.
 */
async function listSource(flags: ServeFlags): Promise<ListSource> {
  if (flags.upstream === undefined) {
    for (const [given, flag] of [
      [flags.upstreamKey, '--upstream-key'],
      [flags.upstreamProtocol, '--upstream-protocol'],
    ] as const) {
      if (given !== undefined) throw new UsageError(`${flag} goes with --upstream, the server to mirror; without it nothing is mirrored`);
    }
  }
  if (flags.redis !== undefined && flags.config === undefined && flags.upstream === undefined) {
    throw new UsageError('--redis shares the lists of a --config, or of an --upstream, between instances');
  }
  if (flags.data !== undefined && flags.config === undefined && flags.upstream === undefined) {
    throw new UsageError(
      '--data keeps the lists of a --config, or the mirror of an --upstream, across restarts; the demo lists need no folder',
    );
  }
  const { readServerConfig } = await import('../server/config/config.ts');
  const config = flags.config === undefined ? undefined : await readServerConfig(flags.config);
  // The flag overrides the configuration's dataDir.
  const dataDir = flags.data === undefined ? config?.dataDir : resolve(flags.data);
  if (flags.upstream !== undefined) {
    const protocol = flags.upstreamProtocol ?? 'v5';
    if (protocol !== 'v5' && protocol !== 'v4' && protocol !== 'webrisk') throw new UsageError('--upstream-protocol is v5, v4 or webrisk');
    if (config !== undefined && config.lists.length > 0) {
      throw new UsageError(
        `${flags.config}: a proxy serves its upstream's lists; leave "lists" out of the configuration given with --upstream`,
      );
    }
    return {
      from: 'upstream',
      url: flags.upstream,
      apiKey: flags.upstreamKey ?? secretFromEnvironment(SECRET_VARIABLES.upstreamKey)?.value ?? config?.upstreamKey,
      protocol,
      dataDir,
      config,
      ...(flags.config === undefined ? {} : { configFile: flags.config }),
    };
  }
  if (flags.config === undefined || config === undefined) return { from: 'demo' };
  if (flags.redis !== undefined && dataDir !== undefined) {
    const given = flags.data === undefined ? `the dataDir of ${flags.config}` : '--data';
    throw new UsageError(
      `${given} keeps this instance's list versions on disk, and --redis keeps them in Redis for every instance: use one or the other`,
    );
  }
  return { from: 'config', file: flags.config, config, dataDir };
}

/**
 * The admin token of SBKIT_ADMIN_TOKEN (or its file), which wins over the configuration's adminToken;
 * UsageError, naming the variable, for one too weak to guard the operator endpoints.
 */
function adminTokenVariable(): string | undefined {
  const found = secretFromEnvironment(SECRET_VARIABLES.adminToken);
  if (found === undefined) return undefined;
  const problem = adminTokenProblem(found.value);
  if (problem !== undefined) throw new UsageError(`the admin token of ${found.origin} ${problem}`);
  return found.value;
}

/** The service's settings from the flags; UsageError for flags that cannot work. */
async function serviceConfig(flags: ServeFlags, log: ServeLog): Promise<ServiceConfig> {
  if (flags.redisPrefix !== undefined && flags.redis === undefined) {
    throw new UsageError('--redis-prefix goes with --redis, the keys of which it starts; without it nothing is kept in Redis');
  }
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${flags.port}"`);
  const rotateHours = Number(flags.ohttpRotate);
  const overlapMinutes = Number(flags.ohttpOverlap);
  if (!(Number.isFinite(rotateHours) && rotateHours > 0 && rotateHours <= 24 * 365)) {
    throw new UsageError(`--ohttp-rotate is a number of hours, more than 0, not "${flags.ohttpRotate}"`);
  }
  if (!(Number.isFinite(overlapMinutes) && overlapMinutes >= 0 && overlapMinutes < rotateHours * 60)) {
    throw new UsageError(`--ohttp-overlap is a number of minutes from 0 to less than the rotation period, not "${flags.ohttpOverlap}"`);
  }
  const tlsFiles = tlsFlags(flags);
  const adminToken = adminTokenVariable();
  const lists = new ListReportLog(log);
  return {
    host: flags.host,
    port,
    lists: await listSource(flags),
    redis: flags.redis === undefined ? undefined : { url: flags.redis, keyPrefix: flags.redisPrefix ?? DEFAULT_KEY_PREFIX },
    loadControl: flags.loadControl,
    trustedProxies: addressFlag('--trusted-proxy', flags.trustedProxy ?? [], 'trusted proxy'),
    trustedRelays: addressFlag('--trusted-relay', flags.trustedRelay ?? [], 'trusted relay'),
    corsOrigins: corsOriginFlag(flags.corsOrigin ?? []),
    ohttp: { rotateMs: rotateHours * 3_600_000, overlapMs: overlapMinutes * 60_000 },
    httpLimits: httpLimitFlags(flags),
    ...(tlsFiles === undefined ? {} : { tls: tlsFiles }),
    shutdownTimeoutMs: shutdownTimeoutFlag(flags.shutdownTimeout),
    log,
    accessLog: flags.accessLog === true,
    ...(flags.adminListen === undefined ? {} : { adminListen: adminListenFlag(flags.adminListen) }),
    ...(adminToken === undefined ? {} : { adminToken }),
    onListReport: (report) => lists.report(report),
    onClientEvent: (event: ClientEvent) => {
      const message = databaseEventMessage(event);
      if (message !== undefined) log.warn(message);
    },
  };
}

/** Origins given to --cors-origin, checked as the configuration's are; UsageError otherwise. */
function corsOriginFlag(origins: string[]): string[] {
  for (const origin of origins) {
    const problem = corsOriginProblem(origin);
    if (problem !== undefined) throw new UsageError(`--cors-origin: ${problem}`);
  }
  return origins;
}

/**
 * The process's signals, handled from the moment the command runs. The first SIGTERM or SIGINT stops
 * the service, or, while it starts, abandons the start (`abandoned` aborts): a configuration file that
 * cannot be read, a Redis or a feed that does not answer must not hold a stop. A second one exits at
 * once; SIGHUP reloads the running service.
 */
class Signals {
  /** Resolves to the first SIGTERM or SIGINT. */
  readonly stopped: Promise<NodeJS.Signals>;
  private stop: (signal: NodeJS.Signals) => void = () => {};
  private readonly abandon = new AbortController();
  private service: Service | undefined;
  private stopping = false;

  constructor(private readonly log: ServeLog) {
    this.stopped = new Promise((resolve) => (this.stop = resolve));
    process.on('SIGTERM', this.onStop);
    process.on('SIGINT', this.onStop);
    process.on('SIGHUP', this.onReload);
  }

  /** Aborted by the first SIGTERM or SIGINT: a start under way is abandoned. */
  get abandoned(): AbortSignal {
    return this.abandon.signal;
  }

  /** The service to reload from now on. */
  serving(service: Service): void {
    this.service = service;
  }

  /** Gives the signals back to the process. */
  dispose(): void {
    process.off('SIGTERM', this.onStop);
    process.off('SIGINT', this.onStop);
    process.off('SIGHUP', this.onReload);
  }

  private readonly onStop = (signal: NodeJS.Signals): void => {
    if (this.stopping) {
      this.log.warn(`${signal} while stopping: exiting now`);
      process.exit(EXIT.FAILED);
    }
    this.stopping = true;
    if (this.service === undefined) {
      this.log.info(`${signal} while starting: abandoning the start`);
      this.abandon.abort();
    }
    this.stop(signal);
  };

  private readonly onReload = (): void => {
    // By default SIGHUP would end the process, cutting the requests under way: it is always handled.
    if (this.stopping || this.service === undefined) {
      this.log.warn(`SIGHUP ignored: ${this.stopping ? 'stopping' : 'not listening yet'}`);
      return;
    }
    this.log.info('SIGHUP: reloading the configuration and the certificate');
    this.service.reload().catch((error: unknown) => this.log.error(`reload failed: ${(error as Error).message}`));
  };
}

/**
 * Starts the service: reads the configuration (serviceConfig), then opens every part and listens
 * (startService). Resolves to undefined when a stop signal abandoned the start.
 */
async function start(flags: ServeFlags, log: ServeLog, signals: Signals): Promise<Service | undefined> {
  const stopped = signals.stopped.then(() => undefined);
  const { startService } = await import('../server/service.ts');
  // Reading the configuration may stall too (a file on a mount that does not answer, a named pipe).
  const config = await Promise.race([serviceConfig(flags, log), stopped]);
  if (config === undefined) return undefined;
  try {
    return await startService(config, { signal: signals.abandoned });
  } catch (error) {
    if (signals.abandoned.aborted) return undefined;
    throw error;
  }
}

/** Runs the service until a signal stops it. A part that cannot start is reported with its exit status. */
async function serve(flags: ServeFlags, io: CliIo, setExit: (status: ExitStatus) => void): Promise<void> {
  const log = await serveLog(io, flags);
  const signals = new Signals(log);
  try {
    let service;
    try {
      service = await start(flags, log, signals);
    } catch (err) {
      if (!(err instanceof SbkitError)) throw err;
      // A command line that cannot run is told as every command tells it; what kept the service from
      // starting (a configuration, a folder, a port) is the log's last line.
      if (err instanceof UsageError) io.err(`sbkit serve: ${err.message}\n`);
      else log.fatal(err.message);
      setExit(exitStatusOf(err));
      return;
    }
    if (service === undefined) {
      log.info('stopped before serving');
      // What was starting (a Redis or a feed that does not answer, a file being read) was abandoned, not
      // ended, and may hold the process open: the stop was asked for, so it ends here.
      process.exit(EXIT.SAFE);
    }
    signals.serving(service);
    const names = service.lists.map((list) => `${list.name} (${list.entries})`);
    if (service.adminUrl !== undefined) log.info(`/admin/* and /metrics on ${service.adminUrl} only`);
    log.info(`listening on ${service.url} with ${service.describe}: ${names.join(', ')}`);
    // Only a URL the lists hold: a hint that answers SAFE would teach that the server does not work. For
    // a person at a terminal: a collector of JSON lines has no use for it.
    if (service.listedUrl !== undefined && log.pretty) io.err(`try: npx sbkit check --server ${service.url} ${service.listedUrl}\n`);
    const signal = await signals.stopped;
    log.info(`${signal}: stopping; requests under way have ${shutdownTimeoutFlag(flags.shutdownTimeout) / 1000} s to finish`);
    const { cut } = await service.close();
    log.info('stopped');
    // What did not close in time (a Redis that stopped answering) may hold connections that would keep
    // the process alive past the shutdown timeout.
    if (cut.length > 0) process.exit(EXIT.SAFE);
  } finally {
    signals.dispose();
  }
}

const ENVIRONMENT_HELP = `
Environment (a flag wins over these, and these over the configuration; docs/configuration.md#keys-and-tokens):
  ${SECRET_VARIABLES.upstreamKey}, ${SECRET_VARIABLES.upstreamKey}_FILE  the upstream's key, or a file that holds it, with --upstream
  ${SECRET_VARIABLES.adminToken}, ${SECRET_VARIABLES.adminToken}_FILE    the admin token, or a file that holds it (e.g. $CREDENTIALS_DIRECTORY/admin-token)
`;

/** `sbkit serve`; the server's code is loaded when the command runs, never for `--help` or other commands. */
export function serveCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('serve')
    .description('serve Safe Browsing v5 and v4 lists: your own (--config), a mirror of an upstream (--upstream), or an embedded demo set')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8080')
    .option(
      '--config <file>',
      'JSON configuration: lists, feeds, keys, load control (docs/configuration.md); with --upstream, all but lists; read again on SIGHUP',
    )
    .option(
      '--redis <url>',
      'share published lists (and, with --upstream, cached searches) with the other instances using this Redis, e.g. redis://127.0.0.1:6379, redis+sentinel://h:26379,h:26380/mymaster or redis+cluster://h:7000,h:7001; ' +
        'starts without it when it does not answer (GET /readyz says 503 until the lists are shared) and joins once it does',
    )
    .option(
      '--redis-prefix <prefix>',
      `with --redis, start of every Redis key: one per group of instances that serve the same lists (default: ${DEFAULT_KEY_PREFIX}, proxies ${DEFAULT_KEY_PREFIX}proxy:)`,
    )
    .option('--upstream <url>', 'act as a caching proxy of this Safe Browsing server, e.g. https://safebrowsing.googleapis.com')
    .option(
      '--upstream-key <key>',
      `with --upstream, its API key; or from ${SECRET_VARIABLES.upstreamKey} or ${SECRET_VARIABLES.upstreamKey}_FILE, out of sight of ps, or the configuration's upstreamKey`,
    )
    .option('--upstream-protocol <version>', 'with --upstream, the protocol spoken to it: v5 (default), v4, or webrisk (Web Risk v1)')
    .option(
      '--data <dir>',
      "folder that keeps the lists across restarts (overrides the configuration's dataDir): with --config, the published versions, " +
        'so that clients still get diffs after a restart (one instance; several share them with --redis instead); ' +
        'with --upstream, the mirrored lists, so that a restart costs no download',
    )
    .option(
      '--no-load-control',
      'serve every request at once: no load control: no per-client limits, no 503 under load (for a server only you use)',
    )
    .option('--trusted-proxy <address...>', 'load balancers and proxies (addresses or CIDR blocks) whose X-Forwarded-For names the client')
    .option(
      '--trusted-relay <address...>',
      'Oblivious HTTP relays (addresses or CIDR blocks) in front of this gateway: only the load rules apply to what they forward, since each carries many clients',
    )
    .option(
      '--cors-origin <origin...>',
      'let scripts of these origins call the API: "*", https://mail.example or chrome-extension://<id> (besides the configuration\'s cors.origins)',
    )
    .option('--ohttp-rotate <hours>', 'Oblivious HTTP gateway: how long each key is the current one', '24')
    .option('--ohttp-overlap <minutes>', 'Oblivious HTTP gateway: how long a replaced key is still accepted', '60')
    .option('--tls-cert <file>', 'serve HTTPS, with HTTP/2 and HTTP/1.1, with this certificate chain (PEM); read again on SIGHUP')
    .option('--tls-key <file>', "the certificate's private key (PEM), with --tls-cert")
    .option(
      '--shutdown-timeout <seconds>',
      'on SIGTERM or SIGINT, how long stopping may take: requests under way finishing, then Redis and the rest closing; what is still open then is cut (a second signal exits at once)',
      String(DEFAULT_SHUTDOWN_TIMEOUT_MS / 1000),
    )
    .option(
      '--admin-listen <host:port>',
      "serve /admin/* and /metrics only on this address, e.g. 127.0.0.1:9090 (404 on the public one); overrides the configuration's adminListen",
    )
    .addHelpText('after', ENVIRONMENT_HELP)
    .action((flags: ServeFlags) => serve(flags, io, setExit));
  return withLogFlags(withHttpLimitFlags(command));
}
