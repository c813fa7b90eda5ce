// What `sbkit serve` assembles, in order, from the settings the CLI made of its flags (service-config.ts):
// the lists and what opens with them (service-lists.ts), load control, the Oblivious HTTP gateway's keys,
// then the HTTP server, listening. It reloads on SIGHUP (service-reload.ts) and closes everything it
// opened in the reverse order, within the shutdown timeout (service-lifecycle.ts). How a request then
// passes through the server, and where each part lives: docs/architecture.md, "The server's request path".

import { Registry } from 'prom-client';
import { hashCount } from '../store/hash-list.ts';
import { configWarnings } from './config/config.ts';
import type { LoadControlConfig } from './guard/load-control-config.ts';
import { LoadControl } from './guard/load-control.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from './http/connection-drain.ts';
import { createServer, type SafeBrowsingServer } from './http/server.ts';
import { describeCertificate, readTlsCredentials, type TlsCredentials, type TlsFiles } from './http/tls.ts';
import { type GatewayKeys, KeyRing } from './ohttp/key-ring.ts';
import { SharedKeyRing } from './ohttp/shared-key-ring.ts';
import { RedisMonitor } from './redis/redis-monitor.ts';
import {
  clockOf,
  configOf,
  refuseIdleUpstreamKey,
  type LoggingService,
  type ServiceConfig,
  tlsFilesOf,
  withLogger,
  withConfiguredRedis,
  withOutsideToken,
} from './service-config.ts';
import { Opened, stopAll } from './service-lifecycle.ts';
import { openLists } from './service-lists.ts';
import { reloads, type Running } from './service-reload.ts';
import type { Logger } from './logger.ts';

export type { ListSource, ServiceConfig } from './service-config.ts';

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
  const service = withLogger(withConfiguredRedis(withOutsideToken(given)));
  const opened = new Opened(signal, clockOf(service));
  let created: SafeBrowsingServer | undefined;
  const monitor = service.redis === undefined ? undefined : new RedisMonitor(service.log);
  const shutdownTimeoutMs = service.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  try {
    const source = configOf(service.lists);
    if (source !== undefined) refuseIdleUpstreamKey(service.lists, source.config, source.file);
    for (const warning of source === undefined ? [] : configWarnings(source.config)) service.log.warn(warning);
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
      accessLog: service.accessLog ?? false,
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
      clock: clockOf(service),
    }));
    const url = await opened.step(() => server.listen());
    const running: Running = { service, server, lists, config, file: source?.file, tls: tls !== undefined, stopping: false };
    return {
      url,
      adminUrl: server.adminUrl,
      describe: lists.describe,
      lists: lists.options.catalog
        .all()
        .map((history) => ({ name: history.definition.name, entries: hashCount(history.current().served()) })),
      listedUrl: lists.listedUrl,
      reload: reloads(running),
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

/** The LC-5 gate, unless switched off; with Redis its limits are shared by the instances. */
async function openLoadControl(
  service: LoggingService,
  config: LoadControlConfig,
  opened: Opened,
  monitor: RedisMonitor | undefined,
): Promise<LoadControl | undefined> {
  if (!service.loadControl || !config.enabled) return undefined;
  const trustedProxies = [...(config.settings.trustedProxies ?? []), ...service.trustedProxies];
  const trustedRelays = [...(config.settings.trustedRelays ?? []), ...service.trustedRelays];
  const redis = service.redis === undefined ? undefined : { ...service.redis, watch: monitor?.watch('load-control') };
  return opened.open('load control', () =>
    LoadControl.create({
      settings: { ...config.settings, trustedProxies, trustedRelays },
      redis,
      log: service.log,
      clock: clockOf(service),
    }),
  );
}

/**
 * Every server is an Oblivious HTTP gateway too (SB-2): searches may come through a relay. Instances
 * sharing a Redis share their keys, so that a configuration one of them published works with all.
 */
async function openGatewayKeys(service: LoggingService, opened: Opened, monitor: RedisMonitor | undefined): Promise<GatewayKeys> {
  if (service.redis === undefined) return KeyRing.create({ ...service.ohttp, clock: clockOf(service) });
  const { redis } = service;
  return opened.open('the gateway keys in Redis', () =>
    SharedKeyRing.connect({ ...service.ohttp, ...redis, log: service.log, watch: monitor?.watch('ohttp-keys'), clock: clockOf(service) }),
  );
}

/** Reads the certificate files, and tells the log which certificate is served. */
async function readCertificate(files: TlsFiles, log: Logger): Promise<TlsCredentials> {
  const credentials = await readTlsCredentials(files);
  log.info(`TLS certificate ${describeCertificate(credentials.cert)}`);
  return credentials;
}

/** The metrics of the service's parts, as one registry for `/metrics`; undefined when no part has any. */
function mergedMetrics(registries: (Registry | undefined)[]): Registry | undefined {
  const present = registries.filter((registry) => registry !== undefined);
  return present.length === 0 ? undefined : Registry.merge(present);
}
