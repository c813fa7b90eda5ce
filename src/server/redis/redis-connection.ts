// A connection to Redis — one server, a Sentinel set or a Cluster (redis-address.ts) — that may start
// before Redis answers and tries again on a schedule, watched for the service's log and metrics.

import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../../sbkit-error.ts';
import { type Backoff, backoffMs } from '../../time/backoff.ts';
import { type Clock, systemClock } from '../../time/clock.ts';
import { readRedisAddress, redisLabel, type RedisTarget } from './redis-address.ts';
import { createRedisClient, type RedisClient } from './redis-clients.ts';
import type { LogSink } from '../logger.ts';

/** The start of every Redis key of sbkit's, unless the operator chooses another (`--redis-prefix`). */
export const DEFAULT_KEY_PREFIX = 'sbkit:';

const REDIS_CONNECTION_FAILURES = ['invalid-url', 'unavailable'] as const;
/** Why Redis could not be reached: an address that cannot be used, or a Redis that does not answer. */
type RedisConnectionFailure = (typeof REDIS_CONNECTION_FAILURES)[number];

/**
 * Why Redis could not be reached: `invalid-url` for an address that cannot be used (a mistake of the
 * configuration), `unavailable` when Redis did not answer in time or refused.
 */
export class RedisConnectionError extends SbkitError {
  /** Always `"RedisConnectionError"`, as logs and stack traces show it. */
  override readonly name = 'RedisConnectionError';
  /** `SBKIT_REDIS_CONNECTION_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'REDIS_CONNECTION', RedisConnectionFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('REDIS_CONNECTION', REDIS_CONNECTION_FAILURES);

  constructor(
    /** A URL that cannot be used, or a Redis that does not answer. */
    readonly reason: RedisConnectionFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = errorCode('REDIS_CONNECTION', reason);
  }
}

/**
 * The back-off between attempts to reach a Redis that did not answer at start, 1 s doubling to a minute:
 * a Redis back within seconds is found within seconds, one down for long is asked once a minute. A random
 * half of each wait is taken off, so that instances restarted together do not knock on Redis together.
 */
export const DEFAULT_RETRY_SCHEDULE: Backoff = { firstMs: 1000, maxMs: 60_000, jitter: -0.5 };

/**
 * How a part of the service connects to Redis and tells of it (server/redis/redis-monitor.ts makes one per part):
 * whether it starts without Redis, and what it reports for the metrics.
 */
export interface RedisWatch {
  /** When Redis does not answer at start: resolve anyway and try again on this schedule; undefined: reject. */
  readonly retry: Backoff | undefined;
  /** Each connection made, watched while it lives; `failure` says why Redis did not answer at start. */
  opened(connection: RedisConnection, failure: Error | undefined): void;
  /** Redis answers again: after failed attempts at start, or after it went away. */
  reconnected(connection: RedisConnection): void;
  /** A list's history of versions, which Redis had lost, was written back from this instance's memory. */
  restored(list: string, versions: number): void;
}

/** How a part of the service reaches Redis; each part's options add their own to these. */
export interface RedisOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS, `redis+sentinel://host:port,…/name[?db=N]`,
   * `redis+cluster://host:port,…`, or the configuration file's object form (redis-address.ts).
   */
  url: RedisTarget;
  /** Starts every key: the instances that share this part's keys share it; DEFAULT_KEY_PREFIX when not given. */
  keyPrefix?: string;
  /** Bound on connecting and on each command; each part has its own default. */
  timeoutMs?: number;
  /** Where to say that Redis failed, or answers again. */
  log?: LogSink;
  /** Start without Redis when it does not answer, and report to the service's metrics (redis-monitor.ts). */
  watch?: RedisWatch;
}

/** A connection to Redis, which may be trying to reach it still. */
export interface RedisConnection {
  readonly client: RedisClient;
  /** The URL without credentials, for messages. */
  readonly label: string;
  /** True while Redis answers commands. */
  readonly ready: boolean;
  /** While Redis has not answered since start: try now rather than at the next scheduled attempt. */
  retryNow(): void;
  /** Stops trying and disconnects. */
  close(): Promise<void>;
}

/**
 * Connects to Redis at `url`, bounding the connection and every command by `timeoutMs`; replies come
 * as Buffers. Rejects with RedisConnectionError: 'invalid-url' for an address that cannot be used,
 * 'unavailable' when Redis does not answer, unless `watch.retry` says to start without it: then it
 * resolves at once, commands fail until Redis answers, and attempts follow the schedule, with jitter.
 * The deadline of each attempt and the waits between them are `clock`'s timers.
 */
