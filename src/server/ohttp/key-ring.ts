// The gateway's HPKE keys (SB-2, RFC 9458 §3): a current key, replaced every `rotateMs`, and the keys
// it replaced, still accepted for `overlapMs` so that clients holding the old configuration are not
// refused the moment it changes. Rotation happens as time passes, checked whenever keys are used.

import { randomInt } from 'node:crypto';
import { type GatewayKey, generateGatewayKey, type KeyConfig } from '../../wire/ohttp/ohttp.ts';
import { type ErrorCode, errorCode, SbkitError } from '../../sbkit-error.ts';
import { type Clock, systemClock } from '../../time/clock.ts';

/** The keys a gateway publishes and accepts: one instance's own (KeyRing) or shared ones (SharedKeyRing). */
export interface GatewayKeys {
  /** The configurations to publish: the current key first, then replaced ones still accepted. */
  configs(): Promise<KeyConfig[]>;
  /** The keys a request may use; rejects with GatewayKeysUnavailableError when they cannot be had. */
  keys(): Promise<GatewayKey[]>;
  /** Seconds until the published configuration may change: what clients may cache it for. */
  secondsUntilRotation(): number;
}

/** The keys are kept elsewhere (Redis) and cannot be had just now: the gateway answers 503. */
export class GatewayKeysUnavailableError extends SbkitError {
  /** Always `"GatewayKeysUnavailableError"`, as logs and stack traces show it. */
  override readonly name = 'GatewayKeysUnavailableError';
  /** Always `SBKIT_GATEWAY_KEYS_UNAVAILABLE`. */
  override readonly code = errorCode('GATEWAY_KEYS_UNAVAILABLE');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'GATEWAY_KEYS_UNAVAILABLE'>[] = [errorCode('GATEWAY_KEYS_UNAVAILABLE')];
}

export interface KeyRingOptions {
  /** How long a key is the current one; a day by default. */
  rotateMs?: number;
  /** How long a replaced key is still accepted; an hour by default. */
  overlapMs?: number;
  /** Whose time rotates the keys; the system's by default. */
  clock?: Clock;
}

interface HeldKey {
  key: GatewayKey;
  /** When it stops being current (and, for a replaced key, when it is dropped). */
  until: number;
}

/**
 * One instance's Oblivious HTTP gateway keys (SB-2), rotated on a schedule in memory. Give it to
 * {@link createServer} as `ohttpKeys`; instances behind one address share keys with {@link SharedKeyRing}.
 */
export class KeyRing implements GatewayKeys {
  private current: HeldKey;
  private replaced: HeldKey[] = [];
  private rotating: Promise<void> | undefined;

  private constructor(
    first: GatewayKey,
    private readonly rotateMs: number,
    private readonly overlapMs: number,
    private readonly clock: Clock,
  ) {
    this.current = { key: first, until: clock.now() + rotateMs };
  }

  /** Makes the first key (X25519, HKDF-SHA256, AES-128-GCM). */
  static async create(options: KeyRingOptions = {}): Promise<KeyRing> {
    // A random first key ID: after a restart, clients holding the previous process's configuration
    // are told "unknown key" (and fetch it again) rather than failing to decrypt under a reused ID.
    return new KeyRing(
      await generateGatewayKey(randomInt(256)),
      options.rotateMs ?? 24 * 3_600_000,
      options.overlapMs ?? 3_600_000,
      options.clock ?? systemClock,
    );
  }

  /** The configurations to publish: the current key first, then replaced ones still accepted. */
  async configs(): Promise<KeyConfig[]> {
    return (await this.keys()).map((key) => key.config);
  }

  /** The keys a request may use. */
  async keys(): Promise<GatewayKey[]> {
    await this.rotateIfDue();
    const now = this.clock.now();
    this.replaced = this.replaced.filter((held) => held.until > now);
    return [this.current.key, ...this.replaced.map((held) => held.key)];
  }

  /** Seconds until the published configuration may change: what clients may cache it for. */
  secondsUntilRotation(): number {
    return Math.max(0, Math.floor((this.current.until - this.clock.now()) / 1000));
  }

  private async rotateIfDue(): Promise<void> {
    while (this.clock.now() >= this.current.until) {
      // One rotation at a time, however many requests notice that it is due.
      this.rotating ??= (async () => {
        const next = await generateGatewayKey((this.current.key.config.keyId + 1) % 256);
        const at = this.clock.now();
        this.replaced.unshift({ key: this.current.key, until: at + this.overlapMs });
        this.current = { key: next, until: at + this.rotateMs };
      })().finally(() => {
        this.rotating = undefined;
      });
      await this.rotating;
    }
  }
}
