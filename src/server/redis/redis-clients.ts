// node-redis's three clients — one server (createClient), a Sentinel set's primary (createSentinel), a
// Cluster (createCluster) — behind the one RedisClient the parts of the service use: the few commands
// sbkit sends, which all three take, each bounded by the part's deadline (redis-command-gate.ts), and
// one account of whether Redis answers. node-redis is loaded when a client is first made: a server
// without Redis never loads it.

import { EventEmitter } from 'node:events';
import { type Backoff, backoffMs } from '../../time/backoff.ts';
import type { Clock } from '../../time/clock.ts';
import type { RedisAddress } from './redis-address.ts';
import { CommandGate } from './redis-command-gate.ts';

/** Back-off between reconnection attempts once Redis went away, 50 ms doubling to 2 s: it comes back when it comes back. */
const RECONNECT_BACKOFF: Backoff = { firstMs: 50, maxMs: 2000 };
/**
 * A connection to a data node (one server, a Sentinel set's primary, a Cluster node) asks PING this
 * often, and one that has carried nothing for SILENT_SOCKET_MS is closed and made again: a host gone
 * without a word (a black hole, no reset) would otherwise hold it until TCP gives up, a quarter of an
 * hour. node-redis's PING alone does not do it: it waits for its answer for ever, and the next is only
 * sent after.
 */
const PING_INTERVAL_MS = 1000;
const SILENT_SOCKET_MS = 5000;
/** The longest a write waits for a replica to hold it (RedisCommands.replicated): a replica is most often there in a millisecond. */
const REPLICA_WAIT_MS = 1000;

/** How a SET expires (PX: in milliseconds; PXAT: at a Unix time in milliseconds), and NX: only where the key is absent. */
interface RedisSetOptions {
  expiration: { type: 'PX' | 'PXAT'; value: number };
  condition?: 'NX';
}

/**
 * The commands sbkit sends. In a Cluster, every key of one call shares a hash tag (`{name}`), so that a
 * call goes to one node and a script touches one slot; replies come as Buffers.
 */
export interface RedisCommands {
  eval(script: string, options: { keys: string[]; arguments: (string | Buffer)[] }): Promise<unknown>;
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: string | Buffer, options: RedisSetOptions): Promise<unknown>;
  hmGet(key: string, fields: string[]): Promise<(Buffer | null)[]>;
  /**
   * Waits, up to REPLICA_WAIT_MS (half the client's bound at most), until a replica holds what this client wrote so far to the node that
   * serves `key` (WAIT 1), and resolves to how many do: a Sentinel or Cluster failover promotes a replica,
   * and a write none holds is lost with the primary (replication is asynchronous). A single server
   * answers 0 at once: its replicas, if any, are promoted by hand.
   */
  replicated(key: string): Promise<number>;
}

/** A client of any of the three kinds, as connections (redis-connection.ts) and the parts use it. */
export interface RedisClient extends RedisCommands {
  /**
   * True while commands can be sent: connected (a Cluster: its slots known; a Sentinel set: its primary
   * found), and Redis has answered since a command last missed its deadline.
   */
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

/** What each of node-redis's clients has of its own, beside sending commands. */
interface Underlying {
  readonly isOpen: boolean;
  readonly isReady?: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

type RedisArgs = (string | Buffer)[];
/** A command's words, the key that routes it in a Cluster, and the signal that withdraws it unless it is written. */
type Send = (args: RedisArgs, key: string | undefined, signal: AbortSignal | undefined) => Promise<unknown>;
/** node-redis's options of one command: replies as Buffers, and the signal that withdraws it. */
interface SendOptions {
  typeMapping: object;
  abortSignal: AbortSignal | undefined;
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
  const socket = {
    connectTimeout: timeoutMs,
    // node-redis counts `retries` from 0.
    reconnectStrategy: (retries: number) => (hasConnected() ? backoffMs(RECONNECT_BACKOFF, retries + 1) : false),
  };
  const options = {
    // A command while Redis is away fails at once instead of waiting in a queue for it to come back:
    // callers report the failure, or try again later.
    disableOfflineQueue: true,
    pingInterval: PING_INTERVAL_MS,
    socket: { ...socket, socketTimeout: SILENT_SOCKET_MS },
  };
  const bounds = { timeoutMs, clock };
  const buffers = { [RESP_TYPES.BLOB_STRING]: Buffer };
  const sendOptions = (signal: AbortSignal | undefined): SendOptions => ({ typeMapping: buffers, abortSignal: signal });
  const credentials = address.kind === 'single' ? {} : { username: address.username, password: address.password };
  switch (address.kind) {
    case 'single': {
      const client = createClient({ url: address.url, ...options }) as unknown as Underlying & {
        sendCommand(args: RedisArgs, options: SendOptions): Promise<unknown>;
      };
      return new SingleClient(client, (args, _key, signal) => client.sendCommand(args, sendOptions(signal)), bounds);
    }
    case 'sentinel': {
      const sentinel = createSentinel({
        name: address.name,
        sentinelRootNodes: address.sentinels,
        nodeClientOptions: { ...options, ...credentials, database: address.db },
        // The Sentinels' connection listens for failovers and is silent meanwhile: no PING, no bound on silence.
        sentinelClientOptions: { socket },
        // A failed command is tried again on the new primary at most this often, all within timeoutMs (CommandGate).
        maxCommandRediscovers: 2,
      }) as unknown as Underlying & { sendCommand(isReadonly: boolean, args: RedisArgs, options: SendOptions): Promise<unknown> };
      return new WatchedClient(sentinel, (args, _key, signal) => sentinel.sendCommand(false, args, sendOptions(signal)), bounds);
    }
    case 'cluster': {
      const cluster = createCluster({
        rootNodes: address.nodes.map((node) => ({ socket: node })),
        defaults: { ...options, ...credentials },
      }) as unknown as Underlying & {
        sendCommand(firstKey: string | undefined, isReadonly: boolean, args: RedisArgs, options: SendOptions): Promise<unknown>;
      };
      return new WatchedClient(cluster, (args, key, signal) => cluster.sendCommand(key, false, args, sendOptions(signal)), {
        ...bounds,
        cluster: true,
      });
    }
  }
}

/** The part of node-redis's Cluster that knows which node serves which slot (not in its typings). */
interface ClusterSlots {
  masters: { client?: object }[];
  rediscover(startWith: object): Promise<void>;
}

/** How a client bounds its commands; `cluster`: a Cluster, whose slots are asked for again when a command fails. */
interface Bounds {
  timeoutMs: number;
  clock: Clock;
  cluster?: boolean;
}

/** The commands, as words sent through one CommandGate; the kinds differ in how they tell that Redis answers. */
abstract class GatedClient extends EventEmitter implements RedisClient {
  protected readonly gate: CommandGate;

