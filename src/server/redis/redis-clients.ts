// node-redis's three clients — one server (createClient), a Sentinel set's primary (createSentinel), a
// Cluster (createCluster) — behind the one RedisClient the parts of the service use: the few commands
// sbkit sends, which all three take, and one account of whether Redis answers. node-redis is loaded
// when a client is first made: a server without Redis never loads it.

import { EventEmitter } from 'node:events';
import type { SetOptions } from 'redis';
import { type Backoff, backoffMs } from '../../time/backoff.ts';
import { type Clock, deadline } from '../../time/clock.ts';
import type { RedisAddress } from './redis-address.ts';

/** Back-off between reconnection attempts once Redis went away, 50 ms doubling to 2 s: it comes back when it comes back. */
const RECONNECT_BACKOFF: Backoff = { firstMs: 50, maxMs: 2000 };

/**
 * The commands sbkit sends. In a Cluster, every key of one call shares a hash tag (`{name}`), so that a
 * call goes to one node and a script touches one slot; replies come as Buffers.
 */
export interface RedisCommands {
  eval(script: string, options: { keys: string[]; arguments: (string | Buffer)[] }): Promise<unknown>;
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: string | Buffer, options?: SetOptions): Promise<unknown>;
  hmGet(key: string, fields: string[]): Promise<(Buffer | null)[]>;
}

/** A client of any of the three kinds, as connections (redis-connection.ts) and the parts use it. */
export interface RedisClient extends RedisCommands {
  /** True while commands can be sent: connected (a Cluster: its slots known; a Sentinel set: its primary found). */
  readonly isReady: boolean;
  /** True from connect() until close() or destroy(). */
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  /** 'error': Redis, or one of its nodes, failed; 'ready': Redis answers again after it failed. */
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'ready', listener: () => void): this;
  off(event: 'error', listener: (error: Error) => void): this;
}

/** What each of node-redis's clients has of its own, beside the commands. */
interface Underlying extends RedisCommands {
  readonly isOpen: boolean;
  readonly isReady?: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

/**
 * A client for `address`, not yet connected, each connection and command bounded by `timeoutMs` on `clock`.
 * `hasConnected` says whether the connection got through once: a first attempt that fails fails at once
 * (the connection tries again on its own schedule); once connected, the client reconnects with back-off forever.
 */
export async function createRedisClient(
  address: RedisAddress,
  timeoutMs: number,
  hasConnected: () => boolean,
  clock: Clock,
): Promise<RedisClient> {
  const { createClient, createCluster, createSentinel, RESP_TYPES } = await import('redis');
  const options = {
    // A command while Redis is away fails at once instead of waiting in a queue for it to come back:
    // callers report the failure, or try again later.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      // node-redis counts `retries` from 0.
      reconnectStrategy: (retries: number) => (hasConnected() ? backoffMs(RECONNECT_BACKOFF, retries + 1) : false),
    },
    commandOptions: { timeout: timeoutMs },
  };
  const buffers = { [RESP_TYPES.BLOB_STRING]: Buffer };
  const credentials = address.kind === 'single' ? {} : { username: address.username, password: address.password };
  switch (address.kind) {
    case 'single':
      return new SingleClient(createClient({ url: address.url, ...options }).withTypeMapping(buffers) as unknown as Underlying);
    case 'sentinel':
      return new WatchedClient(
        createSentinel({
          name: address.name,
          sentinelRootNodes: address.sentinels,
          nodeClientOptions: { ...options, ...credentials, database: address.db },
          sentinelClientOptions: { socket: options.socket },
          // A failed command is tried again on the new primary at most this often, all within timeoutMs (WatchedClient).
          maxCommandRediscovers: 2,
        }).withTypeMapping(buffers) as unknown as Underlying,
        { timeoutMs, clock },
      );
    case 'cluster':
      return new WatchedClient(
        createCluster({
          rootNodes: address.nodes.map((node) => ({ socket: node })),
          defaults: { ...options, ...credentials },
        }).withTypeMapping(buffers) as unknown as Underlying,
        { timeoutMs, clock, cluster: true },
      );
  }
}

/** The part of node-redis's Cluster that knows which node serves which slot (not in its typings). */
interface ClusterSlots {
  masters: { client?: object }[];
  rediscover(startWith: object): Promise<void>;
}

