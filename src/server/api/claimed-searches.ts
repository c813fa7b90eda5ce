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
 * Claims `prefixes` for this instance and, for those another instance claimed first, the answers it
 * stored in the shared cache within CLAIM_MS. The prefixes not in the result are this instance's to ask.
 */
export async function answersOfClaimants<Answer>(
  shared: ClaimingCache<Answer>,
  prefixes: readonly number[],
  clock: MonotonicClock,
): Promise<Map<number, Answer>> {
  const found = new Map<number, Answer>();
  if (shared.claim === undefined || prefixes.length === 0) return found;
  let waiting = [...(await shared.claim(prefixes, CLAIM_MS))];
  const giveUpAt = clock.monotonic() + CLAIM_MS;
  while (waiting.length > 0 && clock.monotonic() < giveUpAt) {
    await sleep(clock, POLL_MS);
    const answers = await shared.lookup(waiting, clock.now());
    for (const [prefix, answer] of answers) found.set(prefix, answer);
    waiting = waiting.filter((prefix) => !answers.has(prefix));
  }
  return found;
}
