// The searches a caching proxy sends its upstream (SB-11). The proxy is one client of its upstream,
// rate-limited like any other, so what its own clients do must never make it exceed that rate: a
// refusal puts the proxy's search schedule into back-off (RF-4), and every search that misses the
// cache fails for everyone until it ends. So:
//   - identical prefixes in flight are asked once, and prefixes of concurrent searches go up together,
//     in requests of at most SEARCH_PREFIXES_PER_REQUEST;
//   - upstream requests are spent from a token bucket (`requestsPerMinute`, `burst`) set below the
//     upstream's own limit: past it, searches wait their turn, briefly, or get 503 with Retry-After;
//     instances on one Redis spend one bucket and one set of shares (upstream-budget.ts);
//   - each requester (an API key the server accepts, a trusted OHTTP relay's users together, else the
//     client's address and its neighbourhood) may send at most so many prefixes upstream per minute
//     (upstream-shares.ts): one client's volume is refused before it costs anyone else;
//   - when requests are scarce, keyed requesters come first, then whoever the upstream served least in
//     the last minute: small searches are not starved by full batches.
// Only prefixes that neither the shared cache nor the client's memory cache answer count or go up.

import { SEARCH_PREFIXES_PER_REQUEST } from '../../client/hash-searcher.ts';
import type { FullHashMatch } from '../../lists/threat-details.ts';
import { SbkitError } from '../../sbkit-error.ts';
import { type MonotonicClock, systemClock } from '../../time/clock.ts';
import { prefix32 } from '../../url/hash.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { Requester } from '../guard/requester.ts';
import { MemoryUpstreamBudget, type UpstreamBucketLimits, type UpstreamBudget } from './upstream-budget.ts';
import type { UpstreamShareLimits } from './upstream-shares.ts';

/** How a proxy spends its upstream's patience. */
export interface UpstreamSearchLimits extends UpstreamShareLimits, UpstreamBucketLimits {
  /**
   * Longest a search waits for its turn upstream before it is answered 503 with Retry-After; one that
   * needs several requests waits besides for the bucket to refill them (refillMs).
   */
  maxWaitMs: number;
}

/**
 * Defaults under an sbkit upstream's load control (LC-3: 11 requests in 15 s for one client, about 44 a
 * minute): 30 a minute leaves room. A browser's search after the caches is a handful of prefixes; a
 * neighbourhood is a household's or an office's few devices; a key's share holds one v4 Lookup API
 * request of 500 page URLs that no cache answers (six expressions each: a host and its domain, the page,
 * its folder and the root), the most that API sends at once; a relay carries many users, as a key does.
 */
const DEFAULT_UPSTREAM_SEARCH_LIMITS: UpstreamSearchLimits = {
  requestsPerMinute: 30,
  burst: 5,
  anonymousPrefixesPerMinute: 120,
  neighbourhoodPrefixesPerMinute: 480,
  keyedPrefixesPerMinute: 3_000,
  relayedPrefixesPerMinute: 2_400,
  maxWaitMs: 3_000,
};

/** The limits in force: the defaults, with what the configuration sets. */
export function upstreamSearchLimits(limits: Partial<UpstreamSearchLimits>): UpstreamSearchLimits {
  return { ...DEFAULT_UPSTREAM_SEARCH_LIMITS, ...limits };
}

/** Prefixes of concurrent searches that arrive within this time go up in one request. */
const GATHER_MS = 10;
/** The longest a search that needs several requests waits for the bucket to refill them, besides `maxWaitMs`. */
const MAX_REFILL_WAIT_MS = 60_000;
/** The turn of the rest of a search part of which went up: before any other (upstream-shares.ts gives turns from 1). */
const STARTED = -1;

/** What the upstream answered for some prefixes: full hashes (byte strings) and how long it holds. */
export interface UpstreamAnswer {
  fullHashes: FullHashMatch[];
  cacheDurationMs: number;
}

/** The proxy's client of its upstream, as far as searches go (upstream.ts); full hashes as byte strings. */
export interface UpstreamSearchClient {
  /** The memory cache's answers, the prefixes it has none for, and how long its answers stay valid. */
  cachedSearch(prefixes: readonly number[]): UpstreamAnswer & { remaining: number[] };
  /** One search of the upstream, within the client's request-frequency rules. */
  searchPrefixes(prefixes: readonly number[]): Promise<UpstreamAnswer>;
  /**
   * The most prefixes one upstream call carries, each call spending a token: Web Risk's `hashes:search`
   * takes one (and bills each), v5's and v4's many (SEARCH_PREFIXES_PER_REQUEST, the default).
   */
  readonly prefixesPerRequest?: number;
}

/**
 * A prefix waiting for a request: whether a keyed requester asked for it, the best turn of the searches
 * that wait for it (upstream-shares.ts), how many wait, and their answer.
 */
interface Queued {
  keyed: boolean;
  turn: number;
  waiters: number;
  answer: Promise<UpstreamAnswer>;
  settle: (answer: Promise<UpstreamAnswer>) => void;
}

