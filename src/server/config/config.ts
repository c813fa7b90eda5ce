/**
 * The server configuration file: checked against its one account, docs/configuration.md, which says
 * every field, its default and its bounds. The top level is read here; the lists and their sources in
 * config-lists.ts and config-sources.ts, the other sections in the files of what they configure (load
 * control, the proxy's upstream searches, HTTP limits, TLS, feed limits). Unknown fields are errors, so
 * that a misspelt setting cannot silently disable a list.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';
import { adminTokenProblem } from '../operator/admin-token.ts';
import { readSecretFile } from '../operator/secret-file.ts';
import { type ListenAddress, parseListenAddress } from '../http/listen-address.ts';
import { ConfigError } from './config-error.ts';
import {
  expectArrayOf,
  expectKnownFields,
  expectNumber,
  expectObject,
  expectString,
  type JsonObject,
  optionalNumber,
} from './config-fields.ts';
import { type ListConfig, parseLists } from './config-lists.ts';
import { parseFeedLimits, type FeedLimits } from './feed-limits-config.ts';
import { keyStart, type LoadControlConfig, parseLoadControlConfig } from '../guard/load-control-config.ts';
import type { UpstreamSearchLimits } from '../proxy/upstream-searches.ts';
import { parseUpstreamSearches } from '../proxy/upstream-searches-config.ts';
import { corsOriginProblem } from '../api/cors.ts';
import { DEFAULT_API_SETTINGS } from '../api/settings.ts';
import { parseHttpLimitsConfig } from '../http/http-limits-config.ts';
import type { HttpLimits } from '../http/http-limits.ts';
import { parseTlsConfig, type TlsPaths } from '../http/tls.ts';
import { parseRedisConfig, type RedisConfig } from '../redis/redis-config.ts';
import type { WebRiskLists } from '../../lists/web-risk-lists.ts';
import { parseWebRiskLists } from './web-risk-config.ts';

export type { ListConfig } from './config-lists.ts';
export type { SourceConfig } from './config-sources.ts';
export { DEFAULT_FEED_LIMITS, type FeedLimits } from './feed-limits-config.ts';

/** A server configuration file (docs/configuration.md), checked, with its defaults filled in. */
export interface ServerConfig {
  /** `minimum_wait_duration` of list answers (SB-12). */
  minimumWaitSeconds: number;
  /** `cache_duration` of search answers (SB-8), as configured: the default of the two below. */
  cacheDurationSeconds: number;
  /** `cache_duration` of search answers holding a full hash. */
  positiveCacheDurationSeconds: number;
  /** `cache_duration` of search answers holding none: how long a client may miss an entry just added. */
  negativeCacheDurationSeconds: number;
  /** `minimum_wait_duration` of a list that is changing (SB-12); undefined: `minimumWaitSeconds` always. */
  changingMinimumWaitSeconds?: number;
  /** How long after its last change a list counts as changing. */
  changingWindowSeconds: number;
  /** `Cache-Control: max-age` of list answers: how long an edge cache serves one without asking (SB-11). */
  listCacheSeconds: number;
  /** Versions of each list kept for diffs: a client holding an older one gets the whole list. */
  keepVersions: number;
  /**
   * Absolute: the folder that keeps the published versions across restarts (`sbkit serve --data`, which
   * overrides it); with `--upstream`, where the mirror's client keeps its lists. Undefined: memory only.
   */
  dataDir?: string;
  /** Empty: no key needed. */
  apiKeys: string[];
  /** From `adminToken` or the file `adminTokenFile` names. Undefined: the operator endpoints are off. */
  adminToken: string | undefined;
  /** A caching proxy's key for its upstream, from `upstreamKey` or the file `upstreamKeyFile` names. */
  upstreamKey?: string;
  /** Present when `/admin/*` and `/metrics` are served only on this address, not on the public one. */
  adminListen?: ListenAddress;
  /** Origins whose scripts may call the API (`cors.origins`); empty: none. */
  corsOrigins: string[];
  /** Bounds on reading each source. */
  feedLimits: FeedLimits;
  /** The lists to publish, with their sources. */
  lists: ListConfig[];
  /** Which list answers each Web Risk threat type (`/v1/`). */
  webRiskLists: WebRiskLists;
  /** LC-1..5: the gate in front of every route. */
  loadControl: LoadControlConfig;
  /** A proxy's searches of its upstream: rate, shares and waits (upstream-searches.ts). */
  upstreamSearches: Partial<UpstreamSearchLimits>;
  /** Deadlines and connection caps set here; the others keep their defaults. */
  http: Partial<HttpLimits>;
  /** Present when the server speaks HTTPS (HTTP/2 and HTTP/1.1) with this certificate and key. */
  tls?: TlsPaths;
  /** Present when the instances share through this Redis (`--redis` overrides it). */
  redis?: RedisConfig;
}

