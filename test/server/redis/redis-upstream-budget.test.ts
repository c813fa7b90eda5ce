import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { type FullHashSource, upstreamFullHashes } from '../../../src/server/api/full-hash-source.ts';
import { loggerOf } from '../../../src/server/logger.ts';
import type { Requester } from '../../../src/server/guard/requester.ts';
import { MemoryUpstreamBudget, type UpstreamBudget } from '../../../src/server/proxy/upstream-budget.ts';
import { type UpstreamSearchLimits, upstreamSearchLimits } from '../../../src/server/proxy/upstream-searches.ts';
import { RedisMonitor } from '../../../src/server/redis/redis-monitor.ts';
import { RedisSearchCache } from '../../../src/server/redis/redis-search-cache.ts';
import { RedisUpstreamBudget } from '../../../src/server/redis/redis-upstream-budget.ts';
import type { FullHashMatch } from '../../../src/lists/threat-details.ts';
import { systemClock } from '../../../src/time/clock.ts';
import { hashStringOfHex } from '../../../src/url/hash.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { freePort } from '../../support/ports.ts';
import { deleteKeys, ensureRedis, REDIS_URL, ScriptedRedis, uniqueKeyPrefix } from '../redis-fixture.ts';

const TEST_TIMEOUT = { timeout: 20_000 };
const prefixes: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

before(ensureRedis);
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  for (const prefix of prefixes) await deleteKeys(prefix);
});

const hashUnder = (prefix: number) => `${prefix.toString(16).padStart(8, '0')}${'cd'.repeat(28)}`;
const match = (prefix: number): FullHashMatch => ({
  fullHash: hashStringOfHex(hashUnder(prefix)),
  details: [{ threatType: 'MALWARE', attributes: [] }],
});
const requester = (n: number): Requester => ({ id: `address:192.0.2.${n}`, keyed: false });

/** One upstream the instances share: lists every prefix ≥ 1000, answers after 100 ms, one prefix a call (each call a token), counts its calls. */
function countingUpstream() {
  const calls: number[][] = [];
  return {
    calls,
    prefixesPerRequest: 1,
    cachedSearch: (asked: readonly number[]) => ({ fullHashes: [], remaining: [...asked], cacheDurationMs: 0 }),
    searchPrefixes: async (asked: readonly number[]) => {
      calls.push([...asked]);
      await sleep(100);
      return { fullHashes: asked.filter((p) => p >= 1000).map(match), cacheDurationMs: 300_000 };
    },
  };
}

/** A proxy instance's searches, its budget and search cache on the Redis at `url` (started without it when it does not answer). */
async function instance(
  url: string,
  keyPrefix: string,
  upstream: ReturnType<typeof countingUpstream>,
  limits: Partial<UpstreamSearchLimits>,
) {
  const logs: string[] = [];
  const log = (message: string) => logs.push(message);
  const monitor = new RedisMonitor(
    loggerOf(() => {}),
    { firstMs: 60_000, maxMs: 60_000 },
  );
  const all = upstreamSearchLimits(limits);
  const budget = await RedisUpstreamBudget.connect({
    url,
    keyPrefix,
    log,
    watch: monitor.watch('upstream-budget'),
    limits: all,
    fallback: new MemoryUpstreamBudget(all, systemClock),
  });
  const cache = await RedisSearchCache.connect({ url, keyPrefix, log, watch: monitor.watch('search-cache') });
  cleanups.push(
    () => budget.close(),
    () => cache.close(),
  );
  const searches: FullHashSource = upstreamFullHashes(upstream, cache, all, systemClock, budget);
  return { searches, budget, logs };
}

/** Two instances on one namespace of the test's Redis, or on a closed port. */
async function pair(limits: Partial<UpstreamSearchLimits>, redis: 'up' | 'away' = 'up') {
  const keyPrefix = uniqueKeyPrefix();
  prefixes.push(keyPrefix);
  const url = redis === 'up' ? REDIS_URL : `redis://127.0.0.1:${await freePort()}`;
  const upstream = countingUpstream();
  return { upstream, a: await instance(url, keyPrefix, upstream, limits), b: await instance(url, keyPrefix, upstream, limits) };
}

