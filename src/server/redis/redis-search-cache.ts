import { randomUUID } from 'node:crypto';
import { MAX_CACHE_DURATION_MS } from '../../wire/duration-caps.ts';
import { type FullHashMatch, type ThreatDetail } from '../../lists/threat-details.ts';
import { THREAT_ATTRIBUTES, THREAT_TYPES, type ThreatAttributeName, type ThreatTypeName } from '../../lists/threat-types.ts';
import type { CachedSearch, SharedSearchCache } from '../api/full-hash-source.ts';
import { prefix32 } from '../../url/hash.ts';
import { connectRedis, DEFAULT_KEY_PREFIX, type RedisConnection, type RedisOptions } from './redis-connection.ts';
import { RedisReachability } from './redis-reachability.ts';
import { type Logger, loggerOf } from '../logger.ts';

/** A search waits at most this long for the cache. */
const DEFAULT_TIMEOUT_MS = 500;
const KNOWN_TYPES: ReadonlySet<unknown> = new Set(Object.values(THREAT_TYPES));
const KNOWN_ATTRIBUTES: ReadonlySet<unknown> = new Set(Object.values(THREAT_ATTRIBUTES));
const isThreatType = (value: unknown): value is ThreatTypeName => KNOWN_TYPES.has(value);
const isAttribute = (value: unknown): value is ThreatAttributeName => KNOWN_ATTRIBUTES.has(value);

/*
 * A claim of one prefix (KEYS[1]) for the instance ARGV[1], for ARGV[2] ms: 1 when it is this instance's
 * (taken now, or held already), 0 when another instance holds it. One key a call: no hash tag needed.
 */
