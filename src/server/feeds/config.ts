/**
 * The server configuration file (JSON; docs/configuration.md has the full description):
 *
 * {
 *   "minimumWaitSeconds": 1800,      // minimum_wait_duration of complete list updates (SB-12); 1..86400
 *   "cacheDurationSeconds": 300,     // cache_duration of search answers; 0..86400
 *   "positiveCacheDurationSeconds": 300,   // of answers with a full hash; default cacheDurationSeconds
 *   "negativeCacheDurationSeconds": 30,    // of answers without; default 30, or cacheDurationSeconds when shorter
 *   "changingMinimumWaitSeconds": 300,   // minimum_wait_duration while a list is changing; 1..minimumWaitSeconds; none: off
 *   "changingWindowSeconds": 1800,       // a list is changing this long after its last change; default minimumWaitSeconds
 *   "listCacheSeconds": 300,         // Cache-Control max-age of list answers (edge caches); 0..3600
 *   "keepVersions": 10,              // snapshots kept per list for diffs (SB-9); whole number ≥ 1
 *   "dataDir": "/var/lib/sbkit",     // keep them on disk across restarts (sbkit serve --data); relative to this file's folder
 *   "apiKeys": ["k1", "k2"],         // when non-empty, requests need key=one of these
 *   "adminToken": "…",               // operator endpoints; ≥ 32 random characters (admin-token.ts); none: endpoints off
 *   "adminTokenFile": "admin-token", // or a file that holds it (secret-file.ts), relative to this file's folder
 *   "upstreamKey": "…",              // with sbkit serve --upstream, its API key; or "upstreamKeyFile"
 *   "adminListen": "127.0.0.1:9090", // serve /admin/* and /metrics only on this address and port
 *   "feedTimeoutSeconds": 60,        // per download of an http(s) source
 *   "feedMaxMegabytes": 256,         // largest source read, 1..500 (MiB)
 *   "feedMaxEntries": 2000000,       // most entries of one source (feed-limits-config.ts)
 *   "http": { "requestTimeoutSeconds": 30, "maxConnectionsPerAddress": 100 },  // deadlines, connection caps
 *   "tls": { "cert": "tls/fullchain.pem", "key": "tls/privkey.pem" },        // HTTPS and HTTP/2; relative to this file's folder
 *   "lists": [
 *     { "name": "se-4b",                          // a list name (lists/list-name.ts), unique
 *       "threatTypes": ["SOCIAL_ENGINEERING"],    // or "likelySafeTypes": ["GENERAL_BROWSING"]; exactly one
 *       "hashLength": 4,                          // 4, 8, 16 or 32; default from a -4b/-8b/-16b/-32b suffix, else 4
 *       "description": "phishing",                // optional
 *       "sources": [
 *         { "file": "feeds/openphish.txt", "format": "urls" },           // relative to this file's folder
 *         { "url": "https://urlhaus.abuse.ch/downloads/csv_recent/", "format": "csv", "refreshMinutes": 60,
 *           "name": "urlhaus", "timeoutSeconds": 20, "maxMegabytes": 50 },
 *         { "url": "http://10.0.0.5/feed.txt", "format": "urls", "allowPrivateAddresses": true }, // a feed on your network
 *         { "entries": ["evil.example/", "bad.example/login"] }         // inline, format "expressions" by default
 *       ] }
 *   ]
 * }
 *
 * A source has exactly one of `file`, `url`, `entries`; `format` is one of FEED_FORMATS (required for
 * files and URLs); `csvColumn` (a header name or 0-based index) only for `csv` and `domains`;
 * `refreshMinutes` 1..10080, default 60 for URLs, none (load at start and on reload) for files, and not
 * for inline entries; `allowPrivateAddresses` and `timeoutSeconds` (over feedTimeoutSeconds) only for
 * URLs, `maxMegabytes` (over feedMaxMegabytes) and `maxEntries` (over feedMaxEntries) for URLs and files; `name` (a label for metrics and the
 * status page) for any. Unknown fields are errors, so a misspelt setting cannot silently disable a list.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';
import { HASH_WIDTHS, type HashWidth, listNameProblem, listNameReason, widthOfListName } from '../../lists/list-name.ts';
import { LIKELY_SAFE_TYPES, type LikelySafeTypeName, THREAT_TYPES, type ThreatTypeName } from '../../lists/threat-types.ts';
import { adminTokenProblem } from '../operator/admin-token.ts';
import { readSecretFile } from '../operator/secret-file.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import { type ListenAddress, parseListenAddress } from '../http/listen-address.ts';
import { ConfigError } from './config-error.ts';
import {
  elementOf,
  expectArray,
  expectChoices,
  expectKnownFields,
  expectNumber,
  expectObject,
  describe,
  expectString,
  fieldOf,
  type JsonObject,
} from './config-fields.ts';
import type { CsvColumn } from './formats/csv-feed.ts';
import { FEED_FORMATS, type FeedFormat } from './formats/feed-formats.ts';
import { parseFeedLimits, parseSourceLimits, type FeedLimits, type SourceLimits } from './feed-limits-config.ts';
import { keyStart, type LoadControlConfig, parseLoadControlConfig } from '../guard/load-control-config.ts';
import type { UpstreamSearchLimits } from '../proxy/upstream-searches.ts';
import { parseUpstreamSearches } from '../proxy/upstream-searches-config.ts';
import { corsOriginProblem } from '../api/cors.ts';
import { DEFAULT_API_SETTINGS } from '../api/settings.ts';
import { parseHttpLimitsConfig } from '../http/http-limits-config.ts';
import type { HttpLimits } from '../http/http-limits.ts';
import { parseTlsConfig, type TlsPaths } from '../http/tls.ts';

const LIKELY_SAFE_TYPE_NAMES: readonly LikelySafeTypeName[] = Object.values(LIKELY_SAFE_TYPES);
const THREAT_TYPE_NAMES: readonly ThreatTypeName[] = Object.values(THREAT_TYPES);
/** docs/api.md `HashListMetadata.HashLength`: the widths a list can serve. */