export async function connectRedis(
  url: RedisTarget,
  timeoutMs: number,
  watch?: RedisWatch,
  clock: Clock = systemClock,
): Promise<RedisConnection> {
  const label = redisLabel(url);
  const address = readRedisAddress(url);
  if ('problem' in address) throw new RedisConnectionError('invalid-url', `${label} is not a Redis address: ${address.problem}`);
  let connection: Connection | undefined;
  let client: RedisClient;
  try {
    client = await createRedisClient(address, timeoutMs, () => connection?.everConnected === true, clock);
  } catch (error) {
    // Without its cause: new URL()'s error keeps the whole URL, password and all, as `input`, which a
    // log that prints an error with its causes would show.
    throw new RedisConnectionError(
      'invalid-url',
      `${label} is not a Redis URL (redis://host:port, redis+sentinel://host:port,…/name, redis+cluster://host:port,…): ${(error as Error).message}`,
    );
  }
  connection = new Connection(client, label, timeoutMs, watch, clock);
  const failure = await connection.attempt();
  if (failure !== undefined) {
    const error = new RedisConnectionError('unavailable', `cannot connect to Redis at ${label}: ${failure.message}`, { cause: failure });
    if (watch?.retry === undefined) throw error;
    connection.retryLater(watch.retry);
  }
  watch?.opened(connection, failure);
  return connection;
}

class Connection implements RedisConnection {
  everConnected = false;
  private attempts = 0;
  private timer: unknown;
  private schedule: Backoff | undefined;
  private closed = false;
  private retrying = false;
  private connecting: Promise<Error | undefined> | undefined;

  constructor(
    readonly client: RedisClient,
    readonly label: string,
    private readonly timeoutMs: number,
    private readonly watch: RedisWatch | undefined,
    private readonly clock: Clock,
  ) {
    // Once connected, node-redis reconnects by itself and says so with 'ready'.
    client.on('ready', () => {
      if (this.everConnected) this.watch?.reconnected(this);
    });
  }

  get ready(): boolean {
    return this.client.isReady;
  }

  /** One attempt to connect; resolves to why it failed, or undefined once connected. */
  attempt(): Promise<Error | undefined> {
    this.connecting ??= this.connectOnce().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  retryLater(schedule: Backoff): void {
    this.schedule = schedule;
    if (this.closed || this.everConnected) return;
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => void this.retry(), Math.round(backoffMs(schedule, this.attempts, Math.random())));
  }

  retryNow(): void {
    if (this.closed || this.everConnected || this.schedule === undefined) return;
    this.clock.clearTimeout(this.timer);
    void this.retry();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clock.clearTimeout(this.timer);
    await this.connecting;
    if (this.client.isOpen) await this.client.close();
  }

  private async retry(): Promise<void> {
    // One attempt at a time: asked to try while an attempt is under way, that attempt is the answer.
    if (this.retrying) return;
    this.retrying = true;
    const failure = await this.attempt();
    this.retrying = false;
    if (this.closed) {
      if (this.client.isOpen) await this.client.close();
      return;
    }
    if (failure === undefined) this.watch?.reconnected(this);
    else this.retryLater(this.schedule!);
  }

  private async connectOnce(): Promise<Error | undefined> {
    if (this.everConnected) return undefined;
    this.attempts += 1;
    // node-redis reports connection failures as 'error' events too: the result says it.
    const ignore = () => {};
    this.client.on('error', ignore);
    // node-redis bounds the TCP connection by connectTimeout, not the handshake after it (HELLO, CLIENT
    // SETINFO): a server that accepts and never answers would hold the attempt, and a start, for ever.
    // Unref'd like every timer of the system's clock: the attempt's socket keeps the process alive meanwhile.
    let timer: unknown;
    const unanswered = new Promise<never>((_resolve, reject) => {
      timer = this.clock.setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
    });
    const connecting = this.client.connect();
    try {
      await Promise.race([connecting, unanswered]);
    } catch (error) {
      if (this.client.isOpen) {
        // The attempt cut short rejects as the socket goes: that is this failure, already reported.
        connecting.catch(() => undefined);
        this.client.destroy();
      }
      return error instanceof Error ? error : new Error(String(error));
    } finally {
      this.clock.clearTimeout(timer);
      this.client.off('error', ignore);
    }
    this.everConnected = true;
    return undefined;
  }
}
