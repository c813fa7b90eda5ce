// Failed attempts at the operator's token, counted per client: a client that fails `maxFailures` times
// within `windowMs` is refused for `blockMs`, and each further block doubles, up to `maxBlockMs`, so that
// guessing costs hours rather than milliseconds. Memory is bounded: at most `maxClients` clients are
// remembered, those not heard from for the longest forgotten first, but in two rooms: clients with a block
// behind them take up to half, and only crowd out each other, so that one-off failures from thousands of
// other addresses cannot wipe a block and its doubling (issue 26, S9), and a crowd of blocked addresses
// cannot leave no room to count the failures of the next.

import { BoundedMap } from '../../store/bounded-map.ts';
import { type Backoff, backoffMs } from '../../time/backoff.ts';
import { type Clock, systemClock } from '../../time/clock.ts';

/** The rules of a {@link FailureThrottle}; {@link ADMIN_THROTTLE_RULES} are the operator endpoints'. */
export interface ThrottleRules {
  /** Failures within `windowMs` that block a client (the attempt after the last of them is refused). */
  maxFailures: number;
  windowMs: number;
  /** The first block; each next one is twice as long. */
  blockMs: number;
  maxBlockMs: number;
  /** A client without failures for this long after its last block ends starts again from the first block. */
  forgiveMs: number;
  /** Clients remembered at most. */
  maxClients: number;
}

/** 5 failures a minute, blocks of 1 minute doubling up to a day, forgiven after a quiet day; 10 000 clients (about 1 MB). */
export const ADMIN_THROTTLE_RULES: ThrottleRules = {
  maxFailures: 5,
  windowMs: 60_000,
  blockMs: 60_000,
  maxBlockMs: 24 * 3_600_000,
  forgiveMs: 24 * 3_600_000,
  maxClients: 10_000,
};

interface ClientRecord {
  windowStart: number;
  failures: number;
  blockedUntil: number;
  /** Blocks so far: the next is the back-off's after blocks + 1 failures, blockMs × 2^blocks. */
  blocks: number;
  lastFailure: number;
}

/** What a failed attempt led to. */
export interface FailureOutcome {
  /** Failures of the client in the current window, this one included. */
  failures: number;
  /** The block this failure imposed, in ms; 0 when none. */
  blockedMs: number;
}

export class FailureThrottle {
  /** Clients with failures but no block yet, in order of last failure, the least recent first. */
  private readonly suspects: BoundedMap<string, ClientRecord>;
  /** Clients blocked at least once and not yet forgiven, in the same order: forgotten only after every suspect. */
  private readonly blocked: BoundedMap<string, ClientRecord>;
  /** Each block twice as long as the one before, up to maxBlockMs. */
  private readonly blocks: Backoff;

  constructor(
    private readonly rules: ThrottleRules = ADMIN_THROTTLE_RULES,
    private readonly clock: Clock = systemClock,
  ) {
    // Either room may take all of maxClients; together they keep no more (forgetOne).
    this.suspects = new BoundedMap(rules.maxClients);
    this.blocked = new BoundedMap(rules.maxClients);
    this.blocks = { firstMs: rules.blockMs, maxMs: rules.maxBlockMs };
  }

  /** Milliseconds until `client` may try again; 0 when it may now. */
  retryAfterMs(client: string): number {
    const record = this.recordOf(client);
    return record === undefined ? 0 : Math.max(0, record.blockedUntil - this.clock.now());
  }

  /** Counts a failed attempt of `client`, blocking it when it is one too many. */
  failed(client: string): FailureOutcome {
    const now = this.clock.now();
    let record = this.recordOf(client);
    this.forget(client);
    if (record === undefined || this.forgiven(record, now)) {
      record = { windowStart: now, failures: 0, blockedUntil: 0, blocks: 0, lastFailure: now };
    }
    if (now - record.windowStart >= this.rules.windowMs) {
      record.windowStart = now;
      record.failures = 0;
    }
    const failures = ++record.failures;
    record.lastFailure = now;
    let blockedMs = 0;
    if (failures >= this.rules.maxFailures) {
      record.blocks++;
      blockedMs = backoffMs(this.blocks, record.blocks);
      record.blockedUntil = now + blockedMs;
      // The window starts again when the block ends: the next failures count towards the next block.
      record.windowStart = record.blockedUntil;
      record.failures = 0;
    }
    (record.blocks > 0 ? this.blocked : this.suspects).keep(client, record);
    if (this.size > this.rules.maxClients) this.forgetOne(now);
    return { failures, blockedMs };
  }

  /**
   * Makes room: a blocked client already forgiven, else the least recent blocked client when they fill
   * half the room (so that clients failing now can still be counted up to a block), else the least recent
   * client never blocked.
   */
  private forgetOne(now: number): void {
    const oldestBlocked = this.blocked.oldest();
    const crowded =
      oldestBlocked !== undefined && (this.forgiven(oldestBlocked[1], now) || this.blocked.size > this.rules.maxClients / 2)
        ? this.blocked
        : this.suspects;
    const oldest = crowded.oldest();
    if (oldest !== undefined) crowded.forget(oldest[0]);
  }

  /** Quiet means no failure for forgiveMs after the last failure or block, whichever ended later. */
  private forgiven(record: ClientRecord, now: number): boolean {
    return now - Math.max(record.lastFailure, record.blockedUntil) >= this.rules.forgiveMs;
  }

  /** `client` knew the token: its failures are forgotten. */
  succeeded(client: string): void {
    this.forget(client);
  }

  /** Clients remembered now. */
  get size(): number {
    return this.suspects.size + this.blocked.size;
  }

  private recordOf(client: string): ClientRecord | undefined {
    // Peeked: the order is that of failures, which asking about a client does not change.
    return this.blocked.peek(client) ?? this.suspects.peek(client);
  }

  private forget(client: string): void {
    this.suspects.forget(client);
    this.blocked.forget(client);
  }
}