interface FeedReading {
  format: FeedFormat;
  /** Only for the `csv` and `domains` formats. */
  csvColumn: CsvColumn | undefined;
  /** How the status page and metrics name the source, when the operator gave it a name. */
  name?: string;
}

interface FileSource extends FeedReading, SourceLimits {
  kind: 'file';
  /** Absolute: relative paths are resolved against the configuration file's folder. */
  path: string;
  /** Minutes between reloads, or undefined to load at start and on an operator's reload only. */
  refreshMinutes: number | undefined;
}

interface UrlSource extends FeedReading, SourceLimits {
  kind: 'url';
  /** An http: or https: URL. */
  url: string;
  refreshMinutes: number;
  /** Present when the operator lets this feed and its redirects reach loopback and private addresses (source-reader.ts). */
  allowPrivateAddresses?: true;
  /** Whole download, redirects included, in ms. */
  timeoutMs?: number;
}

interface EntriesSource extends FeedReading {
  kind: 'entries';
  /** One entry per element, read like the lines of a feed in `format`. */
  entries: string[];
}

export type SourceConfig = FileSource | UrlSource | EntriesSource;

/** One published list: what it is (exactly one of threatTypes and likelySafeTypes is non-empty) and where its entries come from. */
export interface ListConfig extends ListDefinition {
  sources: SourceConfig[];
}

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
  /** LC-1..5: the gate in front of every route. */
  loadControl: LoadControlConfig;
  /** A proxy's searches of its upstream: rate, shares and waits (upstream-searches.ts). */
  upstreamSearches: Partial<UpstreamSearchLimits>;
  /** Deadlines and connection caps set here; the others keep their defaults. */
  http: Partial<HttpLimits>;
  /** Present when the server speaks HTTPS (HTTP/2 and HTTP/1.1) with this certificate and key. */
  tls?: TlsPaths;
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
const DEFAULT_URL_REFRESH_MINUTES = 60;
/** A week: far beyond any feed's publishing cycle, and well inside what Node timers hold (24.8 days). */
const MAX_REFRESH_MINUTES = 7 * 24 * 60;

