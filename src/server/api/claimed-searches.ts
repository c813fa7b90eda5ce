// SB-11 across proxy instances: a prefix one instance is asking its upstream for is not asked again by
// another meanwhile. Before a prefix goes up, the instance claims it in the cache the instances share;
// one that finds another's claim waits, briefly, for that instance's answer in the shared cache, and
// asks the upstream itself only if it does not come in time. A missing answer means ask, never an
// empty answer.

import { type MonotonicClock, sleep } from '../../time/clock.ts';

/** What of the shared cache (full-hash-source.ts SharedSearchCache) claims take. */
interface ClaimingCache<Answer> {
  lookup(prefixes: readonly number[], now: number): Promise<Map<number, Answer>>;
  claim?(prefixes: readonly number[], ttlMs: number): Promise<Set<number>>;
}

/**
 * How long a claim holds, and so the longest another instance waits for the claimant's answer: the
 * claimant's own request goes within GATHER_MS unless the upstream budget is spent, and an upstream
 * answers within a second or so; past that, asking again costs less than waiting on.
 */
export const CLAIM_MS = 1500;
/** How often a waiting instance looks for the claimant's answer. */
const POLL_MS = 25;

/**
 * The claims of one instance. Requests of this instance that want the same prefix at once share one
 * claim and, when another instance holds it, one look-out for its answer: a hot prefix wanted by N
 * requests is claimed once and looked up in the shared cache once every POLL_MS, not N times.
 */
export class ClaimedSearches<Answer> {
  /**
   * Each prefix being claimed or waited for: the claimant's answer, or undefined when this instance is
   * to ask (its own claim, or an answer that did not come in time).
   */
  private readonly waits = new Map<number, Promise<Answer | undefined>>();

  constructor(
    private readonly shared: ClaimingCache<Answer>,
    private readonly clock: MonotonicClock,
  ) {}

  /**
   * Claims `prefixes` for this instance and, for those another instance claimed first, the answers it
   * stored in the shared cache within CLAIM_MS. The prefixes not in the result are this instance's to ask.
   */
  async answersOf(prefixes: readonly number[]): Promise<Map<number, Answer>> {
    const found = new Map<number, Answer>();
    const claim = this.shared.claim?.bind(this.shared);
    if (claim === undefined || prefixes.length === 0) return found;
    const unclaimed = prefixes.filter((prefix) => !this.waits.has(prefix));
    if (unclaimed.length > 0) {
      // A claim that fails claims nothing for another instance: this one asks.
      const othersFirst = claim(unclaimed, CLAIM_MS).catch(() => new Set<number>());
      for (const prefix of unclaimed) {
        const wait = othersFirst
          .then((others) => (others.has(prefix) ? this.poll(prefix) : undefined))
          .finally(() => this.waits.delete(prefix));
        this.waits.set(prefix, wait);
      }
    }
    await Promise.all(
      prefixes.map(async (prefix) => {
        const answer = await this.waits.get(prefix);
        if (answer !== undefined) found.set(prefix, answer);
      }),
    );
    return found;
  }

  /** Looks for the claimant's answer to `prefix` every POLL_MS, for up to CLAIM_MS. */
  private async poll(prefix: number): Promise<Answer | undefined> {
    const giveUpAt = this.clock.monotonic() + CLAIM_MS;
    try {
      while (this.clock.monotonic() < giveUpAt) {
        await sleep(this.clock, POLL_MS);
        const answer = (await this.shared.lookup([prefix], this.clock.now())).get(prefix);
        if (answer !== undefined) return answer;
      }
    } catch {
      // A cache that cannot be read has no answer: the prefix is this instance's to ask.
    }
    return undefined;
  }
}