/** 200 or 503 for each search, rejecting on anything but a WireError UNAVAILABLE. */
async function statuses(searches: Promise<unknown>[]): Promise<number[]> {
  return Promise.all(
    searches.map((search) =>
      search.then(
        () => 200,
        (error: unknown) => {
          assert.ok(error instanceof WireError && error.status === 'UNAVAILABLE', String(error));
          return 503;
        },
      ),
    ),
  );
}

/** Bucket of 3, one more a minute; a search waits at most 300 ms; shares out of the way. */
const TIGHT: Partial<UpstreamSearchLimits> = { burst: 3, requestsPerMinute: 1, maxWaitMs: 300 };

describe('RedisUpstreamBudget: one upstream budget for several proxy instances', () => {
  it('spends one bucket across two instances: the upstream sees the rate of one', TEST_TIMEOUT, async () => {
    const { upstream, a, b } = await pair(TIGHT);
    const searches = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).searches.find([2000 + i], requester(i)));
    const answered = await statuses(searches);
    assert.equal(upstream.calls.length, 3, `the bucket holds 3 for both instances: ${JSON.stringify(upstream.calls)}`);
    assert.equal(answered.filter((status) => status === 200).length, 3);
    assert.equal(answered.filter((status) => status === 503).length, 5);
    assert.ok(a.budget.shared && b.budget.shared);
  });

  it('counts a requester against one share wherever it searches', TEST_TIMEOUT, async () => {
    const { upstream, a, b } = await pair({ burst: 10, requestsPerMinute: 60, anonymousPrefixesPerMinute: 2 });
    const alice = requester(7);
    await a.searches.find([3001], alice);
    await b.searches.find([3002], alice);
    await assert.rejects(a.searches.find([3003], alice), (error: WireError) => {
      assert.equal(error.status, 'UNAVAILABLE');
      assert.match(error.message, /3 prefixes of this client .* accepts 2/);
      assert.ok(error.retryAfterSeconds! >= 1 && error.retryAfterSeconds! <= 60, String(error.retryAfterSeconds));
      return true;
    });
    // Another requester is not affected by Alice's share.
    await b.searches.find([3004], requester(8));
    assert.deepEqual(upstream.calls, [[3001], [3002], [3004]]);
  });

  it(
    "keeps a requester's record by the second: a hundred searches at once are one or two entries, every prefix counted",
    TEST_TIMEOUT,
    async () => {
      const { a } = await pair({ keyedPrefixesPerMinute: 2400 });
      const keyed: Requester = { id: 'key:busy', keyed: true };
      for (let i = 0; i < 100; i++) await a.budget.spendShare(keyed, 1);
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      try {
        const [key] = await client.keys(`${prefixes.at(-1)}upstream:{upstream}:share:key:busy`);
        const entries = await client.lRange(key!, 0, -1);
        assert.ok(entries.length <= 2, `${entries.length} entries: ${entries.slice(0, 3).join(', ')}…`);
        assert.equal(
          entries.reduce((sum, entry) => sum + Number(entry.split(':')[1]), 0),
          100,
        );
      } finally {
        await client.close();
      }
    },
  );

  it('asks a prefix once when two instances search it at once, and both answer it in full', TEST_TIMEOUT, async () => {
    const { upstream, a, b } = await pair({ burst: 10, requestsPerMinute: 60 });
    const [fromA, fromB] = await Promise.all([a.searches.find([4242], requester(1)), b.searches.find([4242], requester(2))]);
    assert.deepEqual(upstream.calls, [[4242]]);
    for (const answer of [fromA, fromB]) {
      assert.deepEqual(
        answer.fullHashes.map((m) => Buffer.from(m.fullHash, 'latin1').toString('hex')),
        [hashUnder(4242)],
      );
      assert.ok(answer.cacheDurationMs > 0);
    }
    // A negative answer is shared alike: one call, two empty answers that are answers.
    const [emptyA, emptyB] = await Promise.all([a.searches.find([42], requester(1)), b.searches.find([42], requester(2))]);
    assert.deepEqual(upstream.calls, [[4242], [42]]);
    assert.deepEqual([emptyA.fullHashes, emptyB.fullHashes], [[], []]);
  });

  it('falls back to a budget per instance while Redis does not answer, says so once and counts it', TEST_TIMEOUT, async () => {
    const { upstream, a, b } = await pair(TIGHT, 'away');
    const searches = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).searches.find([5000 + i], requester(i)));
    const answered = await statuses(searches);
    // Each instance spends its own bucket of 3; every prefix it did get an answer for is answered.
    assert.equal(upstream.calls.length, 6, JSON.stringify(upstream.calls));
    assert.equal(answered.filter((status) => status === 200).length, 6);
    for (const { budget, logs } of [a, b]) {
      assert.equal(budget.shared, false);
      assert.equal(logs.filter((line) => line.startsWith('upstream budget:')).length, 1, logs.join('\n'));
      const metrics = await budget.metrics.metrics();
      const fallbacks = Number(/^sbkit_upstream_budget_fallbacks_total (\d+)$/m.exec(metrics)?.[1]);
      assert.ok(fallbacks >= 4, metrics);
    }
  });
});