/** One server: node-redis says itself when it answers again ('ready'). */
class SingleClient extends EventEmitter implements RedisClient {
  constructor(private readonly client: Underlying) {
    super();
    client.on('error', (error: Error) => this.emit('error', error));
    client.on('ready', () => this.emit('ready'));
  }

  get isReady(): boolean {
    return this.client.isReady === true;
  }

  get isOpen(): boolean {
    return this.client.isOpen;
  }

  connect = () => this.client.connect();
  close = () => this.client.close();
  destroy = () => this.client.destroy();
  eval: RedisCommands['eval'] = (script, options) => this.client.eval(script, options);
  get = (key: string) => this.client.get(key);
  set: RedisCommands['set'] = (key, value, options) => this.client.set(key, value, options);
  hmGet = (key: string, fields: string[]) => this.client.hmGet(key, fields);
}

/** How a WatchedClient bounds its commands; `cluster`: a Cluster, whose slots are asked for again when a command fails. */
interface WatchedOptions {
  timeoutMs: number;
  clock: Clock;
  cluster?: boolean;
}

/**
 * A Sentinel set or a Cluster: node-redis follows the primary, or the slots, by itself, and says when a
 * node fails but not when Redis answers again: that is known from the commands, the first to succeed
 * after one failed.
 */
class WatchedClient extends EventEmitter implements RedisClient {
  private failing = false;

  constructor(
    private readonly client: Underlying,
    private readonly options: WatchedOptions,
  ) {
    super();
    client.on('error', (error: Error | string) => this.failed(error));
    // A Cluster's node that fails: the commands for its slots fail until it, or its replica, answers.
    client.on('node-error', (error: Error) => this.failed(error));
  }

  get isReady(): boolean {
    return this.client.isOpen && this.client.isReady !== false;
  }

  get isOpen(): boolean {
    return this.client.isOpen;
  }

  connect = async () => {
    await this.client.connect();
    // Failures while connecting are the connection's to report (redis-connection.ts), not an absence to end.
    this.failing = false;
  };
  close = () => this.client.close();
  destroy = () => this.client.destroy();
  eval: RedisCommands['eval'] = (script, options) => this.watched(this.client.eval(script, options));
  get = (key: string) => this.watched(this.client.get(key));
  set: RedisCommands['set'] = (key, value, options) => this.watched(this.client.set(key, value, options));
  hmGet = (key: string, fields: string[]) => this.watched(this.client.hmGet(key, fields));

  private async watched<T>(command: Promise<T>): Promise<T> {
    // node-redis's commandOptions.timeout bounds a command once it is sent to a node, not the wait before:
    // the Sentinel client holds every command until it has found a primary again (for ever, while the set
    // has none), and the Cluster one while it asks for the slots. A request waits on the part's bound
    // only, then answers from memory (the issue-29 stall: clients timed out at 5 s during a failover).
    const { signal, clear } = deadline(this.options.clock, this.options.timeoutMs);
    const late = new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    // Cut short, the command may still run once a primary is found (a hit counted twice, a cache entry
    // written late: harmless), or fail later: that failure is this one, already reported.
    command.catch(() => undefined);
    let reply: T;
    try {
      reply = await Promise.race([command, late]);
    } catch (error) {
      this.failing = true;
      if (this.options.cluster === true) this.rediscover();
      throw error;
    } finally {
      clear();
    }
    if (this.failing) {
      this.failing = false;
      this.emit('ready');
    }
    return reply;
  }

  /**
   * node-redis's Cluster asks for the slots again only on a MOVED answer: a primary killed leaves its
   * slots on a client that is offline, and the replica promoted in its place is never found (the chaos
   * run's cluster-failover). So every failed command has it ask again, from a node it knows or, that
   * one gone, from the seed nodes; node-redis runs one such discovery at a time.
   */
  private rediscover(): void {
    const slots = (this.client as unknown as { _slots?: ClusterSlots })._slots;
    const start = slots?.masters.find((node) => node.client !== undefined)?.client;
    if (slots === undefined || start === undefined) return;
    slots.rediscover(start).catch(() => {});
  }

  private failed(error: Error | string): void {
    this.failing = true;
    // The Sentinel client reports some failures as strings.
    this.emit('error', error instanceof Error ? error : new Error(error));
  }
}
