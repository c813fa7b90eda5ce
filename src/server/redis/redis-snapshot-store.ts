import type { SortedHashes } from '../../store/hash-list.ts';
import { type Clock, systemClock } from '../../time/clock.ts';
import {
  connectRedis,
  DEFAULT_KEY_PREFIX,
  type RedisConnection,
  RedisConnectionError,
  type RedisOptions,
  type RedisWatch,
} from './redis-connection.ts';
import { RedisReachability } from './redis-reachability.ts';
import { BoundedMap } from '../../store/bounded-map.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { KeptSnapshot, ListHistory } from '../lists/list-history.ts';
import { EventLoopTurns } from '../../time/event-loop-turns.ts';
import { Snapshot } from '../lists/snapshot.ts';
import type { SnapshotStore } from '../lists/snapshot-store.ts';
import { SnapshotStoreError } from '../lists/snapshot-store-error.ts';
import { contentOf, type Offer, offerOf } from './redis-snapshot-content.ts';
import { Membership } from './redis-list-membership.ts';
import { SharedHistories, type SharedState } from './redis-shared-histories.ts';
import { type Logger, type LogSink, loggerOf } from '../logger.ts';

export interface RedisSnapshotStoreOptions extends RedisOptions {
  /**
   * Milliseconds between looks for publications by other instances; 0: none, only `refresh()`, this
   * instance's own publications and Redis answering again bring news.
   */
  refreshMs?: number;
  /** Bound on connecting and on each command (a 2 M-entry snapshot is 64 MB on the wire). */
  timeoutMs?: number;
  /** Where to say that Redis failed or answers again, or that a snapshot there cannot be used. */
  log?: LogSink;
  /**
   * With a `retry` schedule: start when Redis does not answer, publish in memory until it does, then
   * join the shared lists. Told of histories written back into a Redis that had lost them.
   */
  watch?: RedisWatch;
  /** What publications are stamped with, and the timers of connecting and of looks for publications; the system's by default. */
  clock?: Clock;
}

const DEFAULT_REFRESH_MS = 1000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Snapshots reported as unusable, remembered so that a look every second does not log each time. */
const REPORTED_SNAPSHOTS = 256;
/** Rounds of a write-back that Redis may answer with "send me that content" before it counts as failed. */
const WRITE_BACK_ROUNDS = 3;