describe('RedisUpstreamBudget decides as the memory budget does on searches as large as a share, or larger', () => {
  const budgets: [string, () => Promise<UpstreamBudget>][] = [
    ['memory', async () => new MemoryUpstreamBudget(upstreamSearchLimits({}), new FakeClock())],
    ['Redis', async () => (await loneBudget(REDIS_URL)).budget],
  ];
  for (const [where, make] of budgets) {
    it(`lets a key's search of a v4 Lookup API request of 500 page URLs go at once (${where})`, TEST_TIMEOUT, async () => {
      const budget = await make();
      const key: Requester = { id: 'key:lookups', keyed: true };
      assert.equal(await budget.spendShare(key, 3000), 3000, "six expressions each, none cached: the key's default share");
      await assert.rejects(budget.spendShare(key, 1), (error: WireError) => {
        assert.equal(error.status, 'UNAVAILABLE', 'the next waits until the minute is over');
        assert.ok(error.retryAfterSeconds! >= 59 && error.retryAfterSeconds! <= 60, String(error.retryAfterSeconds));
        return true;
      });
    });

    it(`refuses a search no wait would let go with 400 naming the most, counting nothing (${where})`, TEST_TIMEOUT, async () => {
      const budget = await make();
      const tooLarge = (error: WireError, most: number) => {
        assert.equal(error.status, 'INVALID_ARGUMENT');
        assert.equal(error.retryAfterSeconds, undefined);
        assert.match(error.message, new RegExp(`may send at most ${most}, however long it waits`));
        return true;
      };
      await assert.rejects(budget.spendShare({ id: 'key:huge', keyed: true }, 3001), (error: WireError) => tooLarge(error, 3000));
      await assert.rejects(budget.spendShare(requester(11), 251), (error: WireError) => tooLarge(error, 250));
      await assert.rejects(budget.spendShare({ id: 'relay:192.0.2.60', keyed: false, relayed: true }, 251), (error: WireError) =>
        tooLarge(error, 250),
      );
      assert.equal(await budget.spendShare(requester(11), 250), 250, 'the refused search was not counted');
      assert.equal(await budget.spendShare({ id: 'key:huge', keyed: true }, 3000), 3000);
    });
  }
});

/** A lone budget on the Redis at `url`, under a key prefix of its own, with what it logs. */
async function loneBudget(url: string, limits: Partial<UpstreamSearchLimits> = {}) {
  const keyPrefix = uniqueKeyPrefix();
  prefixes.push(keyPrefix);
  const logs: string[] = [];
  const all = upstreamSearchLimits(limits);
  const budget = await RedisUpstreamBudget.connect({
    url,
    keyPrefix,
    log: (line) => logs.push(line),
    limits: all,
    fallback: new MemoryUpstreamBudget(all, systemClock),
  });
  cleanups.push(() => budget.close());
  return { budget, logs, limits: all, key: (name: string) => `${keyPrefix}upstream:{upstream}:${name}` };
}