const TOP_FIELDS = [
  'minimumWaitSeconds',
  'cacheDurationSeconds',
  'positiveCacheDurationSeconds',
  'negativeCacheDurationSeconds',
  'changingMinimumWaitSeconds',
  'changingWindowSeconds',
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
  'loadControl',
  'upstreamSearches',
  'http',
  'tls',
] as const;
const LIST_FIELDS = ['name', 'threatTypes', 'likelySafeTypes', 'hashLength', 'description', 'sources'] as const;
const SOURCE_KINDS = ['file', 'url', 'entries'] as const;
const READING_FIELDS = ['format', 'csvColumn', 'name'] as const;
/** A source's name is a metric label and a word on the status page: short, plain. */
const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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
    top[key] === undefined ? fallback : expectNumber(top[key], key, { min, integer, ...(max === undefined ? {} : { max }) });

  const apiKeys =
    top.apiKeys === undefined ? [] : expectArray(top.apiKeys, 'apiKeys').map((key, i) => expectString(key, elementOf('apiKeys', i)));
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

  const lists =
    top.lists === undefined ? [] : expectArray(top.lists, 'lists').map((list, i) => parseList(list, elementOf('lists', i), baseDir));
  const names = new Set<string>();
  lists.forEach((list, i) => {
    if (names.has(list.name))
      throw new ConfigError(fieldOf(elementOf('lists', i), 'name'), `repeats the list name ${list.name}; list names must be unique`);
    names.add(list.name);
  });

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
    loadControl,
    upstreamSearches: parseUpstreamSearches(top.upstreamSearches),
    http: parseHttpLimitsConfig(top.http, 'http'),
    ...(tls === undefined ? {} : { tls }),
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

