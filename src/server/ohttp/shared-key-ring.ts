// Gateway keys shared by every instance behind one address (SB-2, RFC 9458 §3), so that a client
// holding the configuration one instance published is understood by all of them. The schedule comes
// from the clock, not from any instance: generation g = floor(now / rotateMs) is current during
// [g·rotateMs, (g+1)·rotateMs) and still accepted for overlapMs after that. Each generation's key is
// made by whichever instance needs it first and kept in Redis:
//   {prefix}ohttp-key:{rotateMs}:{g}   a random key ID (1 byte) and the 32-byte X25519 private key, set
//                                      only if absent (all instances agree on the first one written);
//                                      Redis drops it once it is accepted no more.
// Each instance reads its keys again every minute: should Redis lose one (a restart without
// persistence, eviction), the instances agree again on its replacement within that time, and its new
// random key ID tells clients holding the lost one that their key is unknown (RFC 9458 §5.3), so that
// they fetch the configuration again. The instances' clocks must agree to within the overlap (NTP does).

import { ConfigError } from '../config/config-error.ts';
import { randomBytes, randomInt } from 'node:crypto';
import { type GatewayKey, importGatewayKey, type KeyConfig } from '../../wire/ohttp/ohttp.ts';
import { type Clock, systemClock } from '../../time/clock.ts';
import { connectRedis, DEFAULT_KEY_PREFIX, type RedisConnection, type RedisOptions, type RedisWatch } from '../redis/redis-connection.ts';
import { RedisReachability } from '../redis/redis-reachability.ts';
import { type GatewayKeys, GatewayKeysUnavailableError, type KeyRingOptions } from './key-ring.ts';
import { type Logger, loggerOf } from '../logger.ts';

export interface SharedKeyRingOptions extends KeyRingOptions, RedisOptions {
  /** Uniform in [0, 1): picks key IDs; tests pass a fixed one. */
  random?: () => number;
  /** Start without Redis when it does not answer (Oblivious HTTP answers 503 until it does), and report to the service's metrics. */
  watch?: RedisWatch;
}

const PRIVATE_KEY_BYTES = 32;
const DEFAULT_TIMEOUT_MS = 1000;
/** How long a key read from Redis is used before it is read again. */
const REREAD_MS = 60_000;

interface HeldKey {
  key: GatewayKey;
  readAt: number;
}

/**
 * Oblivious HTTP gateway keys shared by every instance through Redis, so that a key configuration one
 * instance published works with all; rotated by whichever instance sees the key expire first.
 */
export class SharedKeyRing implements GatewayKeys {
  /** Keys of the generations in use, as last read from Redis. */
  private readonly held = new Map<number, HeldKey>();
  /** Reads under way, one per generation however many requests need it. */
  private readonly reading = new Map<number, Promise<GatewayKey | undefined>>();
  private readonly reachability: RedisReachability;

