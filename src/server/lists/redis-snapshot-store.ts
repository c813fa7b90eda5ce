import { hashBytes, hashesFromBytes, type SortedHashes } from '../../store/hash-list.ts';
import type { HashWidth } from '../../lists/list-name.ts';
import { connectRedis, DEFAULT_KEY_PREFIX, type RedisClient, RedisConnectionError } from '../redis-connection.ts';
import { BoundedCache } from './bounded-cache.ts';
import { ListError } from './list-error.ts';
import type { ListDefinition } from './list-definition.ts';
import type { ListHistory } from './list-history.ts';
import { Snapshot } from './snapshot.ts';
import type { SnapshotStore } from './snapshot-store.ts';
import { SnapshotStoreError } from './snapshot-store-error.ts';

export interface RedisSnapshotStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. */
  url: string;
  /** Starts every key: instances that serve the same lists share it; tests use one of their own. */
  keyPrefix?: string;
  /**
   * Milliseconds between looks for publications by other instances; 0: none, only `refresh()` and this
   * instance's own publications bring news.
   */
  refreshMs?: number;
  /** Bound on connecting and on each command (a 2 M-entry snapshot is 64 MB on the wire). */
  timeoutMs?: number;
  /** Where to say that Redis failed or answers again, or that a snapshot there cannot be used. */
  log?: (message: string) => void;
}

const DEFAULT_REFRESH_MS = 1000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Snapshots reported as unusable, remembered so that a look every second does not log each time. */
const REPORTED_SNAPSHOTS = 256;

/*
 * Publishing, atomically (a script runs alone in Redis): the snapshot's content is stored unless it is
 * there already (ids are content-derived: same id, same content), its id moves to the newest end of the
 * list's history, and the oldest beyond `keep` leave the history along with their content. Without
 * content the script stores nothing and answers nil when the content is missing, so that publishing
 * a snapshot Redis holds already costs no upload. A publication marked `ordered` (a mirror's, stamped
 * with the time its upstream answered) leaves the history alone when the list's newest stamp is later
 * (a stamp per list, not per content: a content that comes back is as new as its latest publication).
 * Answers the history, oldest first.
 *   KEYS: history, the snapshot's content, the list's newest mirror stamp
 *   ARGV: id, keep, content key prefix, createdAt, content field, ordered ('1' or '0')[, content]
 * The keys of one list share the hash tag {name}, so the script touches one cluster slot.
 */
const PUBLISH_SCRIPT = `
local history, content, received = KEYS[1], KEYS[2], KEYS[3]
local id, keep, prefix, createdAt, field = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5]
local ordered = ARGV[6] == '1'
if ordered then
  local currentAt = tonumber(redis.call('GET', received))
  if currentAt and currentAt > createdAt and redis.call('LINDEX', history, -1) ~= id then
    return redis.call('LRANGE', history, 0, -1)
  end
end
if redis.call('EXISTS', content) == 0 then
  if ARGV[7] == nil then return false end
  redis.call('HSET', content, field, ARGV[7], 'createdAt', ARGV[4])
end
if ordered then
  local currentAt = tonumber(redis.call('GET', received))
  if not currentAt or currentAt < createdAt then redis.call('SET', received, ARGV[4]) end
end
redis.call('LREM', history, 0, id)
redis.call('RPUSH', history, id)
while redis.call('LLEN', history) > keep do
  redis.call('DEL', prefix .. redis.call('LPOP', history))
end
return redis.call('LRANGE', history, 0, -1)
`;

/** How a snapshot's content is stored: full hashes of a list of our own, or the served hashes of a mirror. */
type Content = { field: 'fullHashes'; bytes: Uint8Array; ordered: false } | { field: 'served'; bytes: Uint8Array; ordered: true };

/**
 * Published snapshots shared by server instances through Redis (docs/architecture.md "Scale"), so that all of them
 * serve the same versions, diffs and checksums. Every instance may publish; ids are content-derived,
 * so the same content is the same version wherever it was published, and the history's order is the
 * order in which publications reached Redis.
 *
 * Keys, for a list `name` (prefix `sbkit:` by default):
 *   {prefix}list:{name}:history          LIST of snapshot ids, oldest first, the last current; at most keep
 *   {prefix}list:{name}:snapshot:{id}    HASH fullHashes (sorted 32-byte hashes, concatenated) or, for a
 *                                        mirrored list, served (its sorted hashes), and createdAt (ms)
 *   {prefix}list:{name}:received         for a mirrored list, when the upstream sent its newest copy (ms)
 *
 * Requests never wait for Redis: they are answered from each ListHistory's memory. The store looks at
 * the histories every `refreshMs` (one LRANGE per list, in one round trip) and, when one changed,
 * fetches the snapshots it does not hold (immutable, so fetched once), then has the ListHistory serve
 * the shared history. While Redis is unreachable the instance serves what it holds, and says so once.
 */
