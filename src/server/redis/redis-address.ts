// Where Redis is, as an operator gives it: one server (redis://, rediss://), a Sentinel set
// (redis+sentinel://host:26379,host:26380/mymaster), a Cluster's seed nodes (redis+cluster://host:7000,…),
// or the configuration file's object form of the last two. Read here into one RedisAddress, which
// redis-clients.ts turns into node-redis's createClient, createSentinel or createCluster.

/** One server of a Sentinel set or a Cluster. */
interface RedisNode {
  host: string;
  port: number;
}

/** The configuration file's object form of `redis` (docs/configuration.md "Redis"). */
export interface RedisServers {
  /** A URL of any form; not with `sentinels` or `cluster`. */
  url?: string;
  /** `host:port` of Sentinels, with `name`, the primary they watch. */
  sentinels?: readonly string[];
  name?: string;
  /** `host:port` of a Cluster's seed nodes. */
  cluster?: readonly string[];
  username?: string;
  password?: string;
  /** The database of a Sentinel set's primary; a Cluster has only 0. */
  db?: number;
}

/** What the operator gave: a URL, or the configuration's object. */
export type RedisTarget = string | RedisServers;

interface Credentials {
  username?: string;
  password?: string;
}

/** Redis as sbkit connects to it. */
export type RedisAddress =
  | { kind: 'single'; url: string }
  | ({ kind: 'sentinel'; name: string; sentinels: RedisNode[]; db: number } & Credentials)
  | ({ kind: 'cluster'; nodes: RedisNode[] } & Credentials);

const DEFAULT_SENTINEL_PORT = 26379;
const DEFAULT_CLUSTER_PORT = 6379;
const SENTINEL_SCHEME = 'redis+sentinel:';
const CLUSTER_SCHEME = 'redis+cluster:';
const UNENCODED_CREDENTIALS =
  "a '/', '?' or '#' in the user or password is percent-encoded (%2F, %3F, %23): unencoded, it ends the host part of the URL";

/**
 * The address `target` gives, or the reason it gives none (a message for the operator, to be
 * wrapped in RedisConnectionError 'invalid-url' by the caller).
 */
