import { randomBytes } from 'node:crypto';
import { firstUnordered, hashBytes, hashesFromBytes, type SortedHashes } from '../../store/hash-list.ts';
import type { HashWidth } from '../../lists/list-name.ts';
import {
  connectRedis,
  DEFAULT_KEY_PREFIX,
  type RedisClient,
  type RedisConnection,
  RedisConnectionError,
  type RedisWatch,
} from './redis-connection.ts';
import { BoundedMap } from '../../store/bounded-map.ts';
import { ListError } from '../lists/list-error.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { KeptSnapshot, ListHistory } from '../lists/list-history.ts';
import { Snapshot } from '../lists/snapshot.ts';
import type { SnapshotStore } from '../lists/snapshot-store.ts';
import { SnapshotStoreError } from '../lists/snapshot-store-error.ts';
import { READ_SCRIPT, PUBLISH_SCRIPT, WRITE_BACK_SCRIPT } from './redis-snapshot-scripts.ts';

export interface RedisSnapshotStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. */
  url: string;
  /** Starts every key: instances that serve the same lists share it; tests use one of their own. */
  keyPrefix?: string;
  /**
   * Milliseconds between looks for publications by other instances; 0: none, only `refresh()`, this
   * instance's own publications and Redis answering again bring news.
   */
  refreshMs?: number;
  /** Bound on connecting and on each command (a 2 M-entry snapshot is 64 MB on the wire). */
  timeoutMs?: number;
  /** Where to say that Redis failed or answers again, or that a snapshot there cannot be used. */
  log?: (message: string) => void;
  /**
   * With a `retry` schedule: start when Redis does not answer, publish in memory until it does, then
   * join the shared lists. Told of histories written back into a Redis that had lost them.
   */
  watch?: RedisWatch;
}

const DEFAULT_REFRESH_MS = 1000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Snapshots reported as unusable, remembered so that a look every second does not log each time. */
const REPORTED_SNAPSHOTS = 256;
/** Rounds of a write-back that Redis may answer with "send me that content" before it counts as failed. */
const WRITE_BACK_ROUNDS = 3;

/** How a snapshot's content is stored: full hashes of a list of our own, or the served hashes of a mirror. */
type Content = { field: 'fullHashes'; bytes: Uint8Array; ordered: false } | { field: 'served'; bytes: Uint8Array; ordered: true };

/** A list's state in Redis, as the scripts answer it. */
interface SharedState {
  epoch: string;
  /** Snapshot ids, oldest first. */
  ids: string[];
  /** The serial of each id's latest publication. */
  serials: number[];
  /** Versions a write-back added to the history. */
  written: number;
}

/** What this instance knows of one list's shared history. */
interface Membership {
  /** True once the history was brought to the shared state: from then on Redis orders it. */
  joined: boolean;
  /** The epoch last seen ('' before any, or from a Redis written before epochs). */
  epoch: string;
  /** The serial of each snapshot published (0: published here while Redis was out of reach). */
  serials: Map<string, number>;
}

/** A snapshot offered to the write-back script. */
interface Offer {
  id: string;
  serial: number;
  field: 'fullHashes' | 'served' | 'kept';
  createdAt: number;
  bytes: () => Uint8Array;
}

/**
 * Published snapshots shared by server instances through Redis (docs/architecture.md "Scale"), so that all of them
 * serve the same versions, diffs and checksums. Every instance may publish; ids are content-derived,
 * so the same content is the same version wherever it was published, and the history's order is the
 * order in which publications reached Redis.
 *
 * Keys, for a list `name` (prefix `sbkit:` by default):
 *   {prefix}list:{name}:history          LIST of snapshot ids, oldest first, the last current; at most keep
 *   {prefix}list:{name}:snapshot:{id}    HASH fullHashes (sorted 32-byte hashes, concatenated) or, for a
 *                                        mirrored list, served (its sorted hashes), or, written back after
 *                                        Redis lost the list, kept and width (the served hashes of an older
 *                                        snapshot whose full hashes are gone); createdAt (ms); serial
 *   {prefix}list:{name}:state            HASH epoch (random, written once), serial (the latest publication's)
 *   {prefix}list:{name}:received         for a mirrored list, when the upstream sent its newest copy (ms)
 *
 * Requests never wait for Redis: they are answered from each ListHistory's memory. The store looks at
 * the histories every `refreshMs` (one small script per list, in one round trip) and, when one changed,
 * fetches the snapshots it does not hold (immutable, so fetched once), then has the ListHistory serve
 * the shared history. While Redis is unreachable the instance serves what it holds, and says so once.
 * When Redis comes back without the history an instance holds (restarted without persistence, flushed),
 * the instance writes it back, so that clients at any kept version still get a diff.
 */