export class UpstreamSearches {
  private readonly limits: UpstreamSearchLimits;
  private readonly budget: UpstreamBudget;
  /** When the bucket last said its next token comes (monotonic), for the Retry-After of a search that cannot wait. */
  private nextTokenAt = -Infinity;
  /** Prefixes waiting for a request, in arrival order. */
  private readonly pending = new Map<number, Queued>();
  /** Prefixes asked upstream and not yet answered: later searches for them wait for the same answer. */
  private readonly inFlight = new Map<number, Promise<UpstreamAnswer>>();
  private flushScheduled = false;
  /** True while requests are being sent: the bucket's answers are awaited one at a time. */
  private flushing = false;

  constructor(
    private readonly client: UpstreamSearchClient,
    limits: Partial<UpstreamSearchLimits> = {},
    /** The bucket and the shares on its monotonic reading, the waits on its timers (tests drive it by hand). */
    private readonly clock: MonotonicClock = systemClock,
    /** Where the bucket and the shares are kept: this instance's memory by default, or Redis, shared by instances. */
    budget?: UpstreamBudget,
  ) {
    this.limits = upstreamSearchLimits(limits);
    this.budget = budget ?? new MemoryUpstreamBudget(this.limits, clock);
  }

  /**
   * The full hashes under `prefixes` from the client's cache and, for the rest, the upstream. Rejects
   * with WireError UNAVAILABLE (503, Retry-After) when the requester is over its share, when the
   * upstream cannot be asked in time, or when it fails. `waitedMs`: how long the search waited already
   * (for another proxy instance's answer, claimed-searches.ts), taken off its wait for a turn, so that
   * the two waits together stay within `maxWaitMs`.
   */
  async search(prefixes: readonly number[], requester: Requester, waitedMs = 0): Promise<UpstreamAnswer> {
    const cached = this.client.cachedSearch(prefixes);
    const answer: UpstreamAnswer = {
      fullHashes: [...cached.fullHashes],
      cacheDurationMs: cached.remaining.length < prefixes.length ? cached.cacheDurationMs : Infinity,
    };
    const remaining = [...new Set(cached.remaining)];
    if (remaining.length === 0) return answer;
    const upstreamBound = remaining.filter((prefix) => !this.inFlight.has(prefix) && !this.pending.has(prefix)).length;
    // Refuses a requester over its share before anything is queued; a search whose prefixes others asked already spends nothing.
    const turn = upstreamBound === 0 ? Infinity : await this.budget.spendShare(requester, upstreamBound);
    const queued: [number, Queued][] = [];
    const parts = remaining.map((prefix) => {
      const inFlight = this.inFlight.get(prefix);
      if (inFlight !== undefined) return inFlight;
      const entry = this.queue(prefix, requester.keyed, turn);
      queued.push([prefix, entry]);
      return entry.answer;
    });
    this.scheduleFlush(GATHER_MS);
    // Never less than a gathering's time: a search whose turn is now still goes.
    const waitMs = Math.max(2 * GATHER_MS, this.limits.maxWaitMs - waitedMs) + this.refillMs(queued.length);
    const answers = await this.withinWait(Promise.all([...new Set(parts)]), queued, waitMs);
    // Several prefixes of this search may have gone up in one request: each match is taken once.
    const asked = new Set(remaining);
    const taken = new Set<string>();
    for (const part of new Set(answers)) {
      for (const match of part.fullHashes) {
        if (!asked.has(prefix32(match.fullHash)) || taken.has(match.fullHash)) continue;
        taken.add(match.fullHash);
        answer.fullHashes.push(match);
      }
      answer.cacheDurationMs = Math.min(answer.cacheDurationMs, part.cacheDurationMs);
    }
    return answer;
  }

  /**
   * How long the bucket takes at its rate to refill the requests that `count` queued prefixes need beyond
   * the first, at most MAX_REFILL_WAIT_MS. Without it a search as large as a key's share (a v4 Lookup
   * API request of 500 page URLs: 12 requests) gave up after 7 of them at the default bucket, even on
   * an idle proxy, and its retry found the share spent; its turn among the others stays what its share
   * says, so the other keys' searches still go before its rest.
   */
  private refillMs(count: number): number {
    // A search no larger than one of a client's own (sbkit's, a browser's) waits only maxWaitMs: its
    // client gives up soon after (sbkit's within 10 s), even where each prefix is a call of its own (Web Risk).
    if (count <= SEARCH_PREFIXES_PER_REQUEST) return 0;
    const requests = Math.ceil(count / (this.client.prefixesPerRequest ?? SEARCH_PREFIXES_PER_REQUEST));
    return Math.min(MAX_REFILL_WAIT_MS, Math.max(0, requests - 1) * (60_000 / this.limits.requestsPerMinute));
  }

  /** The queue entry of a prefix, made if it is not queued yet, with one more search waiting for it. */
  private queue(prefix: number, keyed: boolean, turn: number): Queued {
    let entry = this.pending.get(prefix);
    if (entry === undefined) {
      let settle!: (answer: Promise<UpstreamAnswer>) => void;
      const answer = new Promise<UpstreamAnswer>((resolve) => (settle = resolve));
      // Marked handled: a search that gave up waiting no longer awaits it.
      answer.catch(() => undefined);
      entry = { keyed, turn, waiters: 0, answer, settle };
      this.pending.set(prefix, entry);
    }
    entry.keyed ||= keyed;
    entry.turn = Math.min(entry.turn, turn);
    entry.waiters++;
    return entry;
  }