export class RedisSnapshotStore implements SnapshotStore {
  private readonly followed = new Set<ListHistory>();
  private readonly reported = new BoundedCache<string, true>(REPORTED_SNAPSHOTS);
  /** Redis work runs one piece at a time, so that a look started before a publication cannot undo it. */
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private reachable = true;
  private closed = false;

  private constructor(
    private readonly client: RedisClient,
    /** The URL without credentials, for messages. */
    private readonly label: string,
    private readonly keyPrefix: string,
    private readonly refreshMs: number,
    private readonly log: (message: string) => void,
  ) {
    client.on('error', (error: Error) => void this.unavailable(error));
    client.on('ready', () => this.available());
  }

  /**
   * Connects to Redis. Rejects with SnapshotStoreError: 'invalid-url' for an unusable URL, 'unavailable'
   * when Redis does not answer within `timeoutMs` (an instance told to share its lists does not start
   * without them).
   */
  static async connect(options: RedisSnapshotStoreOptions): Promise<RedisSnapshotStore> {
    let connection: { client: RedisClient; label: string };
    try {
      connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof RedisConnectionError) throw new SnapshotStoreError(error.reason, error.message, { cause: error.cause });
      throw error;
    }
    return new RedisSnapshotStore(
      connection.client,
      connection.label,
      options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      options.refreshMs ?? DEFAULT_REFRESH_MS,
      options.log ?? (() => {}),
    );
  }

  async follow(histories: readonly ListHistory[]): Promise<string[]> {
    for (const history of histories) this.followed.add(history);
    if (this.timer === undefined) this.scheduleRefresh();
    return this.exclusive(() => this.catchUpAll(histories));
  }

  async publish(history: ListHistory, fullHashes: Uint8Array): Promise<Snapshot> {
    return this.publishSnapshot(history, Snapshot.of(history.definition, fullHashes, Date.now()), {
      field: 'fullHashes',
      bytes: fullHashes,
      ordered: false,
    });
  }

  async publishServed(history: ListHistory, served: SortedHashes, receivedAt: number): Promise<Snapshot> {
    return this.publishSnapshot(history, Snapshot.ofServed(history.definition, served, receivedAt), {
      field: 'served',
      bytes: hashBytes(served),
      ordered: true,
    });
  }

  private publishSnapshot(history: ListHistory, snapshot: Snapshot, content: Content): Promise<Snapshot> {
    return this.exclusive(async () => {
      let ids: string[];
      try {
        ids = (await this.runPublish(history, snapshot, content, false)) ?? (await this.runPublish(history, snapshot, content, true)) ?? [];
      } catch (error) {
        throw this.unavailable(error);
      }
      this.available();
      await this.catchUp(history, ids, snapshot);
      return history.current();
    });
  }

  /** Looks for publications by other instances now, and has the followed histories serve them. */
  async refresh(): Promise<void> {
    await this.exclusive(() => this.catchUpAll([...this.followed]));
  }

  /** Stops looking for publications and disconnects; the histories keep serving what they hold. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.queue;
    if (this.client.isOpen) await this.client.close();
  }

  private scheduleRefresh(): void {
    if (this.refreshMs === 0 || this.closed) return;
    // The next look is scheduled when this one is over: looks never pile up while Redis is slow.
    this.timer = setTimeout(() => {
      this.refresh()
        .catch((error: unknown) => {
          if (!(error instanceof SnapshotStoreError)) this.log(`looking for list publications failed: ${(error as Error).message}`);
        })
        .finally(() => this.scheduleRefresh());
    }, this.refreshMs);
    this.timer.unref();
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Brings each history to its shared state; resolves to the names of the lists Redis holds a history of. */
  private async catchUpAll(histories: readonly ListHistory[]): Promise<string[]> {
    let shared: string[][];
    try {
      // Issued together, node-redis sends them in one round trip.
      shared = await Promise.all(histories.map((history) => this.client.lRange(this.historyKey(history.definition), 0, -1))).then((lists) =>
        lists.map((ids) => ids.map((id) => id.toString('latin1'))),
      );
    } catch (error) {
      throw this.unavailable(error);
    }
    this.available();
    const names: string[] = [];
    for (const [i, history] of histories.entries()) {
      if (shared[i]!.length > 0) names.push(history.definition.name);
      await this.catchUp(history, shared[i]!);
    }
    return names;
  }

  /**
   * Has `history` serve the shared history `ids` (oldest first), fetching the snapshots it does not
   * hold; `own` is a snapshot this instance has in hand. An empty shared history (nothing published yet,
   * or Redis lost its data) changes nothing: the next publication fills it. A snapshot that cannot be
   * fetched is left out; without the current one nothing changes, and the next look tries again.
   */
  private async catchUp(history: ListHistory, sharedIds: readonly string[], own?: Snapshot): Promise<void> {
    const ids = sharedIds.slice(-history.keep);
    const currentId = ids.at(-1);
    const held = history.keptIds();
    if (currentId === undefined || sameIds(ids, held)) return;
    const inHand = new Map<string, Snapshot>();
    if (own !== undefined) inHand.set(own.id, own);
    if (history.current().id === currentId) inHand.set(currentId, history.current());
    // Older snapshots are kept as served lists, which the history has; the current one needs its full hashes.
    const missing = ids.filter((id) => !inHand.has(id) && (id === currentId || !held.includes(id)));
    for (const snapshot of await Promise.all(missing.map((id) => this.fetch(history.definition, id)))) {
      if (snapshot !== undefined) inHand.set(snapshot.id, snapshot);
    }
    const current = inHand.get(currentId);
    if (current === undefined) return;
    history.adopt(
      current,
      ids.slice(0, -1).map((id) => inHand.get(id) ?? id),
    );
  }

  /** The snapshot `id` of a list from Redis, or undefined when it is gone, unreadable or not what its id says. */
  private async fetch(definition: ListDefinition, id: string): Promise<Snapshot | undefined> {
    let fields: (Buffer | null)[];
    try {
      fields = await this.client.hmGet(this.contentKey(definition, id), ['fullHashes', 'served', 'createdAt']);
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
    const [fullHashes, served, createdAtText] = fields;
    // Gone: dropped from the history between our two reads (the next look sees the newer history), or
    // lost by Redis (evicted under memory pressure: give this database a noeviction policy).
    if (fullHashes == null && served == null) return this.unusable(definition, id, 'its content is not in Redis (evicted?)');
    const createdAt = Number(createdAtText?.toString('latin1') ?? 0);
    let snapshot: Snapshot;
    try {
      // Copies: a reply is a Buffer view at any offset, and sorting reads it as whole 32-bit words.
      snapshot =
        fullHashes != null
          ? Snapshot.of(definition, new Uint8Array(fullHashes), createdAt)
          : Snapshot.ofServed(definition, servedHashes(definition.hashLength, served!), createdAt);
    } catch (error) {
      if (error instanceof ListError || error instanceof RangeError) return this.unusable(definition, id, error.message);
      throw error;
    }
    // Another id for the same content: an instance configured with another hash length for this list.
    if (snapshot.id !== id)
      return this.unusable(definition, id, `its content is snapshot ${snapshot.id} here; do all instances configure the list alike?`);
    return snapshot;
  }

  private unusable(definition: ListDefinition, id: string, why: string): undefined {
    this.reported.getOrCompute(`${definition.name}/${id}`, () => {
      this.log(`list ${definition.name}: snapshot ${id} in Redis cannot be used: ${why}`);
      return true;
    });
    return undefined;
  }

  /** Runs the publish script; undefined when Redis lacks the content and it was not sent (`upload` false). */
  private async runPublish(history: ListHistory, snapshot: Snapshot, content: Content, upload: boolean): Promise<string[] | undefined> {
    const { definition } = history;
    const { bytes } = content;
    const reply = await this.client.eval(PUBLISH_SCRIPT, {
      keys: [this.historyKey(definition), this.contentKey(definition, snapshot.id), `${this.keyPrefix}list:{${definition.name}}:received`],
      arguments: [
        snapshot.id,
        String(history.keep),
        this.contentKey(definition, ''),
        String(snapshot.createdAt),
        content.field,
        content.ordered ? '1' : '0',
        ...(upload ? [Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)] : []),
      ],
    });
    if (reply === null) return undefined;
    // Snapshot ids come back as bulk strings, which this client reads as Buffers.
    if (!Array.isArray(reply) || !reply.every((id) => Buffer.isBuffer(id))) {
      throw new SnapshotStoreError(
        'unavailable',
        `Redis at ${this.label} answered the publication of list ${definition.name} unexpectedly`,
      );
    }
    return reply.map((id) => id.toString());
  }

  /** Notes that Redis answered, saying so when it had failed before. */
  private available(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.log(`Redis at ${this.label} answers again`);
  }

  /** Notes that Redis failed (saying so when it answered before) and gives the error to throw. */
  private unavailable(error: unknown): SnapshotStoreError {
    if (error instanceof SnapshotStoreError) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (this.reachable && !this.closed) {
      this.reachable = false;
      this.log(`Redis at ${this.label} failed (${message}): serving the lists this instance holds until Redis answers again`);
    }
    return new SnapshotStoreError('unavailable', `Redis at ${this.label}: ${message}`, { cause: error });
  }

  private historyKey(definition: ListDefinition): string {
    return `${this.keyPrefix}list:{${definition.name}}:history`;
  }

  private contentKey(definition: ListDefinition, id: string): string {
    return `${this.keyPrefix}list:{${definition.name}}:snapshot:${id}`;
  }
}

/** Served hashes of a list from their stored bytes; RangeError when they are no whole number of hashes. */
function servedHashes(width: HashWidth, bytes: Buffer): SortedHashes {
  if (bytes.length % width !== 0) throw new RangeError(`${bytes.length} bytes are not a whole number of ${width}-byte hashes`);
  return hashesFromBytes(width, bytes);
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