const DEFAULT_MINIMUM_WAIT_SECONDS = 1800;
const DEFAULT_CACHE_DURATION_SECONDS = 300;
const DEFAULT_NEGATIVE_CACHE_DURATION_SECONDS = DEFAULT_API_SETTINGS.negativeCacheDurationMs / 1000;
/** SB-11 asks caching proxies to keep list answers five minutes. */
const DEFAULT_LIST_CACHE_SECONDS = 300;
/** An edge cache serves the version before a publish for up to this long: an hour bounds the delay. */
const MAX_LIST_CACHE_SECONDS = 3600;
const DEFAULT_KEEP_VERSIONS = 10;
/** No more than sbkit's own clients obey (RF-3, SB-12): a longer wait would be cut to a day by them anyway. */
const MAX_MINIMUM_WAIT_SECONDS = MAX_MINIMUM_WAIT_MS / 1000;
/** No more than sbkit's own clients keep an answer (SB-8: never past 24 hours). */
const MAX_CACHE_DURATION_SECONDS = MAX_CACHE_DURATION_MS / 1000;

/**
 * How long clients wait between updates (SB-12) and keep search answers (SB-8): each a field of the file
 * and of ServerConfig under the same name, and what a reload puts in force at once (config-reload.ts).
 */
export const CLIENT_TIMING_FIELDS = [
  'minimumWaitSeconds',
  'cacheDurationSeconds',
  'positiveCacheDurationSeconds',
  'negativeCacheDurationSeconds',
  'changingMinimumWaitSeconds',
  'changingWindowSeconds',
] as const satisfies readonly (keyof ServerConfig)[];

const TOP_FIELDS = [
  ...CLIENT_TIMING_FIELDS,
  'listCacheSeconds',
  'keepVersions',
  'dataDir',
  'apiKeys',
  'adminToken',
  'adminTokenFile',
  'upstreamKey',
  'upstreamKeyFile',
  'adminListen',
  'cors',
  'feedTimeoutSeconds',
  'feedMaxMegabytes',
  'feedMaxEntries',
  'lists',
  'webRiskLists',
  'loadControl',
  'upstreamSearches',
  'http',
  'tls',
  'redis',
] as const;

/**
 * Checks a parsed JSON configuration and gives it its typed form, defaults filled in. `baseDir` is the
 * folder relative file paths are resolved against. The files of `adminTokenFile` and `upstreamKeyFile`
 * are read here; feeds and certificates later, by what uses them.
 *
 * @throws {@link ConfigError} naming the first bad field.
 */