export class RedisSnapshotStore implements SnapshotStore {
  private readonly followed = new Set<ListHistory>();
  private readonly memberships = new Map<ListHistory, Membership>();
  private readonly reported = new BoundedMap<string, true>(REPORTED_SNAPSHOTS);
  /** Redis work runs one piece at a time, so that a look started before a publication cannot undo it. */
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private reachable: boolean;
  private closed = false;
  private readonly client: RedisClient;
  /** The URL without credentials, for messages. */
  private readonly label: string;

  private constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    private readonly refreshMs: number,
    private readonly log: (message: string) => void,
    private readonly watch: RedisWatch | undefined,
  ) {
    this.client = connection.client;
    this.label = connection.label;
    this.reachable = connection.ready;
    this.client.on('error', (error: Error) => void this.unavailable(error));
    // Redis answers (again): join, or find out at once whether it lost what it held.
    this.client.on('ready', () => {
      this.available();
      if (this.followed.size > 0 && !this.closed) this.refresh().catch(() => {});
    });
  }

  /**
   * Connects to Redis. Rejects with SnapshotStoreError: 'invalid-url' for an unusable URL, 'unavailable'
   * when Redis does not answer within `timeoutMs` (an instance told to share its lists does not start
   * without them), unless `watch.retry` says to start without Redis.
   */
  static async connect(options: RedisSnapshotStoreOptions): Promise<RedisSnapshotStore> {
    let connection: RedisConnection;
    try {
      connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch);
    } catch (error) {
      if (error instanceof RedisConnectionError) throw new SnapshotStoreError(error.reason, error.message, { cause: error.cause });
      throw error;
    }
    return new RedisSnapshotStore(
      connection,
      options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      options.refreshMs ?? DEFAULT_REFRESH_MS,
      options.log ?? (() => {}),
      options.watch,
    );
  }

  /**
   * Follows `histories` (SnapshotStore.follow). A store that may start without Redis resolves to no
   * names while Redis does not answer: its lists are served from this instance's publications until
   * it joins the shared ones.
   */
  async follow(histories: readonly ListHistory[]): Promise<string[]> {
    for (const history of histories) this.followed.add(history);
    if (this.timer === undefined) this.scheduleRefresh();
    try {
      return await this.exclusive(() => this.catchUpAll(histories));
    } catch (error) {
      if (this.patient && error instanceof SnapshotStoreError && error.reason === 'unavailable') return [];
      throw error;
    }
  }

  async publish(history: ListHistory, fullHashes: Uint8Array): Promise<Snapshot> {
    return this.publishSnapshot(history, Snapshot.of(history.definition, fullHashes, Date.now()));
  }

  async publishServed(history: ListHistory, served: SortedHashes, receivedAt: number): Promise<Snapshot> {
    return this.publishSnapshot(history, Snapshot.ofServed(history.definition, served, receivedAt));
  }

  /**
   * Null while every followed list serves the shared history; otherwise why not: the instance started
   * while Redis did not answer and serves its own publications until it reaches Redis.
   */
  notReadyReason(): string | null {
    const waiting = [...this.followed].filter((history) => !this.membership(history).joined).map((h) => h.definition.name);
    if (waiting.length === 0) return null;
    return `the shared lists in Redis at ${this.label} have not been reached since start; serving this instance's own copies of ${waiting.join(', ')}`;
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
    await this.connection.close();
  }

  /** True when the store may start, and publish in memory, without Redis. */
  private get patient(): boolean {
    return this.watch?.retry !== undefined;
  }

  private membership(history: ListHistory): Membership {
    let membership = this.memberships.get(history);
    if (membership === undefined) {
      membership = { joined: false, epoch: '', serials: new Map() };
      this.memberships.set(history, membership);
    }
    return membership;
  }

  private publishSnapshot(history: ListHistory, snapshot: Snapshot): Promise<Snapshot> {
    return this.exclusive(async () => {
      const membership = this.membership(history);
      try {
        if (!membership.joined) await this.catchUpAll([history]);
      } catch (error) {
        // Never shared yet and Redis away: serve it from here, and share it when Redis answers.
        if (!this.patient || !(error instanceof SnapshotStoreError) || error.reason !== 'unavailable') throw error;
        history.adopt(snapshot, history.keptSnapshots());
        membership.serials.set(snapshot.id, 0);
        return history.current();
      }
      const state = await this.publishShared(history, snapshot);
      await this.catchUp(history, state.ids, snapshot);
      this.learn(membership, state);
      return history.current();
    });
  }

  /** Publishes `snapshot` in Redis, writing the list's history back first when Redis lost it. */
  private async publishShared(history: ListHistory, snapshot: Snapshot): Promise<SharedState> {
    const content = contentOf(snapshot);
    try {
      let state = await this.runPublish(history, snapshot, content);
      if (state === 'lost') {
        this.learn(this.membership(history), await this.writeBack(history, await this.readState(history)));
        state = await this.runPublish(history, snapshot, content);
      }
      if (state === 'lost') throw new Error('the history was lost again while it was written back');
      this.available();
      return state;
    } catch (error) {
      throw this.unavailable(error);
    }
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

  /**
   * Brings each history to its shared state, joining it first or writing it back into a Redis that
   * lost it; resolves to the names of the lists Redis holds a history of.
   */
  private async catchUpAll(histories: readonly ListHistory[]): Promise<string[]> {
    let states: SharedState[];
    try {
      // Issued together, node-redis sends them in one round trip.
      states = await Promise.all(histories.map((history) => this.readState(history)));
    } catch (error) {
      throw this.unavailable(error);
    }
    this.available();
    const names: string[] = [];
    for (const [i, history] of histories.entries()) {
      const membership = this.membership(history);
      let state = states[i]!;
      try {
        if (!membership.joined) state = await this.join(history, membership, state);
        else if (lostBy(membership, state)) state = await this.writeBack(history, state);
      } catch (error) {
        throw this.unavailable(error);
      }
      if (state.ids.length > 0) names.push(history.definition.name);
      await this.catchUp(history, state.ids);
      this.learn(membership, state);
    }
    return names;
  }

  /**
   * Joins the shared history of a list: as it is, for an instance that published nothing yet; one that
   * published while Redis was away writes its versions back (as older than any shared one) and then
   * publishes its current snapshot, as it would have done had Redis answered at its start.
   */
  private async join(history: ListHistory, membership: Membership, state: SharedState): Promise<SharedState> {
    if (membership.serials.size === 0) return state;
    const current = history.current();
    await this.writeBack(history, state);
    const published = await this.runPublish(history, current, contentOf(current));
    if (published === 'lost') throw new Error('Redis lost the history while this instance joined it');
    return published;
  }

  /**
   * Writes back the snapshots `history` keeps and were published (with the serials Redis gave them, 0
   * for those published here while Redis was away) into the shared history, as WRITE_BACK_SCRIPT
   * merges them; `state` is what Redis holds.
   */
  private async writeBack(history: ListHistory, state: SharedState): Promise<SharedState> {
    const membership = this.membership(history);
    const current = history.current();
    const offers: Offer[] = history
      .keptSnapshots()
      .filter((kept) => membership.serials.has(kept.id))
      .map((kept) => offerOf(kept, current, membership.serials.get(kept.id)!));
    if (offers.length === 0) return state;
    const send = new Set<string>();
    for (let round = 0; round < WRITE_BACK_ROUNDS; round++) {
      const answer = await this.runWriteBack(history, offers, send);
      if (!Array.isArray(answer)) {
        if (answer.written > 0) {
          this.watch?.restored(history.definition.name, answer.written);
          if (this.watch === undefined)
            this.log(`list ${history.definition.name}: Redis had lost its history; wrote back ${answer.written} versions held here`);
        }
        return answer;
      }
      for (const id of answer) send.add(id);
    }
    throw new Error(`Redis kept asking for the content of list ${history.definition.name} while it was written back`);
  }

  /**
   * Has `history` serve the shared history `ids` (oldest first), fetching the snapshots it does not
   * hold; `own` is a snapshot this instance has in hand. An empty shared history (nothing published
   * yet) changes nothing: the next publication fills it. A snapshot that cannot be fetched is left
   * out; without the current one (with its full hashes) nothing changes, and the next look tries again.
   */
  private async catchUp(history: ListHistory, sharedIds: readonly string[], own?: Snapshot): Promise<void> {
    const ids = sharedIds.slice(-history.keep);
    const currentId = ids.at(-1);
    const held = history.keptIds();
    if (currentId === undefined || sameIds(ids, held)) return;
    const inHand = new Map<string, KeptSnapshot>();
    if (own !== undefined) inHand.set(own.id, own);
    if (history.current().id === currentId) inHand.set(currentId, history.current());
    // Older snapshots are kept as served lists, which the history has; the current one needs its full hashes.
    const missing = ids.filter((id) => !inHand.has(id) && (id === currentId || !held.includes(id)));
    for (const snapshot of await Promise.all(missing.map((id) => this.fetch(history.definition, id)))) {
      if (snapshot !== undefined) inHand.set(snapshot.id, snapshot);
    }
    const current = inHand.get(currentId);
    if (!(current instanceof Snapshot)) return;
    history.adopt(
      current,
      ids.slice(0, -1).map((id) => inHand.get(id) ?? id),
    );
  }

  /** Notes what Redis holds of a list: from now on the instance follows its shared history. */
  private learn(membership: Membership, state: SharedState): void {
    membership.joined = true;
    membership.epoch = state.epoch;
    membership.serials = new Map(state.ids.map((id, i) => [id, state.serials[i]!]));
  }

  /**
   * The snapshot `id` of a list from Redis: a Snapshot, or only its served list when that is all Redis
   * has (written back after a loss); undefined when it is gone, unreadable or not what its id says.
   */
  private async fetch(definition: ListDefinition, id: string): Promise<KeptSnapshot | undefined> {
    let fields: (Buffer | null)[];
    try {
      fields = await this.client.hmGet(this.contentKey(definition, id), ['fullHashes', 'served', 'createdAt', 'kept', 'width']);
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
    const [fullHashes, served, createdAtText, kept, width] = fields;
    if (fullHashes == null && served == null && kept != null) return this.keptSnapshot(definition, id, kept, width ?? null);
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

  /** An older snapshot written back as its served list alone: its id cannot be checked, its width and order can. */
  private keptSnapshot(definition: ListDefinition, id: string, bytes: Buffer, width: Buffer | null): KeptSnapshot | undefined {
    const written = Number(width?.toString('latin1'));
    if (written !== definition.hashLength) {
      return this.unusable(definition, id, `it was written back with ${written}-byte hashes; do all instances configure the list alike?`);
    }
    let served: SortedHashes;
    try {
      served = servedHashes(definition.hashLength, bytes);
    } catch (error) {
      return this.unusable(definition, id, (error as RangeError).message);
    }
    if (firstUnordered(served) >= 0) return this.unusable(definition, id, 'its hashes are not in ascending order');
    return { id, served: () => served };
  }

  private unusable(definition: ListDefinition, id: string, why: string): undefined {
    this.reported.getOrCompute(`${definition.name}/${id}`, () => {
      this.log(`list ${definition.name}: snapshot ${id} in Redis cannot be used: ${why}`);
      return true;
    });
    return undefined;
  }

  private async readState(history: ListHistory): Promise<SharedState> {
    const { definition } = history;
    const reply = await this.client.eval(READ_SCRIPT, {
      keys: [this.historyKey(definition), this.stateKey(definition)],
      arguments: [this.contentKey(definition, '')],
    });
    return this.stateOf(definition, reply);
  }

  /**
   * Publishes `snapshot` (uploading its content only when Redis lacks it); 'lost' when Redis lost the
   * history this instance holds.
   */
  private async runPublish(history: ListHistory, snapshot: Snapshot, content: Content): Promise<SharedState | 'lost'> {
    return (await this.runPublishOnce(history, snapshot, content, false)) ?? (await this.runPublishOnce(history, snapshot, content, true))!;
  }

  private async runPublishOnce(
    history: ListHistory,
    snapshot: Snapshot,
    content: Content,
    upload: boolean,
  ): Promise<SharedState | 'lost' | undefined> {
    const { definition } = history;
    const membership = this.membership(history);
    const holds = membership.joined && membership.serials.size > 0;
    const reply = await this.client.eval(PUBLISH_SCRIPT, {
      keys: [
        this.historyKey(definition),
        this.contentKey(definition, snapshot.id),
        this.receivedKey(definition),
        this.stateKey(definition),
      ],
      arguments: [
        snapshot.id,
        String(history.keep),
        this.contentKey(definition, ''),
        String(snapshot.createdAt),
        content.field,
        content.ordered ? '1' : '0',
        newEpoch(),
        membership.joined ? membership.epoch : '',
        holds ? '1' : '0',
        ...(upload ? [asBuffer(content.bytes)] : []),
      ],
    });
    if (reply === null) return undefined;
    if (Array.isArray(reply) && reply.length === 1 && tag(reply) === 'lost') return 'lost';
    return this.stateOf(definition, reply);
  }

  /** Runs the write-back script, sending the content of the snapshots in `send`; the ids it lacks the content of, or its answer. */
  private async runWriteBack(history: ListHistory, offers: readonly Offer[], send: ReadonlySet<string>): Promise<SharedState | string[]> {
    const { definition } = history;
    const current = history.current();
    const reply = await this.client.eval(WRITE_BACK_SCRIPT, {
      keys: [this.historyKey(definition), this.stateKey(definition), this.receivedKey(definition)],
      arguments: [
        String(history.keep),
        this.contentKey(definition, ''),
        newEpoch(),
        current.kind === 'served' ? String(current.createdAt) : '',
        String(offers.length),
        ...offers.flatMap((offer) => [
          offer.id,
          String(offer.serial),
          offer.field,
          String(offer.createdAt),
          String(definition.hashLength),
          send.has(offer.id) ? '1' : '0',
          send.has(offer.id) ? asBuffer(offer.bytes()) : '',
        ]),
      ],
    });
    if (Array.isArray(reply) && tag(reply) === 'need' && Array.isArray(reply[1])) {
      return (reply[1] as unknown[]).map((id) => String(id));
    }
    return this.stateOf(definition, reply);
  }

  /** A script's { 'state', … } answer, read; SnapshotStoreError for anything else. */
  private stateOf(definition: ListDefinition, reply: unknown): SharedState {
    if (Array.isArray(reply) && reply.length === 5 && tag(reply) === 'state') {
      const [, epoch, ids, serials, written] = reply as unknown[];
      if (Buffer.isBuffer(epoch) && Buffer.isBuffer(written) && isBuffers(ids) && isBuffers(serials) && ids.length === serials.length) {
        return {
          epoch: epoch.toString('latin1'),
          // Snapshot ids come back as bulk strings, which this client reads as Buffers.
          ids: ids.map((id) => id.toString('latin1')),
          serials: serials.map((serial) => Number(serial.toString('latin1'))),
          written: Number(written.toString('latin1')),
        };
      }
    }
    throw new SnapshotStoreError('unavailable', `Redis at ${this.label} answered about list ${definition.name} unexpectedly`);
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

  private stateKey(definition: ListDefinition): string {
    return `${this.keyPrefix}list:{${definition.name}}:state`;
  }

  private receivedKey(definition: ListDefinition): string {
    return `${this.keyPrefix}list:{${definition.name}}:received`;
  }

  private contentKey(definition: ListDefinition, id: string): string {
    return `${this.keyPrefix}list:{${definition.name}}:snapshot:${id}`;
  }
}

/** True when Redis no longer holds the history this instance joined: another epoch, or no history at all. */
function lostBy(membership: Membership, state: SharedState): boolean {
  if (state.ids.length === 0) return membership.serials.size > 0;
  return membership.epoch !== '' && state.epoch !== membership.epoch;
}

/** How a snapshot's content is published: full hashes, or a mirror's served hashes with its stamp. */
function contentOf(snapshot: Snapshot): Content {
  return snapshot.kind === 'served'
    ? { field: 'served', bytes: hashBytes(snapshot.served()), ordered: true }
    : { field: 'fullHashes', bytes: snapshot.fullHashBytes(), ordered: false };
}

/**
 * A kept snapshot as written back: the current one with its content; an older one of a mirrored list
 * with its served hashes (its id is derived from them); an older one of a list of full hashes with the
 * served hashes alone (its full hashes are not kept), enough for diffs from it.
 */
function offerOf(kept: KeptSnapshot, current: Snapshot, serial: number): Offer {
  if (kept === current) {
    const content = contentOf(current);
    return { id: kept.id, serial, field: content.field, createdAt: current.createdAt, bytes: () => content.bytes };
  }
  return { id: kept.id, serial, field: current.kind === 'served' ? 'served' : 'kept', createdAt: 0, bytes: () => hashBytes(kept.served()) };
}

/** A random epoch, offered with every write: the first one written stays. */
function newEpoch(): string {
  return randomBytes(8).toString('hex');
}

function tag(reply: unknown[]): string | undefined {
  return Buffer.isBuffer(reply[0]) ? reply[0].toString('latin1') : undefined;
}

function isBuffers(value: unknown): value is Buffer[] {
  return Array.isArray(value) && value.every((item) => Buffer.isBuffer(item));
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Served hashes of a list from their stored bytes; RangeError when they are no whole number of hashes. */
function servedHashes(width: HashWidth, bytes: Buffer): SortedHashes {
  if (bytes.length % width !== 0) throw new RangeError(`${bytes.length} bytes are not a whole number of ${width}-byte hashes`);
  return hashesFromBytes(width, bytes);
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
