import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamSearches, type UpstreamSearchLimits } from '../../../src/server/proxy/upstream-searches.ts';
import type { FullHashMatch } from '../../../src/lists/threat-details.ts';
import { hashStringOfHex } from '../../../src/url/hash.ts';
import type { Requester } from '../../../src/server/guard/requester.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const ALICE: Requester = { id: 'address:192.0.2.1', keyed: false };
const BOB: Requester = { id: 'address:192.0.2.2', keyed: false };
const PARTNER: Requester = { id: 'key:partner', keyed: true };

/** A full hash under a prefix, in hex. */
const hashUnder = (prefix: number) => `${prefix.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`;

/** An upstream client that lists every prefix ≥ 1000 as malware, caches what the test says, and records requests. */
function fakeClient(cached: ReadonlySet<number> = new Set()) {
  const requests: number[][] = [];
  let failure: Error | undefined;
  let held: Promise<void> = Promise.resolve();
  let release = () => {};
  return {
    requests,
    failWith: (error: Error) => (failure = error),
    /** Answers wait until release() is called. */
    hold: () => (held = new Promise((resolve) => (release = resolve))),
    release: () => release(),
    cachedSearch: (prefixes: readonly number[]) => ({
      fullHashes: prefixes.filter((p) => cached.has(p) && p >= 1000).map((p) => match(p)),
      remaining: prefixes.filter((p) => !cached.has(p)),
      cacheDurationMs: 60_000,
    }),
    searchPrefixes: async (prefixes: readonly number[]) => {
      requests.push([...prefixes]);
      await held;
      if (failure !== undefined) throw failure;
      return { fullHashes: prefixes.filter((p) => p >= 1000).map((p) => match(p)), cacheDurationMs: 300_000 };
    },
  };
}

/** The full hash under a prefix as the upstream answers it: a byte string. */
function match(prefix: number): FullHashMatch {
  return { fullHash: hashStringOfHex(hashUnder(prefix)), details: [{ threatType: 'MALWARE', attributes: [] }] };
}

function setUp(limits: Partial<UpstreamSearchLimits> = {}, cached?: ReadonlySet<number>) {
  const clock = new FakeClock();
  const client = fakeClient(cached);
  const searches = new UpstreamSearches(client, { burst: 2, requestsPerMinute: 6, maxWaitMs: 3000, ...limits }, clock);
  return { clock, client, searches };
}

/** Settles a promise into what it gave, or the error's Retry-After, without letting it reject unhandled. */
function outcome<T>(promise: Promise<T>): Promise<{ value?: T; error?: WireError }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => {
      assert.ok(error instanceof WireError, String(error));
      return { error };
    },
  );
}