function parseList(value: unknown, field: string, baseDir: string): ListConfig {
  const list = expectObject(value, field);
  expectKnownFields(list, LIST_FIELDS, field);
  const nameField = fieldOf(field, 'name');
  if (typeof list.name !== 'string') throw new ConfigError(nameField, `must be a list name such as se-4b, not ${describe(list.name)}`);
  const name = list.name;
  const problem = listNameProblem(name);
  if (problem !== undefined) throw new ConfigError(nameField, listNameReason(name, problem));

  if ((list.threatTypes === undefined) === (list.likelySafeTypes === undefined)) {
    throw new ConfigError(
      field,
      'needs exactly one of threatTypes (a threat list) and likelySafeTypes (a likely-safe list such as the global cache)',
    );
  }
  const threatTypes =
    list.threatTypes === undefined ? [] : expectChoices(list.threatTypes, fieldOf(field, 'threatTypes'), THREAT_TYPE_NAMES);
  const likelySafeTypes =
    list.likelySafeTypes === undefined
      ? []
      : expectChoices(list.likelySafeTypes, fieldOf(field, 'likelySafeTypes'), LIKELY_SAFE_TYPE_NAMES);

  const description = list.description === undefined ? '' : expectString(list.description, fieldOf(field, 'description'));
  const sources = expectArray(list.sources, fieldOf(field, 'sources')).map((source, i) =>
    parseSource(source, elementOf(fieldOf(field, 'sources'), i), baseDir),
  );
  return {
    name,
    threatTypes,
    likelySafeTypes,
    hashLength: parseHashLength(list.hashLength, name, fieldOf(field, 'hashLength')),
    description,
    sources,
  };
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

/** The configured width, or the one the name states; the two must agree, as clients pick lists by name. */
function parseHashLength(value: unknown, name: string, field: string): HashWidth {
  // v5 names state their hash width: `se-4b`, `gc-32b`.
  const named = widthOfListName(name);
  if (value === undefined) return named ?? 4;
  if (!HASH_WIDTHS.includes(value as HashWidth)) {
    throw new ConfigError(field, `must be one of ${HASH_WIDTHS.join(', ')} (bytes), not ${JSON.stringify(value)}`);
  }
  if (named !== undefined && named !== value) {
    throw new ConfigError(field, `is ${JSON.stringify(value)} but the list name ${name} says ${named} bytes; change one of them`);
  }
  return value as HashWidth;
}

function parseSource(value: unknown, field: string, baseDir: string): SourceConfig {
  const source = expectObject(value, field);
  const kinds = SOURCE_KINDS.filter((kind) => source[kind] !== undefined);
  if (kinds.length !== 1) {
    throw new ConfigError(
      field,
      `needs exactly one of "file", "url" and "entries"${kinds.length > 1 ? `, not ${kinds.join(' and ')}` : ''}`,
    );
  }
  const kind = kinds[0]!;
  const kindFields = {
    file: ['refreshMinutes', 'maxMegabytes', 'maxEntries'],
    url: ['refreshMinutes', 'allowPrivateAddresses', 'timeoutSeconds', 'maxMegabytes', 'maxEntries'],
    entries: [],
  }[kind];
  expectKnownFields(source, [kind, ...READING_FIELDS, ...kindFields], field);
  const reading = parseReading(source, field, kind === 'entries' ? 'expressions' : undefined);
  const refreshField = fieldOf(field, 'refreshMinutes');
  const refreshMinutes =
    source.refreshMinutes === undefined
      ? undefined
      : expectNumber(source.refreshMinutes, refreshField, { min: 1, max: MAX_REFRESH_MINUTES });

  const { timeoutMs, ...limits } = parseSourceLimits(source, field);

  switch (kind) {
    case 'file':
      return { kind, path: resolve(baseDir, expectString(source.file, fieldOf(field, 'file'))), ...reading, ...limits, refreshMinutes };
    case 'url':
      return {
        kind,
        url: parseFeedUrl(source.url, fieldOf(field, 'url')),
        ...reading,
        ...limits,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        refreshMinutes: refreshMinutes ?? DEFAULT_URL_REFRESH_MINUTES,
        ...(parseAllowPrivate(source.allowPrivateAddresses, fieldOf(field, 'allowPrivateAddresses'))
          ? { allowPrivateAddresses: true }
          : {}),
      };
    case 'entries':
      return { kind, entries: parseEntries(source.entries, fieldOf(field, 'entries')), ...reading };
  }
}

function parseReading(source: JsonObject, field: string, defaultFormat: FeedFormat | undefined): FeedReading {
  const formatField = fieldOf(field, 'format');
  if (source.format === undefined && defaultFormat === undefined) {
    throw new ConfigError(formatField, `is required: one of ${FEED_FORMATS.join(', ')}`);
  }
  const format = source.format === undefined ? defaultFormat : source.format;
  if (!FEED_FORMATS.includes(format as FeedFormat)) {
    throw new ConfigError(formatField, `must be one of ${FEED_FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  }
  const columnField = fieldOf(field, 'csvColumn');
  let csvColumn: CsvColumn | undefined;
  if (source.csvColumn !== undefined) {
    if (format !== 'csv' && format !== 'domains') {
      throw new ConfigError(columnField, `only csv and domains feeds have columns; this source's format is ${JSON.stringify(format)}`);
    }
    csvColumn =
      typeof source.csvColumn === 'number'
        ? expectNumber(source.csvColumn, columnField, { min: 0, max: 10_000, integer: true })
        : expectString(source.csvColumn, columnField);
  }
  const nameField = fieldOf(field, 'name');
  const name = source.name === undefined ? undefined : expectString(source.name, nameField);
  if (name !== undefined && !SOURCE_NAME.test(name)) {
    throw new ConfigError(
      nameField,
      'must be 1 to 64 letters, digits, ".", "_" and "-", starting with a letter or digit (it labels metrics)',
    );
  }
  return { format: format as FeedFormat, csvColumn, ...(name === undefined ? {} : { name }) };
}

function parseFeedUrl(value: unknown, field: string): string {
  const text = expectString(value, field);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(field, `${JSON.stringify(text)} is not an absolute URL; a file path goes in "file"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(field, `must be an http: or https: URL, not ${url.protocol}; a local file goes in "file"`);
  }
  return url.href;
}

function parseAllowPrivate(value: unknown, field: string): boolean {
  if (value === undefined || typeof value === 'boolean') return value === true;
  throw new ConfigError(field, `must be true or false, not ${describe(value)}`);
}

/** Inline entries are feed lines, so each must be one line. */
function parseEntries(value: unknown, field: string): string[] {
  return expectArray(value, field).map((entry, i) => {
    const text = expectString(entry, elementOf(field, i));
    if (/[\r\n]/.test(text)) throw new ConfigError(elementOf(field, i), 'must be one line: put each entry in its own string');
    return text;
  });
}

/** The `cors` section: `{ "origins": [...] }`, each an origin as corsOriginProblem accepts. */
function parseCors(value: unknown): string[] {
  if (value === undefined) return [];
  const section = expectObject(value, 'cors');
  expectKnownFields(section, ['origins'], 'cors');
  if (section.origins === undefined) return [];
  return expectArray(section.origins, 'cors.origins').map((entry, i) => {
    const at = elementOf('cors.origins', i);
    const origin = expectString(entry, at);
    const problem = corsOriginProblem(origin);
    if (problem !== undefined) throw new ConfigError(at, problem);
    return origin;
  });
}
