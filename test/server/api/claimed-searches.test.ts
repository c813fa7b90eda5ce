import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLAIM_MS, ClaimedSearches } from '../../../src/server/api/claimed-searches.ts';
import { FakeClock } from '../../support/fake-clock.ts';

/** A shared cache of string answers whose claims the test sets: `others` are claimed by another instance. */
function sharedCache(others: readonly number[]) {
  const answers = new Map<number, string>();
  const claims: number[][] = [];
  return {
    answers,
    claims,
    lookups: 0,
    failing: false,
    async lookup(prefixes: readonly number[]) {
      this.lookups++;
      if (this.failing) throw new Error('the shared cache cannot be read');
      return new Map(prefixes.filter((p) => answers.has(p)).map((p) => [p, answers.get(p)!]));
    },
    async claim(prefixes: readonly number[]) {
      claims.push([...prefixes]);
      return new Set(prefixes.filter((p) => others.includes(p)));
    },
  };
}

describe('ClaimedSearches', () => {
  it('waits for the answer of the instance that claimed a prefix, and claims the rest for this one', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([7]);
    const answers = new ClaimedSearches(cache, clock).answersOf([7, 8]);
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
    const answers = new ClaimedSearches(cache, clock).answersOf([7]).finally(() => (done = true));
    await clock.advanceAsync(CLAIM_MS - 50);
    assert.equal(done, false, 'still waiting within the bound');
    await clock.advanceAsync(100);
    assert.equal(done, true);
    assert.equal((await answers).size, 0);
  });

  it('does not wait, or look, when no other instance claimed anything', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([]);
    assert.equal((await new ClaimedSearches(cache, clock).answersOf([1, 2])).size, 0);
    assert.equal(cache.lookups, 0);
    assert.equal(clock.pending, 0);
  });

  it('waits once for a prefix that many requests of this instance want at once: one look-up per poll, not one per request', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([7]);
    const claims = new ClaimedSearches(cache, clock);
    const alone = sharedCache([7]);
    const one = new ClaimedSearches(alone, clock).answersOf([7]);
    const many = Promise.all(Array.from({ length: 20 }, () => claims.answersOf([7])));
    await clock.advanceAsync(200);
    cache.answers.set(7, 'from the claimant');
    alone.answers.set(7, 'from the claimant');
    await clock.advanceAsync(100);
    for (const answers of await many) assert.deepEqual([...answers], [[7, 'from the claimant']]);
    assert.deepEqual([...(await one)], [[7, 'from the claimant']]);
    assert.ok(alone.lookups > 1, 'the lone request polled more than once');
    assert.equal(cache.lookups, alone.lookups, 'twenty requests looked up as often as one');
    assert.equal(cache.claims.length, 1, 'the requests that found the wait under way did not claim again');
  });

  it('starts a new wait once the last one has ended', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([7]);
    const claims = new ClaimedSearches(cache, clock);
    const first = claims.answersOf([7]);
    await clock.advanceAsync(CLAIM_MS + 50);
    assert.equal((await first).size, 0);
    cache.answers.set(7, 'later');
    const second = claims.answersOf([7]);
    await clock.advanceAsync(100);
    assert.deepEqual([...(await second)], [[7, 'later']]);
    assert.equal(cache.claims.length, 2);
  });

  it('has no answer, and does not throw, when the shared cache cannot be read: the prefix is this instance to ask', async () => {
    const clock = new FakeClock();
    const cache = sharedCache([7]);
    cache.failing = true;
    const answers = new ClaimedSearches(cache, clock).answersOf([7]);
    await clock.advanceAsync(100);
    assert.equal((await answers).size, 0);
    assert.equal(cache.lookups, 1, 'gave up at the first failed look-up instead of polling on');
  });
});