describe('UpstreamSearches', () => {
  it('asks identical prefixes once and sends the prefixes of concurrent searches in one request', async () => {
    const { clock, client, searches } = setUp();
    const a = searches.search([1000, 7], ALICE);
    const b = searches.search([1000, 8], BOB);
    await clock.advanceAsync(50);
    const [answerA, answerB] = await Promise.all([a, b]);
    assert.deepEqual(
      client.requests.map((request) => request.toSorted((x, y) => x - y)),
      [[7, 8, 1000]],
    );
    assert.equal(answerA.fullHashes.length, 1);
    assert.equal(Buffer.from(answerA.fullHashes[0]!.fullHash, 'latin1').toString('hex'), hashUnder(1000), 'byte strings inside the server');
    assert.equal(answerB.fullHashes.length, 1);
    assert.equal(answerA.cacheDurationMs, 300_000);
  });

  it('spends a token per call of an upstream that takes one prefix per call (Web Risk), however many a search asks', async () => {
    const clock = new FakeClock();
    const client = { ...fakeClient(), prefixesPerRequest: 1 };
    // A token a second, two at once.
    const searches = new UpstreamSearches(client, { burst: 2, requestsPerMinute: 60, maxWaitMs: 3000 }, clock);
    const search = outcome(searches.search([1000, 7, 8], ALICE));
    await clock.advanceAsync(50);
    assert.deepEqual(client.requests, [[1000], [7]], 'the bucket of 2 pays for two calls');
    await clock.advanceAsync(1000);
    assert.deepEqual(client.requests, [[1000], [7], [8]], 'the third waits for the next token');
    assert.equal((await search).value?.fullHashes.length, 1);
  });

  it("holds a search of a client's own size no longer than maxWaitMs, even where each prefix is a call of its own (Web Risk)", async () => {
    const clock = new FakeClock();
    const client = { ...fakeClient(), prefixesPerRequest: 1 };
    // One token every 2 s, two at once: six prefixes need 4 s of refill beyond the burst.
    const searches = new UpstreamSearches(client, { burst: 2, requestsPerMinute: 30, maxWaitMs: 3000 }, clock);
    let settled = false;
    const search = outcome(searches.search([1000, 1001, 1002, 1003, 1004, 1005], ALICE)).finally(() => (settled = true));
    // maxWaitMs for its turn, and once more for the rest of a search part of which went up: 6 s.
    await clock.advanceAsync(6100);
    assert.equal(settled, true, 'answered within twice maxWaitMs, not after the whole refill besides (10 s)');
    assert.equal((await search).error?.status, 'UNAVAILABLE', 'the sixth prefix had no token yet');
  });

  it('answers 503 when its budget cannot decide (a budget that rejects), and stays usable', async () => {
    const clock = new FakeClock();
    const client = fakeClient();
    let broken = true;
    const budget = {
      takeToken: async () => {
        if (broken) throw new Error('the budget store is gone');
        return 0;
      },
      spendShare: async () => 0,
    };
    const searches = new UpstreamSearches(client, {}, clock, budget);
    const failed = outcome(searches.search([1000], ALICE));
    await clock.advanceAsync(50);
    assert.equal((await failed).error?.status, 'UNAVAILABLE');
    assert.deepEqual(client.requests, []);
    broken = false;
    const next = outcome(searches.search([1000], ALICE));
    await clock.advanceAsync(50);
    assert.equal((await next).value?.fullHashes.length, 1);
  });

  it('takes the time a search waited already (for another instance) off its wait for a turn', async () => {
    // A bucket of 1, refilled every 10 s; a search waits at most 3 s in all.
    const { clock, client, searches } = setUp({ burst: 1 });
    const first = outcome(searches.search([2000], ALICE));
    await clock.advanceAsync(50);
    const late = outcome(searches.search([2001], BOB, 2500));
    await clock.advanceAsync(600);
    assert.equal((await late).error?.status, 'UNAVAILABLE', 'given up after the 500 ms left of its wait');
    assert.ok((await first).value !== undefined);
    assert.deepEqual(client.requests, [[2000]]);
    await clock.advanceAsync(10_000);
    const waitedLong = outcome(searches.search([2002], BOB, 60_000));
    await clock.advanceAsync(50);
    assert.ok((await waitedLong).value !== undefined, 'a search that waited its all still goes when its turn is now');
    assert.deepEqual(client.requests, [[2000], [2002]]);
  });

  it('joins a search to a request already in flight instead of asking again', async () => {
    const { clock, client, searches } = setUp();
    void client.hold();
    const first = searches.search([1000], ALICE);
    await clock.advanceAsync(50);
    assert.equal(client.requests.length, 1, 'asked, not yet answered');
    const second = searches.search([1000], BOB);
    await clock.advanceAsync(50);
    client.release();
    assert.equal((await first).fullHashes.length, 1);
    assert.equal((await second).fullHashes.length, 1);
    assert.equal(client.requests.length, 1);
  });

  it('answers from the client cache without counting or asking', async () => {
    const { clock, client, searches } = setUp({ anonymousPrefixesPerMinute: 1 }, new Set([1000, 1001, 1002]));
    for (let i = 0; i < 5; i++) assert.equal((await searches.search([1000, 1001, 1002], ALICE)).fullHashes.length, 3);
    await clock.advanceAsync(50);
    assert.deepEqual(client.requests, []);
  });

  it('never spends more requests than the bucket holds; a search that cannot wait its turn gets 503 with Retry-After', async () => {
    // A bucket of 2, refilled by one request every 10 s; a search waits at most 3 s.
    const { clock, client, searches } = setUp();
    const results: Promise<{ value?: unknown; error?: WireError }>[] = [];
    for (let i = 0; i < 10; i++) {
      results.push(outcome(searches.search([2000 + i], { id: `address:198.51.100.${i}`, keyed: false })));
      await clock.advanceAsync(1000);
    }
    await clock.advanceAsync(60_000);
    const settled = await Promise.all(results);
    // Two at once from the bucket; the next token comes 10 s after the start and takes the two then waiting.
    assert.deepEqual(client.requests, [[2000], [2001], [2008, 2009]]);
    assert.deepEqual(
      settled.map((r) => (r.value === undefined ? 503 : 200)),
      [200, 200, 503, 503, 503, 503, 503, 503, 200, 200],
    );
    for (const { error } of settled.slice(2, 8)) {
      assert.equal(error?.status, 'UNAVAILABLE');
      assert.ok(error.retryAfterSeconds! >= 1 && error.retryAfterSeconds! <= 10, String(error.retryAfterSeconds));
    }
  });

  it('refuses a requester over its share of prefixes at once, without asking the upstream, and lets others through', async () => {
    const { clock, client, searches } = setUp({ anonymousPrefixesPerMinute: 10, keyedPrefixesPerMinute: 1000, maxWaitMs: 20_000 });
    const many = Array.from({ length: 10 }, (_, i) => 5000 + i);
    const spent = searches.search([4999], ALICE);
    await clock.advanceAsync(50);
    await spent;
    const refused = await outcome(searches.search(many, ALICE));
    assert.match(refused.error!.message, /would send 11 prefixes .* which accepts 10 of one client/);
    assert.ok(refused.error!.retryAfterSeconds! >= 1 && refused.error!.retryAfterSeconds! <= 60);
    assert.deepEqual(client.requests, [[4999]], 'nothing of the refused search went up');
    const partner = searches.search(many, PARTNER);
    await clock.advanceAsync(50);
    assert.equal((await partner).fullHashes.length, 10, 'a keyed requester has a larger share');
    const within = searches.search([6000], BOB);
    await clock.advanceAsync(10_000);
    assert.equal((await within).fullHashes.length, 1);
  });

  it('sends keyed requesters first when requests are scarce', async () => {
    const { clock, client, searches } = setUp({ burst: 1, requestsPerMinute: 1, maxWaitMs: 120_000, anonymousPrefixesPerMinute: 1000 });
    const anonymous = Array.from({ length: 250 }, (_, i) => 10_000 + i);
    const a = outcome(searches.search(anonymous.slice(0, 120), ALICE));
    const b = outcome(searches.search(anonymous.slice(120), BOB));
    const keyed = outcome(searches.search([20_000], PARTNER));
    await clock.advanceAsync(20);
    assert.equal(client.requests.length, 1);
    assert.equal(client.requests[0]![0], 20_000, 'the keyed prefix leads the first request');
    assert.equal(client.requests[0]!.length, 250, 'filled up with anonymous prefixes');
    await clock.advanceAsync(60_000);
    assert.equal(client.requests.length, 2, 'the last anonymous prefix goes with the next token');
    assert.ok((await keyed).value !== undefined && (await a).value !== undefined && (await b).value !== undefined);
  });

  it('sends a small search before full batches that were queued first: who was served least goes first', async () => {
    const { clock, client, searches } = setUp({ burst: 1, requestsPerMinute: 30, maxWaitMs: 3000 });
    const full = (n: number) => Array.from({ length: 250 }, (_, i) => 100_000 * (n + 1) + i);
    const batches = [1, 2, 3].map((n) => outcome(searches.search(full(n), { id: `address:198.51.100.${n}`, keyed: false })));
    await clock.advanceAsync(20);
    assert.equal(client.requests.length, 1, 'the one token went to the first batch');
    const small = outcome(searches.search([5000, 5001, 5002, 5003], BOB));
    await clock.advanceAsync(2000);
    assert.equal(client.requests.length, 2);
    assert.deepEqual(
      client.requests[1]!.slice(0, 4),
      [5000, 5001, 5002, 5003],
      "the small search leads the next request, ahead of the batches' prefixes",
    );
    assert.equal((await small).value?.fullHashes.length, 4);
    await clock.advanceAsync(5000);
    assert.ok((await batches[0]!).value !== undefined);
  });

  it('lets a search part of which went up wait for the rest, which goes first in the next request', async () => {
    // One token every 2 s; a search waits 3 s for its turn.
    const { clock, client, searches } = setUp({ burst: 1, requestsPerMinute: 30, maxWaitMs: 3000 });
    const full = (n: number) => Array.from({ length: 250 }, (_, i) => 100_000 * n + i);
    const first = outcome(searches.search(full(1), ALICE));
    await clock.advanceAsync(500);
    const split = outcome(searches.search(full(2), { id: 'address:198.51.100.2', keyed: false }));
    await clock.advanceAsync(500);
    const small = outcome(searches.search([5000, 5001, 5002, 5003], BOB));
    await clock.advanceAsync(1500);
    assert.equal(client.requests.length, 2, 'at 2 s: the small search and 246 of the second');
    assert.deepEqual(client.requests[1]!.slice(0, 4), [5000, 5001, 5002, 5003]);
    await clock.advanceAsync(2000);
    assert.equal(client.requests.length, 3);
    assert.deepEqual(client.requests[2], full(2).slice(246), 'at 4 s, after its wait ran out at 3.5 s: the rest of it');
    await clock.advanceAsync(50);
    assert.equal((await split).value?.fullHashes.length, 250, 'served whole');
    assert.ok((await first).value !== undefined && (await small).value !== undefined);
  });

  it("answers 503 with the upstream client's own Retry-After when it cannot ask", async () => {
    const { clock, client, searches } = setUp();
    const deferred = Object.assign(new Error('the server may not be asked again before …'), { notBefore: clock.now() + 90_000 });
    client.failWith(deferred);
    const result = outcome(searches.search([1000], ALICE));
    await clock.advanceAsync(50);
    const { error } = await result;
    assert.equal(error?.status, 'UNAVAILABLE');
    assert.ok(error.retryAfterSeconds! >= 89 && error.retryAfterSeconds! <= 90, String(error.retryAfterSeconds));
  });

  it("withdraws only the prefixes a search queued itself when it gives up, never another search's", async () => {
    // One token every 10 s; a search waits 3 s at most.
    const { clock, client, searches } = setUp({ burst: 1, requestsPerMinute: 6, maxWaitMs: 3000 });
    void client.hold();
    const a = outcome(searches.search([10], ALICE));
    await clock.advanceAsync(7000);
    // 10 is in flight: A's second search joins it and queues 11, which waits for the token at 10 s.
    const a2 = outcome(searches.search([10, 11], ALICE));
    client.release();
    await clock.advanceAsync(1000);
    // 10 was answered; B queues 10 afresh, at 8 s.
    const b = outcome(searches.search([10], BOB));
    await clock.advanceAsync(2005);
    assert.ok((await a2).error !== undefined, "A's search of 11 could not wait its turn");
    await clock.advanceAsync(100);
    assert.ok((await b).value !== undefined, "B's 10 went up with the token at 10 s: A did not withdraw it");
    assert.deepEqual(client.requests, [[10], [10]]);
    assert.ok((await a).value !== undefined);
  });

  it('lets a search whose prefixes went up wait for the answer past maxWaitMs', async () => {
    const { clock, client, searches } = setUp({ maxWaitMs: 500 });
    void client.hold();
    const slow = outcome(searches.search([1000], ALICE));
    await clock.advanceAsync(2000);
    client.release();
    await clock.advanceAsync(10);
    assert.equal((await slow).value?.fullHashes.length, 1);
  });

  it("waits as long as the bucket takes to send a key's whole share, and lets other keys' small searches go first meanwhile", async () => {
    // The default bucket (5 at once, 30 a minute, a wait of 3 s): a v4 Lookup API request of 500 page
    // URLs that no cache answers is 3000 prefixes, 12 requests, the last of them 14 s after the first.
    const clock = new FakeClock();
    const client = fakeClient();
    const searches = new UpstreamSearches(client, { keyedPrefixesPerMinute: 3000 }, clock);
    const lookup = Array.from({ length: 3000 }, (_, i) => 10_000 + i);
    const whole = outcome(searches.search(lookup, PARTNER));
    await clock.advanceAsync(1000);
    const other = outcome(searches.search([500, 501], { id: 'key:other', keyed: true }));
    await clock.advanceAsync(1100);
    assert.deepEqual(client.requests[5]!.slice(0, 2), [500, 501], "the other key's 2 prefixes lead the next request");
    await clock.advanceAsync(15_000);
    assert.equal((await whole).value?.fullHashes.length, 3000, 'answered whole, in one go');
    assert.ok((await other).value !== undefined);
    assert.equal(client.requests.length, 13);
  });

  it('lets a search larger than a whole share go when the requester spent nothing in the last minute', async () => {
    const { clock, client, searches } = setUp({ anonymousPrefixesPerMinute: 10 });
    const big = Array.from({ length: 30 }, (_, i) => 7000 + i);
    const first = outcome(searches.search(big, ALICE));
    await clock.advanceAsync(50);
    assert.ok((await first).value !== undefined);
    assert.ok((await outcome(searches.search([8000], ALICE))).error !== undefined, 'and then the share is spent');
    await clock.advanceAsync(60_000);
    const later = outcome(searches.search([8001], ALICE));
    await clock.advanceAsync(50);
    assert.ok((await later).value !== undefined);
    assert.equal(client.requests.length, 2);
  });
});
