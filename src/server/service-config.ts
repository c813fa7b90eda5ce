// What `sbkit serve` is told (ServiceConfig: the CLI makes it of its flags) and what follows from it for
// the start and for every reload: the configuration it runs from, the admin token that wins, the
// certificate files to serve, the access settings the HTTP application takes.

import type { ClientEvent } from '../client/options.ts';
import { type MonotonicClock, systemClock } from '../time/clock.ts';
import { ConfigError } from './config/config-error.ts';
import type { ServerConfig } from './config/config.ts';
import type { ListLoadReport } from './feeds/feed-lists.ts';
import type { HttpLimits } from './http/http-limits.ts';
import type { ListenAddress } from './http/listen-address.ts';
import type { ServerOptions } from './http/server.ts';
import type { TlsFiles } from './http/tls.ts';
import type { RedisTarget } from './redis/redis-address.ts';
import { DEFAULT_KEY_PREFIX } from './redis/redis-connection.ts';
import { type Logger, type LogSink, loggerOf } from './logger.ts';

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
      protocol: 'v5' | 'v4' | 'webrisk';
      dataDir: string | undefined;
      config: ServerConfig | undefined;
      /** The file `config` was read from, read again at a reload. */
      configFile?: string;
    };

export interface ServiceConfig {
  host: string;
  port: number;
  lists: ListSource;
  /**
   * Share lists, search answers, limits and gateway keys with the other instances through this Redis
   * (`--redis`); undefined: the configuration's `redis`, if any (withConfiguredRedis).
   */
  redis: { url: RedisTarget; keyPrefix: string } | undefined;
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
  log: LogSink;
  /** Log a line per request (`--access-log`): method, route pattern, status, duration, client class, request id. */
  accessLog?: boolean;
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
  /** The time every part of the service reads and sets its timers by; the system's by default. */
  clock?: MonotonicClock;
}

/** A service's settings as its parts take them: the log made a {@link Logger}. */
export interface LoggingService extends ServiceConfig {
  log: Logger;
}

/** `service` with its log made a {@link Logger}. */
export function withLogger(service: ServiceConfig): LoggingService {
  return { ...service, log: loggerOf(service.log) };
}

/** The clock the service and each of its parts run on. */
export function clockOf(service: ServiceConfig): MonotonicClock {
  return service.clock ?? systemClock;
}

/** What a configuration sets besides its lists: who may ask, the operator's token, the waits served. */
export function accessOptions(config: ServerConfig): Pick<ServerOptions, 'apiKeys' | 'adminToken' | 'settings' | 'corsOrigins'> {
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
      webRiskLists: config.webRiskLists,
    },
  };
}

/** The configuration a service runs from, if any, and the file it was read from. */
export function configOf(lists: ListSource): { config: ServerConfig; file: string | undefined } | undefined {
  if (lists.from === 'config') return { config: lists.config, file: lists.file };
  if (lists.from === 'upstream' && lists.config !== undefined) return { config: lists.config, file: lists.configFile };
  return undefined;
}

/** A configuration's upstream key does something only for a proxy: anywhere else it is refused, not ignored. */
export function refuseIdleUpstreamKey(lists: ListSource, config: ServerConfig, file: string | undefined): void {
  if (lists.from !== 'upstream' && config.upstreamKey !== undefined) {
    throw new ConfigError(
      'upstreamKey',
      'is the key of an upstream to mirror (upstreamKey or upstreamKeyFile); this server mirrors none',
      file,
    );
  }
}

/** `config` with the admin token given outside it, which wins over its own. */
export function withAdminToken(service: ServiceConfig, config: ServerConfig): ServerConfig {
  return service.adminToken === undefined ? config : { ...config, adminToken: service.adminToken };
}

/** The service with its configuration's admin token replaced by the one given outside it, if any. */
export function withOutsideToken(service: ServiceConfig): ServiceConfig {
  const { lists } = service;
  if (lists.from === 'demo' || lists.config === undefined) return service;
  return { ...service, lists: { ...lists, config: withAdminToken(service, lists.config) } };
}

/** The service with the configuration's `redis` when no `--redis` was given. */
export function withConfiguredRedis(service: ServiceConfig): ServiceConfig {
  const configured = configOf(service.lists)?.config.redis;
  if (service.redis !== undefined || configured === undefined) return service;
  return { ...service, redis: { url: configured.target, keyPrefix: configured.keyPrefix ?? DEFAULT_KEY_PREFIX } };
}

/** The certificate files to serve: the flags', else the configuration's `tls`. */
export function tlsFilesOf(service: ServiceConfig, config: ServerConfig | undefined, file: string | undefined): TlsFiles | undefined {
  if (service.tls !== undefined) return service.tls;
  if (config?.tls === undefined) return undefined;
  return { ...config.tls, origin: { cert: 'tls.cert', key: 'tls.key', ...(file === undefined ? {} : { file }) } };
}