export function parseServerConfig(json: unknown, baseDir: string): ServerConfig {
  const top = expectObject(json, '');
  expectKnownFields(top, TOP_FIELDS, '');
  const numberField = (key: string, min: number, fallback: number, integer = false, max?: number) =>
    optionalNumber(top, key, '', { min, integer, ...(max === undefined ? {} : { max }) }) ?? fallback;

  const apiKeys = top.apiKeys === undefined ? [] : expectArrayOf(top.apiKeys, 'apiKeys', expectString);
  const dataDir = top.dataDir === undefined ? undefined : expectString(top.dataDir, 'dataDir');
  const adminToken = secretField(top, 'adminToken', baseDir);
  const upstreamKey = secretField(top, 'upstreamKey', baseDir);
  // A token that can be guessed hands out the operator's pause switch.
  const tokenProblem = adminToken === undefined ? undefined : adminTokenProblem(adminToken);
  if (tokenProblem !== undefined) throw new ConfigError(top.adminTokenFile === undefined ? 'adminToken' : 'adminTokenFile', tokenProblem);
  const corsOrigins = parseCors(top.cors);
  const adminListen = top.adminListen === undefined ? undefined : parseListenAddress(expectString(top.adminListen, 'adminListen'));
  if (adminListen !== undefined && 'problem' in adminListen) throw new ConfigError('adminListen', adminListen.problem);
  const feedLimits = parseFeedLimits(top);

  const tls = parseTlsConfig(top.tls, 'tls', baseDir);
  const redis = parseRedisConfig(top.redis, 'redis');

  const lists = parseLists(top.lists, baseDir);

  const loadControl = parseLoadControlConfig(top.loadControl, 'loadControl');
  for (const key of Object.keys(loadControl.settings.keyBudgets ?? {})) {
    if (!apiKeys.includes(key))
      throw new ConfigError(`loadControl.keyBudgets["${keyStart(key)}"]`, 'is no key of apiKeys; a budget belongs to a key clients use');
  }

  const minimumWaitSeconds = numberField('minimumWaitSeconds', 1, DEFAULT_MINIMUM_WAIT_SECONDS, false, MAX_MINIMUM_WAIT_SECONDS);
  const cacheDurationSeconds = numberField('cacheDurationSeconds', 0, DEFAULT_CACHE_DURATION_SECONDS, false, MAX_CACHE_DURATION_SECONDS);
  return {
    minimumWaitSeconds,
    cacheDurationSeconds,
    positiveCacheDurationSeconds: numberField('positiveCacheDurationSeconds', 0, cacheDurationSeconds, false, MAX_CACHE_DURATION_SECONDS),
    negativeCacheDurationSeconds: numberField(
      'negativeCacheDurationSeconds',
      0,
      Math.min(DEFAULT_NEGATIVE_CACHE_DURATION_SECONDS, cacheDurationSeconds),
      false,
      MAX_CACHE_DURATION_SECONDS,
    ),
    ...parseChanging(top, minimumWaitSeconds),
    listCacheSeconds: numberField('listCacheSeconds', 0, DEFAULT_LIST_CACHE_SECONDS, true, MAX_LIST_CACHE_SECONDS),
    keepVersions: numberField('keepVersions', 1, DEFAULT_KEEP_VERSIONS, true),
    ...(dataDir === undefined ? {} : { dataDir: resolve(baseDir, dataDir) }),
    apiKeys,
    adminToken,
    ...(upstreamKey === undefined ? {} : { upstreamKey }),
    ...(adminListen === undefined ? {} : { adminListen }),
    corsOrigins,
    feedLimits,
    lists,
    webRiskLists: parseWebRiskLists(top.webRiskLists, lists),
    loadControl,
    upstreamSearches: parseUpstreamSearches(top.upstreamSearches),
    http: parseHttpLimitsConfig(top.http, 'http'),
    ...(tls === undefined ? {} : { tls }),
    ...(redis === undefined ? {} : { redis }),
  };
}

/**
 * A key or token given as `field` itself, or as the file `${field}File` names (relative to `baseDir`):
 * one of the two, never both. Read at every parse, so that a reload takes a file replaced meanwhile.
 */