  constructor(
    protected readonly client: Underlying,
    private readonly sendWords: Send,
    bounds: Bounds,
  ) {
    super();
    this.gate = new CommandGate({
      ...bounds,
      ping: () => sendWords(['PING'], undefined, undefined),
      reopened: () => this.reopened(),
    });
  }

  abstract get isReady(): boolean;

  get isOpen(): boolean {
    return this.client.isOpen;
  }

  connect = async () => {
    this.gate.reset();
    return this.client.connect();
  };
  close = () => {
    this.gate.reset();
    return this.client.close();
  };
  destroy = () => {
    this.gate.reset();
    this.client.destroy();
  };
  eval: RedisCommands['eval'] = (script, { keys, arguments: args }) =>
    this.send(['EVAL', script, String(keys.length), ...keys, ...args], keys[0]);
  get = (key: string) => this.send(['GET', key], key) as Promise<Buffer | null>;
  set: RedisCommands['set'] = (key, value, { expiration, condition }) =>
    this.send(['SET', key, value, ...(condition === undefined ? [] : [condition]), expiration.type, String(expiration.value)], key);
  hmGet = (key: string, fields: string[]) => this.send(['HMGET', key, ...fields], key) as Promise<(Buffer | null)[]>;
  abstract replicated(key: string): Promise<number>;

  protected send(args: RedisArgs, key: string | undefined): Promise<unknown> {
    return this.gate.send((signal) => this.sendWords(args, key, signal));
  }

  /** Redis answered a probe, or a command, after a command had missed its deadline. */
  protected abstract reopened(): void;
}

/** One server: node-redis says itself when it answers again ('ready'), after a reconnection. */
class SingleClient extends GatedClient {
  constructor(client: Underlying, send: Send, bounds: Bounds) {
    super(client, send, bounds);
    client.on('error', (error: Error) => this.emit('error', error));
    // A connection made again has been answered: a hold, if any, is over, and told once.
    client.on('ready', () => {
      if (!this.gate.release()) this.emit('ready');
    });
  }

  get isReady(): boolean {
    return this.client.isReady === true && !this.gate.holding;
  }

  replicated = () => Promise.resolve(0);

  protected reopened(): void {
    this.emit('ready');
  }
}

/**
 * A Sentinel set or a Cluster: node-redis follows the primary, or the slots, by itself, and says when a
 * node fails but not when Redis answers again: that is known from the commands, the first to succeed
 * after one failed (or from the gate's probe).
 */
class WatchedClient extends GatedClient {
  private failing = false;

  constructor(
    client: Underlying,
    send: Send,
    private readonly bounds: Bounds,
  ) {
    super(client, send, bounds);
    client.on('error', (error: Error | string) => this.failed(error));
    // A Cluster's node that fails: the commands for its slots fail until it, or its replica, answers.
    client.on('node-error', (error: Error) => this.failed(error));
  }

  get isReady(): boolean {
    return this.client.isOpen && this.client.isReady !== false && !this.gate.holding;
  }

  override connect = async () => {
    this.gate.reset();
    await this.client.connect();
    // Failures while connecting are the connection's to report (redis-connection.ts), not an absence to end.
    this.failing = false;
  };

  // Half the part's bound at most: a replica that does not answer (one reconnecting after a failover)
  // leaves the publication time to be answered within the bound.
  replicated = async (key: string) =>
    Number(await this.send(['WAIT', '1', String(Math.max(1, Math.min(REPLICA_WAIT_MS, Math.floor(this.bounds.timeoutMs / 2))))], key));

  protected override async send(args: RedisArgs, key: string | undefined): Promise<unknown> {
    let reply: unknown;
    try {
      reply = await super.send(args, key);
    } catch (error) {
      this.failing = true;
      if (this.bounds.cluster === true) this.rediscover();
      throw error;
    }
    this.reopened();
    return reply;
  }

  protected reopened(): void {
    if (!this.failing) return;
    this.failing = false;
    this.emit('ready');
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