  private constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    private readonly rotateMs: number,
    private readonly overlapMs: number,
    private readonly clock: Clock,
    log: Logger,
    private readonly random: () => number,
  ) {
    this.reachability = new RedisReachability(log, true, clock);
    // Failures are reported by the commands that meet them; the client reconnects on its own.
    connection.client.on('error', () => {});
  }

  /** Connects to Redis; rejects with RedisConnectionError when it cannot (unless `watch.retry` says to start without it). */
  static async connect(options: SharedKeyRingOptions): Promise<SharedKeyRing> {
    const rotateMs = options.rotateMs ?? 24 * 3_600_000;
    const overlapMs = options.overlapMs ?? 3_600_000;
    if (!(overlapMs < rotateMs))
      throw new ConfigError('overlapMs', `the overlap (${overlapMs} ms) must be shorter than the rotation period (${rotateMs} ms)`);
    const clock = options.clock ?? systemClock;
    const connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch, clock);
    return new SharedKeyRing(
      connection,
      options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      rotateMs,
      overlapMs,
      clock,
      loggerOf(options.log),
      options.random ?? (() => randomInt(2 ** 32) / 2 ** 32),
    );
  }

  async keys(): Promise<GatewayKey[]> {
    const now = this.clock.now();
    const current = Math.floor(now / this.rotateMs);
    for (const generation of this.held.keys()) if (generation < current - 1) this.held.delete(generation);
    const keys = [(await this.key(current, now, true))!];
    // The replaced key, during the overlap, as Redis or this instance holds it: never made afresh, since
    // no client could hold a key made after its period.
    if (now - current * this.rotateMs < this.overlapMs) {
      const previous = await this.key(current - 1, now, false).catch(() => undefined);
      if (previous !== undefined) keys.push(previous);
    }
    return keys;
  }

  async configs(): Promise<KeyConfig[]> {
    return (await this.keys()).map((key) => key.config);
  }

  secondsUntilRotation(): number {
    const now = this.clock.now();
    return Math.max(0, Math.floor(((Math.floor(now / this.rotateMs) + 1) * this.rotateMs - now) / 1000));
  }

  /** Closes the Redis connection. */
  close(): Promise<void> {
    return this.connection.close();
  }

  /** A generation's key, read again once a minute; `make`: store one first if Redis has none. */
  private async key(generation: number, now: number, make: boolean): Promise<GatewayKey | undefined> {
    const held = this.held.get(generation);
    if (held !== undefined && now - held.readAt < REREAD_MS) return held.key;
    let reading = this.reading.get(generation);
    if (reading === undefined) {
      reading = this.read(generation, make, held?.key.config.keyId).finally(() => this.reading.delete(generation));
      this.reading.set(generation, reading);
    }
    try {
      const key = (await reading) ?? held?.key;
      if (key !== undefined) this.held.set(generation, { key, readAt: now });
      return key;
    } catch (error) {
      // Redis away: a key in hand still serves, and is not asked about again for a minute, so that
      // requests do not each wait for Redis's timeout; only a key never read cannot be had.
      if (held === undefined) throw error;
      held.readAt = now;
      return held.key;
    }
  }

  private keyName(generation: number): string {
    return `${this.keyPrefix}ohttp-key:${this.rotateMs}:${generation}`;
  }

  /**
   * The generation's key from Redis (undefined when it has none and `make` is false), made and stored
   * first if it has none; `heldId` is the ID this instance last read for it.
   */
  private async read(generation: number, make: boolean, heldId: number | undefined): Promise<GatewayKey | undefined> {
    const name = this.keyName(generation);
    let stored: Buffer | null;
    try {
      if (make) await this.make(generation, heldId);
      stored = await this.connection.client.get(name);
    } catch (error) {
      const failure = new GatewayKeysUnavailableError(
        `the gateway keys in Redis at ${this.connection.label} cannot be read: ${(error as Error).message}`,
        { cause: error },
      );
      this.reachability.failed(`${failure.message}; Oblivious HTTP requests get 503 until it answers`);
      throw failure;
    }
    this.reachability.answered(`the gateway keys in Redis at ${this.connection.label} can be read again`);
    if (stored === null && !make) return undefined;
    if (stored === null || stored.length !== 1 + PRIVATE_KEY_BYTES) {
      throw new GatewayKeysUnavailableError(
        `${name} in Redis at ${this.connection.label} does not hold a key ID and a ${PRIVATE_KEY_BYTES}-byte key`,
      );
    }
    return importGatewayKey(stored[0]!, new Uint8Array(stored.subarray(1)));
  }

  /**
   * Stores a key for the generation unless Redis has one (the first instance's wins). Its ID is another
   * than the previous generation's (during the overlap both are accepted, and the ID in a request picks
   * the key) and than a lost key's this instance held (so that holders of the lost key are told their key
   * is unknown rather than fail to decrypt).
   */
  private async make(generation: number, heldId: number | undefined): Promise<void> {
    const previous = await this.connection.client.get(this.keyName(generation - 1));
    const taken = new Set([previous?.[0], heldId].filter((id) => id !== undefined));
    const free = Array.from({ length: 256 }, (_, id) => id).filter((id) => !taken.has(id));
    const candidate = Buffer.concat([Buffer.from([free[Math.floor(this.random() * free.length)]!]), randomBytes(PRIVATE_KEY_BYTES)]);
    // Kept until the generation after it has outlived its overlap too.
    await this.connection.client.set(this.keyName(generation), candidate, {
      condition: 'NX',
      expiration: { type: 'PX', value: 2 * this.rotateMs + this.overlapMs },
    });
  }
}