function secretField(top: JsonObject, field: 'adminToken' | 'upstreamKey', baseDir: string): string | undefined {
  const fileField = `${field}File`;
  if (top[field] !== undefined && top[fileField] !== undefined) {
    throw new ConfigError(fileField, `and ${field} give the same secret twice: keep one`);
  }
  if (top[fileField] === undefined) return top[field] === undefined ? undefined : expectString(top[field], field);
  const path = resolve(baseDir, expectString(top[fileField], fileField));
  const read = readSecretFile(path);
  if ('problem' in read) throw new ConfigError(fileField, `names ${path}, which ${read.problem}`);
  return read.secret;
}

/**
 * Reads and checks a configuration file (docs/configuration.md); relative paths in it are resolved
 * against its folder.
 *
 * @throws {@link ConfigError} naming the file and the first bad field.
 */
export async function readServerConfig(file: string): Promise<ServerConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('', `cannot read the configuration file: ${(error as Error).message}`, path);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('', `is not valid JSON: ${(error as Error).message}`, path);
  }
  try {
    return parseServerConfig(json, dirname(path));
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.field, error.problem, path);
    throw error;
  }
}

/** Firefox ignores a `minimum_wait_duration` under this and then waits 30 minutes (docs/api.md §3 pitfall 6). */
const FIREFOX_LEAST_WAIT_SECONDS = 300;

/**
 * What a configuration sets that it may, but that some client will not take as meant, in words for the
 * operator's log (at start and at each reload): a wait Firefox ignores. Other clients honour any wait
 * SB-12 allows, so the configuration is not refused.
 */
export function configWarnings(config: ServerConfig): string[] {
  const waits = [
    ['minimumWaitSeconds', config.minimumWaitSeconds],
    ['changingMinimumWaitSeconds', config.changingMinimumWaitSeconds],
  ] as const;
  return waits
    .filter(([, seconds]) => seconds !== undefined && seconds < FIREFOX_LEAST_WAIT_SECONDS)
    .map(
      ([field, seconds]) =>
        `${field} is ${seconds}: Firefox ignores a minimum_wait_duration under ${FIREFOX_LEAST_WAIT_SECONDS} s and then waits 30 minutes ` +
        `before its next update, so that it gets new entries later, not sooner (other clients honour it); ` +
        `set ${FIREFOX_LEAST_WAIT_SECONDS} or more if Firefox updates from this server`,
    );
}

/**
 * `changingMinimumWaitSeconds` and `changingWindowSeconds`. SB-12: a complete update never carries a zero
 * wait, which tells a client its update was cut short; and a shorter wait than the usual one only.
 */
function parseChanging(
  top: JsonObject,
  minimumWaitSeconds: number,
): Pick<ServerConfig, 'changingMinimumWaitSeconds' | 'changingWindowSeconds'> {
  const window =
    top.changingWindowSeconds === undefined
      ? minimumWaitSeconds
      : expectNumber(top.changingWindowSeconds, 'changingWindowSeconds', { min: 1, max: MAX_MINIMUM_WAIT_SECONDS });
  if (top.changingMinimumWaitSeconds === undefined) {
    if (top.changingWindowSeconds !== undefined)
      throw new ConfigError(
        'changingWindowSeconds',
        'does nothing without changingMinimumWaitSeconds, the wait served while a list is changing',
      );
    return { changingWindowSeconds: window };
  }
  const wait = expectNumber(top.changingMinimumWaitSeconds, 'changingMinimumWaitSeconds', { min: 1, max: minimumWaitSeconds });
  return { changingMinimumWaitSeconds: wait, changingWindowSeconds: window };
}

/** The `cors` section: `{ "origins": [...] }`, each an origin as corsOriginProblem accepts. */
function parseCors(value: unknown): string[] {
  if (value === undefined) return [];
  const section = expectObject(value, 'cors');
  expectKnownFields(section, ['origins'], 'cors');
  if (section.origins === undefined) return [];
  return expectArrayOf(section.origins, 'cors.origins', (entry, at) => {
    const origin = expectString(entry, at);
    const problem = corsOriginProblem(origin);
    if (problem !== undefined) throw new ConfigError(at, problem);
    return origin;
  });
}