  /**
   * `answers`, or 503 when the search's own queued prefixes have not gone up within `waitMs` (when
   * only some have, within `maxWaitMs` more): the wait is for its turn, not for the upstream's answer (the
   * client's request timeout bounds that). The prefixes it queued that are still waiting are withdrawn
   * (sent only if another search waits for them).
   */
  private withinWait<T>(answers: Promise<T>, queued: readonly [number, Queued][], waitMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let extended = false;
      const giveUp = () => {
        const waiting = queued.filter(([prefix, entry]) => this.pending.get(prefix) === entry);
        if (settled || waiting.length === 0) return;
        // Part of the search went up: its turn came, and the upstream's answers to that part would be
        // wasted if it gave up now. The rest goes first in the next request; the search waits once more.
        if (!extended && waiting.length < queued.length) {
          extended = true;
          for (const [, entry] of waiting) entry.turn = STARTED;
          this.clock.setTimeout(giveUp, this.limits.maxWaitMs);
          return;
        }
        settled = true;
        for (const [prefix, entry] of waiting) if (--entry.waiters === 0) this.pending.delete(prefix);
        reject(
          new WireError('UNAVAILABLE', 'the upstream server is asked as often as it allows, and this search could not wait its turn', {
            retryAfterSeconds: Math.max(1, Math.ceil((this.nextTokenAt - this.clock.monotonic()) / 1000)),
          }),
        );
      };
      this.clock.setTimeout(giveUp, waitMs);
      answers.then(
        (value) => {
          if (settled) return;
          settled = true;
          resolve(value);
        },
        (error: Error) => {
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  }

  private scheduleFlush(ms: number): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.clock.setTimeout(() => {
      this.flushScheduled = false;
      this.flush();
    }, ms);
  }

  /** Sends as many requests as there are tokens, prefixes in turn (inTurn); waits for a token otherwise. */
  private flush(): void {
    // A flush under way sends what is queued meanwhile too: it takes tokens until the queue is empty.
    if (this.flushing) return;
    this.flushing = true;
    void this.drain()
      .catch((error: unknown) => this.failPending(error))
      .finally(() => (this.flushing = false));
  }

  /** A budget that cannot decide fails the searches waiting for a token, as an upstream that cannot be asked does (503). */
  private failPending(error: unknown): void {
    const failure = Promise.reject(upstreamFailure(error, this.clock.now()));
    failure.catch(() => undefined);
    for (const [prefix, entry] of this.pending) {
      this.pending.delete(prefix);
      entry.settle(failure);
    }
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const waitMs = await this.budget.takeToken();
      if (waitMs > 0) {
        this.nextTokenAt = this.clock.monotonic() + waitMs;
        this.scheduleFlush(waitMs);
        return;
      }
      // The searches that queued may have given up while the token was taken: it is spent all the same.
      if (this.pending.size === 0) return;
      const batch = [...this.pending]
        .sort(([, a], [, b]) => inTurn(a, b))
        .slice(0, this.client.prefixesPerRequest ?? SEARCH_PREFIXES_PER_REQUEST);
      for (const [prefix] of batch) this.pending.delete(prefix);
      this.send(batch);
    }
  }

  private send(batch: [number, Queued][]): void {
    const prefixes = batch.map(([prefix]) => prefix);
    const request = this.client.searchPrefixes(prefixes).catch((error: unknown) => {
      throw upstreamFailure(error, this.clock.now());
    });
    request.catch(() => undefined);
    for (const prefix of prefixes) this.inFlight.set(prefix, request);
    for (const [, entry] of batch) entry.settle(request);
    void request
      .finally(() => {
        for (const prefix of prefixes) if (this.inFlight.get(prefix) === request) this.inFlight.delete(prefix);
      })
      .catch(() => undefined);
  }
}

/**
 * The order queued prefixes go up in: keyed requesters' first, then the lower turn (whoever the upstream
 * served least in the last minute), then arrival (the sort is stable, the queue in arrival order).
 */
function inTurn(a: Queued, b: Queued): number {
  return Number(b.keyed) - Number(a.keyed) || a.turn - b.turn;
}

/**
 * A failed upstream search as the proxy answers it at `now` (wall time): 503, with Retry-After from the
 * client's schedule when it has one.
 */
function upstreamFailure(error: unknown, now: number): WireError {
  const cause = error instanceof SbkitError ? { cause: error } : {};
  // SearchDeferredError says until when RF-3 or RF-4 forbid asking; other failures are retried in a minute.
  const notBefore = (error as { notBefore?: unknown }).notBefore;
  const seconds = typeof notBefore === 'number' ? Math.ceil((notBefore - now) / 1000) : 60;
  return new WireError('UNAVAILABLE', `the upstream server cannot be asked now: ${(error as Error).message}`, {
    ...cause,
    retryAfterSeconds: Math.min(Math.max(1, seconds), 3600),
  });
}