export function readRedisAddress(target: RedisTarget): RedisAddress | { problem: string } {
  if (typeof target !== 'string') return readServers(target);
  const { scheme: withSlashes, userInfo, rest } = splitAtCredentials(target);
  if (userInfo !== undefined && /[/?#]/.test(userInfo)) return { problem: UNENCODED_CREDENTIALS };
  const scheme = /^[a-z+]+:/i.exec(target)?.[0].toLowerCase();
  if (scheme !== SENTINEL_SCHEME && scheme !== CLUSTER_SCHEME) return { kind: 'single', url: target };
  // new URL() takes one host: the list of hosts is cut out and read here.
  const match = /^([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/.exec(rest);
  if (!withSlashes || match === null)
    return { problem: `${scheme}//[user:password@]host:port,host:port${scheme === SENTINEL_SCHEME ? '/name' : ''} is its form` };
  const [, hostList = '', path = '', query = ''] = match;
  const credentials = credentialsOf(userInfo);
  if ('problem' in credentials) return credentials;
  const nodes = nodesOf(hostList.split(','), scheme === SENTINEL_SCHEME ? DEFAULT_SENTINEL_PORT : DEFAULT_CLUSTER_PORT);
  if ('problem' in nodes) return nodes;
  const params = new URLSearchParams(query);
  if (scheme === CLUSTER_SCHEME) {
    if (path !== '' && path !== '/') return { problem: 'a Cluster has no name or database after its nodes' };
    if ([...params.keys()].length > 0) return { problem: `a Cluster URL takes no ?${[...params.keys()][0]}` };
    return { kind: 'cluster', nodes, ...credentials };
  }
  const name = decodedName(path.replace(/^\//, ''));
  if (name === '' || name.includes('/')) return { problem: 'the name of the primary the Sentinels watch comes after the hosts: /mymaster' };
  const unknown = [...params.keys()].find((key) => key !== 'db');
  if (unknown !== undefined) return { problem: `a Sentinel URL takes ?db=N only, not ?${unknown}` };
  const db = databaseOf(params.get('db') ?? '0');
  if (typeof db !== 'number') return db;
  return { kind: 'sentinel', name, sentinels: nodes, db, ...credentials };
}

/** A label for logs and messages: the address without user or password. */
export function redisLabel(target: RedisTarget): string {
  const address = readRedisAddress(target);
  if ('problem' in address) {
    // Quoted: an address that is none may hold anything; redactedUrl quotes what new URL() cannot read.
    const shown = typeof target === 'string' ? redactedUrl(target) : '(redis object)';
    return shown.startsWith('"') ? shown : JSON.stringify(shown);
  }
  switch (address.kind) {
    case 'single':
      return redactedUrl(address.url);
    case 'sentinel':
      return `${SENTINEL_SCHEME}//${address.sentinels.map(hostPort).join(',')}/${address.name}${address.db === 0 ? '' : `?db=${address.db}`}`;
    case 'cluster':
      return `${CLUSTER_SCHEME}//${address.nodes.map(hostPort).join(',')}`;
  }
}

function readServers(servers: RedisServers): RedisAddress | { problem: string } {
  const forms = (['url', 'sentinels', 'cluster'] as const).filter((field) => servers[field] !== undefined);
  if (forms.length !== 1) return { problem: 'the object names one of url, sentinels (with name) or cluster' };
  if (servers.url !== undefined) return readRedisAddress(servers.url);
  const credentials = {
    ...(servers.username === undefined ? {} : { username: servers.username }),
    ...(servers.password === undefined ? {} : { password: servers.password }),
  };
  if (servers.cluster !== undefined) {
    if (servers.name !== undefined || servers.db !== undefined) return { problem: 'a Cluster has no name and no db' };
    const nodes = nodesOf(servers.cluster, DEFAULT_CLUSTER_PORT);
    return 'problem' in nodes ? nodes : { kind: 'cluster', nodes, ...credentials };
  }
  const nodes = nodesOf(servers.sentinels!, DEFAULT_SENTINEL_PORT);
  if ('problem' in nodes) return nodes;
  if (servers.name === undefined || servers.name === '') return { problem: 'sentinels go with name, the primary they watch' };
  const db = databaseOf(String(servers.db ?? 0));
  if (typeof db !== 'number') return db;
  return { kind: 'sentinel', name: servers.name, sentinels: nodes, db, ...credentials };
}

function nodesOf(hosts: readonly string[], defaultPort: number): RedisNode[] | { problem: string } {
  const nodes: RedisNode[] = [];
  for (const given of hosts) {
    // [v6]:port, host:port, or a host alone on the default port.
    const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(given.trim());
    const port = Number(match?.[2] ?? defaultPort);
    if (match === null || !(port > 0 && port <= 65535)) return { problem: `"${given}" is no host:port` };
    nodes.push({ host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port });
  }
  if (nodes.length === 0) return { problem: 'no host given' };
  return nodes;
}

/** The primary's name from a URL's path; '' when it is not percent-encoded as a URL takes it. */
function decodedName(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return '';
  }
}

function databaseOf(text: string): number | { problem: string } {
  const db = Number(text);
  return /^\d+$/.test(text) && db <= 15 ? db : { problem: `db is a database number from 0 to 15, not "${text}"` };
}

function credentialsOf(userInfo: string | undefined): Credentials | { problem: string } {
  if (userInfo === undefined || userInfo === '') return {};
  const colon = userInfo.indexOf(':');
  try {
    const username = decodeURIComponent(colon < 0 ? userInfo : userInfo.slice(0, colon));
    const password = colon < 0 ? undefined : decodeURIComponent(userInfo.slice(colon + 1));
    // redis://:password@host: a password for the default user.
    return { ...(username === '' ? {} : { username }), ...(password === undefined ? {} : { password }) };
  } catch {
    return { problem: 'the user or password is not percent-encoded as a URL takes it' };
  }
}

function hostPort(node: RedisNode): string {
  return `${node.host.includes(':') ? `[${node.host}]` : node.host}:${node.port}`;
}

/**
 * A URL's scheme with its `//` ('' without), its user and password, and what follows them: everything
 * between `//` and the last `@` is taken for the credentials, whatever it holds (an `@` of a password may
 * go unencoded, as new URL() reads it), so that no part of a password is ever read as a host. No `@`: no
 * credentials.
 */
function splitAtCredentials(url: string): { scheme: string; userInfo: string | undefined; rest: string } {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const at = url.lastIndexOf('@');
  if (at < scheme.length) return { scheme, userInfo: undefined, rest: url.slice(scheme.length) };
  return { scheme, userInfo: url.slice(scheme.length, at), rest: url.slice(at + 1) };
}

/**
 * The URL as it may appear in logs: without user and password, nor query. What lies between `//` and the
 * last `@` goes whatever it holds: a password with an unencoded `#`, `?` or `/` ends the host part as
 * new URL() reads it, which would leave the password in the host, the path or the fragment.
 */
function redactedUrl(url: string): string {
  const { scheme, rest } = splitAtCredentials(url);
  const shown = scheme + rest;
  try {
    const parsed = new URL(shown);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return JSON.stringify(shown.replace(/[?#].*$/s, ''));
  }
}