const CLAIM_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then return 1 end
return 0
`;

/** What one key holds: when the answer expires, and the full hashes (base64) with their details. */
interface StoredSearch {
  expiresAt: number;
  fullHashes: { hash: string; details: ThreatDetail[] }[];
}

/**
 * The upstream's answers to hashes:search, shared by the proxy instances in front of it (SB-11: a
 * caching proxy answers from its cache first), one key per 4-byte prefix:
 *   {prefix}search:{8 hex digits}          JSON of StoredSearch; Redis drops it when the answer expires
 *   {prefix}search-claim:{8 hex digits}    the instance asking the upstream for that prefix now (claim)
 * Negative answers (no full hash under the prefix) are kept like the others. The keys have no hash tag:
 * in a Cluster they spread over its nodes, each read with a GET of its own (issued together, node-redis
 * sends those of one node in one round trip), as one MGET of keys of several slots is refused. Searches never fail
 * because of Redis: while it is away the cache knows nothing and keeps nothing, which it says once.
 */
export class RedisSearchCache implements SharedSearchCache {
  private readonly reachability: RedisReachability;
  /** This instance, as its claims name it. */
  private readonly claimant = randomUUID();

  private constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    log: Logger,
  ) {
    this.reachability = new RedisReachability(log);
    connection.client.on('error', (error: Error) => this.failed(error));
    connection.client.on('ready', () => this.answered());
  }

  /**
   * Connects to Redis; rejects with RedisConnectionError when it cannot (when Redis does not answer,
   * only without `watch.retry`: with it, the cache knows nothing until Redis answers).
   */
  static async connect(options: RedisOptions): Promise<RedisSearchCache> {
    const connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch);
    return new RedisSearchCache(connection, options.keyPrefix ?? DEFAULT_KEY_PREFIX, loggerOf(options.log));
  }

  async lookup(prefixes: readonly number[], now: number): Promise<Map<number, CachedSearch>> {
    const found = new Map<number, CachedSearch>();
    if (prefixes.length === 0) return found;
    let values: (Buffer | null)[];
    try {
      values = await Promise.all(prefixes.map((prefix) => this.connection.client.get(this.key(prefix))));
    } catch (error) {
      this.failed(error);
      return found;
    }
    this.answered();
    values.forEach((value, i) => {
      const prefix = prefixes[i]!;
      const entry = value === null ? undefined : parseStoredSearch(value.toString('utf8'));
      if (entry === undefined || entry.expiresAt <= now) return;
      // Only what an upstream could have answered: hashes under this prefix, for at most 24 h (SB-4).
      if (entry.expiresAt > now + MAX_CACHE_DURATION_MS || entry.fullHashes.some((match) => prefix32(match.fullHash) !== prefix)) return;
      found.set(prefix, entry);
    });
    return found;
  }

  async store(prefixes: readonly number[], fullHashes: readonly FullHashMatch[], expiresAt: number): Promise<void> {
    const writes = prefixes.map((prefix) => {
      const under = fullHashes.filter((match) => match.fullHash.length === 32 && prefix32(match.fullHash) === prefix);
      const stored: StoredSearch = {
        expiresAt,
        fullHashes: under.map((match) => ({ hash: Buffer.from(match.fullHash, 'latin1').toString('base64'), details: match.details })),
      };
      return this.connection.client.set(this.key(prefix), JSON.stringify(stored), {
        expiration: { type: 'PXAT', value: Math.ceil(expiresAt) },
      });
    });
    try {
      // Issued together, node-redis sends them in one round trip.
      await Promise.all(writes);
    } catch (error) {
      this.failed(error);
      return;
    }
    this.answered();
  }

  async claim(prefixes: readonly number[], ttlMs: number): Promise<Set<number>> {
    const others = new Set<number>();
    let held: unknown[];
    try {
      held = await Promise.all(
        prefixes.map((prefix) =>
          this.connection.client.eval(CLAIM_SCRIPT, {
            keys: [this.key(prefix, 'search-claim')],
            arguments: [this.claimant, String(ttlMs)],
          }),
        ),
      );
    } catch (error) {
      this.failed(error);
      return others;
    }
    this.answered();
    held.forEach((mine, i) => {
      if (mine === 0) others.add(prefixes[i]!);
    });
    return others;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private key(prefix: number, kind: 'search' | 'search-claim' = 'search'): string {
    return `${this.keyPrefix}${kind}:${prefix.toString(16).padStart(8, '0')}`;
  }

  private answered(): void {
    this.reachability.answered(`the search cache in Redis at ${this.connection.label} answers again`);
  }

  private failed(error: unknown): void {
    this.reachability.failed(
      `the search cache in Redis at ${this.connection.label} failed (${error instanceof Error ? error.message : String(error)}): searches go to the upstream until it answers again`,
    );
  }
}

/** A stored answer, or undefined for anything that is not one (the key holds what anyone wrote there). */
function parseStoredSearch(text: string): CachedSearch | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { expiresAt, fullHashes } = parsed as Partial<StoredSearch>;
  if (typeof expiresAt !== 'number' || !Array.isArray(fullHashes)) return undefined;
  const matches: FullHashMatch[] = [];
  for (const entry of fullHashes as unknown[]) {
    const match = parseMatch(entry);
    if (match === undefined) return undefined;
    matches.push(match);
  }
  return { expiresAt, fullHashes: matches };
}

function parseMatch(entry: unknown): FullHashMatch | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { hash, details } = entry as { hash?: unknown; details?: unknown };
  if (typeof hash !== 'string' || !Array.isArray(details)) return undefined;
  const bytes = Buffer.from(hash, 'base64');
  if (bytes.length !== 32) return undefined;
  const known: ThreatDetail[] = [];
  for (const detail of details as unknown[]) {
    const { threatType, attributes } = (detail ?? {}) as { threatType?: unknown; attributes?: unknown };
    if (!isThreatType(threatType) || !Array.isArray(attributes) || !attributes.every(isAttribute)) return undefined;
    known.push({ threatType, attributes });
  }
  return { fullHash: bytes.toString('latin1'), details: known };
}
