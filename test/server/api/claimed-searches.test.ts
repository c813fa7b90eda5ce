import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answersOfClaimants, CLAIM_MS } from '../../../src/server/api/claimed-searches.ts';
import { FakeClock } from '../../support/fake-clock.ts';

/** A shared cache of string answers whose claims the test sets: `others` are claimed by another instance. */
function sharedCache(others: readonly number[]) {
  const answers = new Map<number, string>();
  const claims: number[][] = [];
  return {
    answers,
    claims,
    lookups: 0,
    async lookup(prefixes: readonly number[]) {
      this.lookups++;
      return new Map(prefixes.filter((p) => answers.has(p)).map((p) => [p, answers.get(p)!]));
    },
    async claim(prefixes: readonly number[]) {
      claims.push([...prefixes]);
      return new Set(prefixes.filter((p) => others.includes(p)));
    },
  };
}

describe('answersOfClaimants', () => {
  it('waits for the answer of the instance that claimed a prefix, and claims the rest for this one', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([7]);
    const answers = answersOfClaimants(cache, [7, 8], clock);
    await clock.advanceAsync(100);
    cache.answers.set(7, 'from the claimant');
    await clock.advanceAsync(100);
    assert.deepEqual([...(await answers)], [[7, 'from the claimant']]);
    assert.deepEqual(cache.claims, [[7, 8]]);
  });

  it('gives up on an answer that does not come within CLAIM_MS: the prefix is this instance to ask', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([7]);
    let done = false;
    const answers = answersOfClaimants(cache, [7], clock).finally(() => (done = true));
    await clock.advanceAsync(CLAIM_MS - 50);
    assert.equal(done, false, 'still waiting within the bound');
    await clock.advanceAsync(100);
    assert.equal(done, true);
    assert.equal((await answers).size, 0);
  });

  it('does not wait, or look, when no other instance claimed anything', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([]);
    assert.equal((await answersOfClaimants(cache, [1, 2], clock)).size, 0);
    assert.equal(cache.lookups, 0);
    assert.equal(clock.pending, 0);
  });
});
