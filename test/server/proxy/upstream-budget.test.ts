import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Requester } from '../../../src/server/guard/requester.ts';
import { MemoryUpstreamBudget } from '../../../src/server/proxy/upstream-budget.ts';
import { UpstreamSearches } from '../../../src/server/proxy/upstream-searches.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const SHARES = {
  anonymousPrefixesPerMinute: 3,
  neighbourhoodPrefixesPerMinute: 100,
  keyedPrefixesPerMinute: 100,
  relayedPrefixesPerMinute: 100,
};
const ALICE: Requester = { id: 'address:192.0.2.1', keyed: false };

/** An upstream client that caches nothing and records each request. */
function recordingClient() {
  const requests: number[][] = [];
  return {
    requests,
    prefixesPerRequest: 1,
    cachedSearch: (prefixes: readonly number[]) => ({ fullHashes: [], remaining: [...prefixes], cacheDurationMs: 0 }),
    searchPrefixes: async (prefixes: readonly number[]) => {
      requests.push([...prefixes]);
      return { fullHashes: [], cacheDurationMs: 60_000 };
    },
  };
}

describe('MemoryUpstreamBudget', () => {
  it('gives the burst at once, then a token at the rate, saying how long until the next', async () => {
    const clock = new FakeClock();
    const budget = new MemoryUpstreamBudget({ requestsPerMinute: 6, burst: 2, ...SHARES }, clock);
    assert.deepEqual([await budget.takeToken(), await budget.takeToken()], [0, 0]);
    assert.equal(await budget.takeToken(), 10_000);
    clock.advance(4000);
    assert.equal(await budget.takeToken(), 6000, 'nothing taken by asking');
    clock.advance(6000);
    assert.equal(await budget.takeToken(), 0);
    clock.advance(60_000);
    assert.deepEqual(
      [await budget.takeToken(), await budget.takeToken(), await budget.takeToken()],
      [0, 0, 10_000],
      'never more than the burst',
    );
  });

  it("counts a requester's prefixes against its share and refuses past it, counting nothing then", async () => {
    const clock = new FakeClock();
    const budget = new MemoryUpstreamBudget({ requestsPerMinute: 6, burst: 2, ...SHARES }, clock);
    assert.equal(await budget.spendShare(ALICE, 2), 2);
    await assert.rejects(
      budget.spendShare(ALICE, 2),
      (error: WireError) => error.status === 'UNAVAILABLE' && error.retryAfterSeconds === 60,
    );
    assert.equal(await budget.spendShare(ALICE, 1), 3, 'the refused search counted nothing');
    clock.advance(60_000);
    assert.equal(await budget.spendShare(ALICE, 3), 3);
  });

  it('is one budget for every UpstreamSearches given it: two spend one bucket', async () => {
    const clock = new FakeClock();
    const budget = new MemoryUpstreamBudget({ requestsPerMinute: 6, burst: 2, ...SHARES, anonymousPrefixesPerMinute: 100 }, clock);
    const client = recordingClient();
    const limits = { requestsPerMinute: 6, burst: 2, maxWaitMs: 3000 };
    const one = new UpstreamSearches(client, limits, clock, budget);
    const other = new UpstreamSearches(client, limits, clock, budget);
    const searches = [1, 2, 3, 4].map((prefix) =>
      (prefix % 2 === 0 ? one : other).search([prefix], ALICE).then(
        () => 200,
        () => 503,
      ),
    );
    await clock.advanceAsync(5000);
    assert.deepEqual((await Promise.all(searches)).toSorted(), [200, 200, 503, 503]);
    assert.equal(client.requests.length, 2, 'a bucket of 2 for both, not 2 each');
  });
});
