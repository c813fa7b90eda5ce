// The rate rules of LC-5, over hits remembered per client: rapid_fire_by_last_hit (a crawler's own
// last hit, any crawler's last hit) and rapid_fire_by_hit_stack (the client's recent requests). The
// memory store here is exact and bounded; redis-hit-store.ts runs the same steps in Redis so that
// instances share one budget per client.

import { BoundedMap } from '../../store/bounded-map.ts';

/** The windows and counts of LC-2 and LC-3; all of them settings. */
export interface RateRules {
  /** A crawler is refused when it was admitted less than this long ago (LC-2: 30 s). */
  crawlerIntervalMs: number;
  /** A crawler is refused when any crawler was admitted less than this long ago (LC-2: 2 s). */
  anyCrawlerIntervalMs: number;
  /** The window of the hit stack (LC-1, LC-3: 15 s). */
  burstWindowMs: number;
  /** A client with more than this many requests in the window before this one is refused (LC-1, LC-3: 10). */
  burstMax: number;
}

export const LC_RATE_RULES: RateRules = { crawlerIntervalMs: 30_000, anyCrawlerIntervalMs: 2_000, burstWindowMs: 15_000, burstMax: 10 };

/** What the rate rules say of one request; `admit` records it as the client's latest hit. */
export type RateVerdict = 'admit' | 'crawler-recent' | 'crawlers-busy' | 'rate' | 'address-rate';

/**
 * One hit stack a request counts in and the most earlier requests of the window it allows (LC-3's 10),
 * with the verdict when there are more: a client's own stack (`rate`), or its address's, which caps what
 * one address gets however many User-Agents it claims (`address-rate`).
 */
export interface Budget {
  key: string;
  max: number;
  refusal: 'rate' | 'address-rate';
}

export interface HitStore {
  /**
   * One atomic step for a request of `client` (a key of address and User-Agent): for a crawler, refuses
   * it when it or any crawler was admitted within their intervals (recording nothing); then records the
   * request in each of its budgets' hit stacks (by default the client's own, allowing `burstMax`) and
   * refuses it when more than a budget's `max` earlier requests fall in the window (LC-5 counts every
   * request, refused ones too, so hammering keeps a client out); else admits it, noting a crawler's
   * admission for the crawler rules.
   */
  hit(client: string, crawler: boolean, budgets?: readonly Budget[]): Promise<RateVerdict>;
  /** The crawler rules alone, recording nothing: 'admit' when neither refuses (LC-5 checks them before load_defer). */
  crawlerCheck(client: string): Promise<RateVerdict>;
  /** {@link hit} at once, from a store that needs no I/O for it (memory); absent where the step must wait (Redis). */
  hitNow?(client: string, crawler: boolean, budgets?: readonly Budget[]): RateVerdict;
}

interface ClientHits {
  /** Arrival times, oldest first, at most max + 1: enough to tell "more than max" exactly. */
  arrivals: number[];
  crawlerAdmittedAt: number | undefined;
}

/**
 * Hits in this process's memory, on a monotonic clock. At most `maxClients` clients are remembered,
 * those not seen for the longest forgotten first (store/bounded-map.ts): under a flood of more distinct
 * clients than that within the longest window, the oldest of them lose their history (memory stays
 * bounded whatever arrives).
 */
export class MemoryHitStore implements HitStore {
  private readonly clients: BoundedMap<string, ClientHits>;
  private anyCrawlerAdmittedAt: number | undefined;

  constructor(
    private readonly rules: RateRules,
    maxClients: number,
    private readonly now: () => number,
  ) {
    this.clients = new BoundedMap(maxClients);
  }

  async hit(client: string, crawler: boolean, budgets?: readonly Budget[]): Promise<RateVerdict> {
    return this.hitNow(client, crawler, budgets);
  }

  async crawlerCheck(client: string): Promise<RateVerdict> {
    return this.crawlerCheckNow(client);
  }

  /** crawlerCheck, synchronously. */
  crawlerCheckNow(client: string): RateVerdict {
    return this.crawlerVerdict(this.clients.getOrCompute(client, newClientHits), this.now());
  }

  /** The same step as `hit`, synchronously: what a Redis store falls back to while Redis is away. */
  hitNow(client: string, crawler: boolean, budgets: readonly Budget[] = ownBudget(client, this.rules)): RateVerdict {
    const now = this.now();
    const hits = this.clients.getOrCompute(client, newClientHits);
    if (crawler) {
      const verdict = this.crawlerVerdict(hits, now);
      if (verdict !== 'admit') return verdict;
    }
    let verdict: RateVerdict = 'admit';
    // Every budget records the request, whichever refuses it.
    for (const budget of budgets) {
      const stack = budget.key === client ? hits : this.clients.getOrCompute(budget.key, newClientHits);
      if (this.record(stack, budget.max, now) && verdict === 'admit') verdict = budget.refusal;
    }
    if (verdict !== 'admit') return verdict;
    if (crawler) {
      hits.crawlerAdmittedAt = now;
      this.anyCrawlerAdmittedAt = now;
    }
    return 'admit';
  }

  get size(): number {
    return this.clients.size;
  }

  /** Records an arrival in a hit stack; true when more than `max` earlier ones fall in the window. */
  private record(hits: ClientHits, max: number, now: number): boolean {
    const oldestKept = hits.arrivals.length > max ? hits.arrivals[hits.arrivals.length - max - 1]! : undefined;
    hits.arrivals.push(now);
    while (hits.arrivals.length > max + 1) hits.arrivals.shift();
    // max + 1 earlier arrivals kept and the oldest of them still in the window: more than max.
    return oldestKept !== undefined && now - oldestKept < this.rules.burstWindowMs;
  }

  private crawlerVerdict(hits: ClientHits, now: number): RateVerdict {
    if (hits.crawlerAdmittedAt !== undefined && now - hits.crawlerAdmittedAt < this.rules.crawlerIntervalMs) return 'crawler-recent';
    if (this.anyCrawlerAdmittedAt !== undefined && now - this.anyCrawlerAdmittedAt < this.rules.anyCrawlerIntervalMs)
      return 'crawlers-busy';
    return 'admit';
  }
}

/** The budget every request has: its client's own hit stack, allowing `burstMax` (LC-3). */
export function ownBudget(client: string, rules: RateRules): Budget[] {
  return [{ key: client, max: rules.burstMax, refusal: 'rate' }];
}

function newClientHits(): ClientHits {
  return { arrivals: [], crawlerAdmittedAt: undefined };
}
