// Where a caching proxy keeps what it spent of its upstream's patience (upstream-searches.ts): the token
// bucket of upstream requests and each requester's share of prefixes (upstream-shares.ts). One
// instance keeps them in its memory; instances on one Redis keep them there, so that they spend one
// budget together (redis/redis-upstream-budget.ts).

import type { MonotonicClock } from '../../time/clock.ts';
import type { Requester } from '../guard/requester.ts';
import { type UpstreamShareLimits, UpstreamShares } from './upstream-shares.ts';

/** The bucket of upstream requests: its rate, and how many may go at once after a quiet spell. */
export interface UpstreamBucketLimits {
  requestsPerMinute: number;
  burst: number;
}

/** What a proxy spent of its upstream's patience. Neither method waits for anything but its own store. */
export interface UpstreamBudget {
  /** Takes one upstream request's token: resolves to 0 when taken, else to the ms until one can be (none taken). */
  takeToken(): Promise<number>;
  /**
   * Counts `count` upstream-bound prefixes of `requester`'s search against its shares and resolves to
   * the search's turn (lower goes first). Rejects with WireError UNAVAILABLE, with Retry-After, when a
   * share would be exceeded: nothing is counted then.
   */
  spendShare(requester: Requester, count: number): Promise<number>;
}

/** The budget of one instance, on its monotonic clock. */
export class MemoryUpstreamBudget implements UpstreamBudget {
  private tokens: number;
  private refilledAt: number;
  private readonly shares: UpstreamShares;

  constructor(
    private readonly limits: UpstreamBucketLimits & UpstreamShareLimits,
    private readonly clock: MonotonicClock,
  ) {
    this.shares = new UpstreamShares(limits);
    this.tokens = limits.burst;
    this.refilledAt = clock.monotonic();
  }

  takeToken(): Promise<number> {
    return Promise.resolve(this.takeTokenNow());
  }

  // Async: a refusal thrown by the shares is this promise's rejection.
  async spendShare(requester: Requester, count: number): Promise<number> {
    return this.spendShareNow(requester, count);
  }

  /** takeToken, decided at once (a Redis budget's fallback decides so). */
  takeTokenNow(): number {
    const now = this.clock.monotonic();
    const perMs = this.limits.requestsPerMinute / 60_000;
    this.tokens = Math.min(this.limits.burst, this.tokens + (now - this.refilledAt) * perMs);
    this.refilledAt = now;
    if (this.tokens < 1) return Math.ceil((1 - this.tokens) / perMs);
    this.tokens -= 1;
    return 0;
  }

  /** spendShare, decided at once; throws its refusal. */
  spendShareNow(requester: Requester, count: number): number {
    return this.shares.spend(requester, count, this.clock.monotonic());
  }
}