/**
 * Published snapshots shared by server instances through Redis (docs/architecture.md "Scale"), so that all of them
 * serve the same versions, diffs and checksums. Every instance may publish; ids are content-derived,
 * so the same content is the same version wherever it was published, and the history's order is the
 * order in which publications reached Redis.
 * The keys it keeps there, and the scripts that change them, are redis-shared-histories.ts's.
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
  private timer: unknown;
  private readonly reachability: RedisReachability;
  private closed = false;
  private readonly shared: SharedHistories;
  /** The URL without credentials, for messages. */
  private readonly label: string;

  private constructor(
    private readonly connection: RedisConnection,
    keyPrefix: string,
    private readonly refreshMs: number,
    private readonly log: Logger,
    private readonly watch: RedisWatch | undefined,
    private readonly clock: Clock,
  ) {
    this.label = connection.label;
    this.shared = new SharedHistories(connection.client, keyPrefix, connection.label);
    this.reachability = new RedisReachability(log, connection.ready, clock);
    connection.client.on('error', (error: Error) => void this.unavailable(error));
    // Redis answers (again): join, or find out at once whether it lost what it held.
    connection.client.on('ready', () => {
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
    const clock = options.clock ?? systemClock;
    let connection: RedisConnection;
    try {
      connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch, clock);
    } catch (error) {
      if (error instanceof RedisConnectionError) throw new SnapshotStoreError(error.reason, error.message, { cause: error.cause });
      throw error;
    }
    return new RedisSnapshotStore(
      connection,
      options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      options.refreshMs ?? DEFAULT_REFRESH_MS,
      loggerOf(options.log),
      options.watch,
      clock,
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
    // Built in turns of the event loop: a list of a million entries would hold it for 100 ms or more.
    return this.publishSnapshot(history, await Snapshot.inTurns(history.definition, fullHashes, this.clock.now(), new EventLoopTurns()));
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
    this.clock.clearTimeout(this.timer);
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
      membership = new Membership();
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
        history.receivedAgain(snapshot.createdAt);
        membership.publishedAlone(snapshot.id);
        return history.current();
      }
      const state = await this.publishShared(history, snapshot);
      await this.catchUp(history, state, snapshot);
      membership.learn(state);
      return history.current();
    });
  }

  /** Publishes `snapshot` in Redis, writing the list's history back first when Redis lost it. */
  private async publishShared(history: ListHistory, snapshot: Snapshot): Promise<SharedState> {
    const content = contentOf(snapshot);
    try {
      let state = await this.shared.publish(history, snapshot, content, this.membership(history).seen);
      if (state === 'lost') {
        this.membership(history).learn(await this.writeBack(history, await this.shared.readState(history)));
        state = await this.shared.publish(history, snapshot, content, this.membership(history).seen);
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
    this.timer = this.clock.setTimeout(() => {
      this.refresh()
        .catch((error: unknown) => {
          if (!(error instanceof SnapshotStoreError)) this.log.warn(`looking for list publications failed: ${(error as Error).message}`);
        })
        .finally(() => this.scheduleRefresh());
    }, this.refreshMs);
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
      states = await Promise.all(histories.map((history) => this.shared.readState(history)));
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
        else if (membership.lostBy(state)) state = await this.writeBack(history, state);
      } catch (error) {
        throw this.unavailable(error);
      }
      if (state.ids.length > 0) names.push(history.definition.name);
      await this.catchUp(history, state);
      membership.learn(state);
    }
    return names;
  }

  /**
   * Joins the shared history of a list: as it is, for an instance that published nothing yet; one that
   * published while Redis was away writes its versions back (as older than any shared one) and then
   * publishes its current snapshot, as it would have done had Redis answered at its start.
   */
  private async join(history: ListHistory, membership: Membership, state: SharedState): Promise<SharedState> {
    if (!membership.published) return state;
    const current = history.current();
    await this.writeBack(history, state);
    const published = await this.shared.publish(history, current, contentOf(current), membership.seen);
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
    const offers: Offer[] = history.keptSnapshots().flatMap((kept) => {
      const serial = membership.serialOf(kept.id);
      return serial === undefined ? [] : [offerOf(kept, current, serial)];
    });
    if (offers.length === 0) return state;
    const send = new Set<string>();
    for (let round = 0; round < WRITE_BACK_ROUNDS; round++) {
      const answer = await this.shared.writeBack(history, offers, send);
      if (!Array.isArray(answer)) {
        if (answer.written > 0) {
          this.watch?.restored(history.definition.name, answer.written);
          if (this.watch === undefined)
            this.log.warn(`list ${history.definition.name}: Redis had lost its history; wrote back ${answer.written} versions held here`);
        }
        return answer;
      }
      for (const id of answer) send.add(id);
    }
    throw new Error(`Redis kept asking for the content of list ${history.definition.name} while it was written back`);
  }

  /**
   * Has `history` serve the shared history `state` (adoptShared), and, for a mirrored list, know when the
   * upstream last sent its current copy, whichever instance published it: an instance whose own updates
   * fail still serves, as current, a copy another fetched a moment ago (proxy/copy-currency.ts).
   */
  private async catchUp(history: ListHistory, state: SharedState, own?: Snapshot): Promise<void> {
    await this.adoptShared(history, state.ids, own);
    // The newest stamp is the current snapshot's: an older publication does not displace it (PUBLISH_SCRIPT).
    if (state.received !== undefined && history.current().id === state.ids.at(-1)) history.receivedAgain(state.received);
  }

  /**
   * Has `history` serve the shared history `ids` (oldest first), fetching the snapshots it does not
   * hold; `own` is a snapshot this instance has in hand. An empty shared history (nothing published
   * yet) changes nothing: the next publication fills it. A snapshot that cannot be fetched is left
   * out; without the current one (with its full hashes) nothing changes, and the next look tries again.
   */
  private async adoptShared(history: ListHistory, sharedIds: readonly string[], own?: Snapshot): Promise<void> {
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

  /**
   * The snapshot `id` of a list from Redis: a Snapshot, or only its served list when that is all Redis
   * has (written back after a loss); undefined when it is gone, unreadable or not what its id says.
   */
  private async fetch(definition: ListDefinition, id: string): Promise<KeptSnapshot | undefined> {
    let read;
    try {
      read = await this.shared.fetch(definition, id);
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
    return 'unusable' in read ? this.unusable(definition, id, read.unusable) : read;
  }

  private unusable(definition: ListDefinition, id: string, why: string): undefined {
    this.reported.getOrCompute(`${definition.name}/${id}`, () => {
      this.log.warn(`list ${definition.name}: snapshot ${id} in Redis cannot be used: ${why}`);
      return true;
    });
    return undefined;
  }

  /** Notes that Redis answered, saying so when it had failed before. */
  private available(): void {
    this.reachability.answered(`Redis at ${this.label} answers again`);
  }

  /** Notes that Redis failed (saying so when it answered before) and gives the error to throw. */
  private unavailable(error: unknown): SnapshotStoreError {
    if (error instanceof SnapshotStoreError) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (!this.closed) {
      this.reachability.failed(
        `Redis at ${this.label} failed (${message}): serving the lists this instance holds until Redis answers again`,
      );
    }
    return new SnapshotStoreError('unavailable', `Redis at ${this.label}: ${message}`, { cause: error });
  }
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