/** Decisions the budget made in memory because Redis failed, from its metrics. */
async function fallbacks(budget: RedisUpstreamBudget): Promise<number> {
  return Number(/^sbkit_upstream_budget_fallbacks_total (\d+)$/m.exec(await budget.metrics.metrics())?.[1]);
}

/** Runs `work` with a client of the test's Redis. */
async function withRedis(work: (client: ReturnType<typeof createClient>) => Promise<void>): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.close();
  }
}

describe('RedisUpstreamBudget: what Redis holds and answers is not taken on trust', () => {
  it('reads a bucket no script wrote within its bounds: never a wait longer than one token’s', TEST_TIMEOUT, async () => {
    const { budget, limits, key } = await loneBudget(REDIS_URL);
    const oneToken = Math.ceil(60_000 / limits.requestsPerMinute);
    await withRedis(async (client) => {
      // Below 0, or no number at all: an empty bucket, or a full one.
      for (const [tokens, empty] of [
        ['-1000', true],
        ['-inf', true],
        ['nan', false],
        ['inf', false],
        ['many', false],
      ] as const) {
        await client.hSet(key('bucket'), 'tokens', tokens);
        const wait = await budget.takeToken();
        assert.ok(empty ? wait > 0 && wait <= oneToken : wait === 0, `tokens ${tokens}: a wait of ${wait} ms`);
      }
    });
    assert.equal(await fallbacks(budget), 0, 'every decision made in Redis');
  });

  it('takes a share’s entries that are dated ahead of Redis’s clock, or unreadable, for stale', TEST_TIMEOUT, async () => {
    const { budget, key } = await loneBudget(REDIS_URL, { anonymousPrefixesPerMinute: 2 });
    const alice = requester(9);
    const tomorrow = Math.floor((Date.now() + 86_400_000) / 1000) * 1000;
    await withRedis(async (client) => {
      await client.rPush(key(`share:${alice.id}`), [`${tomorrow}:100000`, 'not an entry']);
    });
    assert.equal(await budget.spendShare(alice, 1), 1);
    assert.equal(await budget.spendShare(alice, 1), 2);
    await assert.rejects(budget.spendShare(alice, 1), (error: WireError) => error.retryAfterSeconds! <= 60);
    assert.equal(await fallbacks(budget), 0, 'every decision made in Redis');
  });

  it('decides in memory on an answer no script gives, says so once and counts it', TEST_TIMEOUT, async () => {
    const shareAnswers = [
      '*2\r\n:1\r\n:999999\r\n', // a turn above every share
      '*4\r\n:0\r\n:1\r\n:0\r\n:1000\r\n', // the refusal of a search its share has room for
      '*4\r\n:0\r\n:1\r\n:500\r\n:86400000\r\n', // room again in a day
      '*4\r\n:0\r\n:2\r\n:500\r\n:1000\r\n', // a tier the search has not
    ];
    let shares = 0;
    // A wait of an hour, which a bucket of 30 a minute never makes, and a share's answers.
    const redis = await ScriptedRedis.start((script) => (script.includes('HMGET') ? ':3600000\r\n' : shareAnswers[shares++]!));
    cleanups.push(() => redis.close());
    const { budget, logs } = await loneBudget(redis.url);
    assert.equal(await budget.takeToken(), 0, 'the first of the memory’s bucket');
    for (let turn = 1; turn <= shareAnswers.length; turn++) assert.equal(await budget.spendShare(requester(3), 1), turn);
    assert.equal(await fallbacks(budget), 1 + shareAnswers.length);
    assert.equal(logs.filter((line) => line.startsWith('upstream budget:')).length, 1, logs.join('\n'));
    assert.match(logs[0]!, /the script answered 3600000/);
  });
});
