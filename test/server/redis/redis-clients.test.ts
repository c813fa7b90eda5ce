// The parts of the service on Redis as it is run: one server that stops answering, a primary with a
// replica behind three Sentinels, and a Cluster of three primaries — real redis-server and
// redis-sentinel processes, started and ended here.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LC_RATE_RULES, MemoryHitStore } from '../../../src/server/guard/hit-store.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import { RedisHitStore } from '../../../src/server/redis/redis-hit-store.ts';
import { RedisSearchCache } from '../../../src/server/redis/redis-search-cache.ts';
import { RedisUpstreamBudget } from '../../../src/server/redis/redis-upstream-budget.ts';
import { MemoryUpstreamBudget } from '../../../src/server/proxy/upstream-budget.ts';
import { upstreamSearchLimits } from '../../../src/server/proxy/upstream-searches.ts';
import { RedisSnapshotStore } from '../../../src/server/redis/redis-snapshot-store.ts';
import { RedisEntryEdits } from '../../../src/server/redis/redis-entry-edits.ts';
import { RedisConnectionError } from '../../../src/server/redis/redis-connection.ts';
import { expressionHashString, prefix32 } from '../../../src/url/hash.ts';
import { systemClock } from '../../../src/time/clock.ts';
import { until, within } from '../../support/waiting.ts';
import { definition, poolHashes } from '../lists/fixtures.ts';
import { RedisClusterSet } from '../redis-cluster-fixture.ts';
import { deleteKeys, ensureRedis, PrivateRedis, RedisRelay, uniqueKeyPrefix } from '../redis-fixture.ts';
import { redisCli, SentinelSet } from '../redis-sentinel-fixture.ts';

const X = poolHashes([1, 2, 3, 4]);
const Y = poolHashes([2, 3, 4, 5, 6]);
const Z = poolHashes([6, 7]);
/** The bound on answering again after a failover. */
const FAILOVER_BOUND_MS = 10_000;
/** A request's bound on Redis while it has no primary, or does not answer: well under a client's 5 s timeout. */
const ANSWER_BOUND_MS = 1000;
/** Redis answers again: a Sentinel set finds its restarted primary, a client its server after a reconnection. */
const RECOVERY_BOUND_MS = 15_000;
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function history(name: string): ListHistory {
  return new ListHistory(definition(4, name), { keep: 3 });
}

/**
 * The Cluster test is about where keys land, not about time: its parts get a bound a loaded machine keeps
 * (their defaults, 250–500 ms, are for requests, and connecting to a Cluster learns every node's slots).
 */
const SLOW_MACHINE_MS = 2000;

/** `connect()`, tried again while Redis does not answer in time, for up to SLOW_MACHINE_MS. */
async function connectedAgain<T>(connect: () => Promise<T>): Promise<T> {
  let connected: T | undefined;
  await until(SLOW_MACHINE_MS, 'connecting through the Sentinels', async () => {
    try {
      connected = await connect();
      return true;
    } catch (error) {
      if (error instanceof RedisConnectionError && error.reason === 'unavailable') return false;
      throw error;
    }
  });
  return connected!;
}

/** A hit store on `url` deciding in its own memory while Redis fails, and how many decisions it made there. */
async function hitStore(url: string, keyPrefix?: string) {
  let fallbacks = 0;
  const store = await RedisHitStore.connect({
    url,
    keyPrefix,
    rules: LC_RATE_RULES,
    fallback: new MemoryHitStore(LC_RATE_RULES, 1000, () => performance.now()),
    onFallback: () => (fallbacks += 1),
  });
  cleanups.push(() => store.close());
  return { store, fallbacks: () => fallbacks };
}

describe('One Redis server that stops answering', () => {
  it(
    'decides load control in memory and misses the search cache within their bounds, and uses Redis again once it answers',
    { timeout: 30_000 },
    async () => {
      const redis = await PrivateRedis.start();
      cleanups.push(() => redis.stop());
      const hits = await hitStore(redis.url);
      const cache = await RedisSearchCache.connect({ url: redis.url });
      cleanups.push(() => cache.close());
      const prefix = prefix32(expressionHashString('cached.example/'));
      await cache.store([prefix], [], Date.now() + 60_000);
      assert.equal(await hits.store.hit('a', false), 'admit');

      // SIGSTOP: the connections stay open, and a command written to them is never answered.
      redis.freeze();
      // Closing a client waits for the answers it expects: a failed test must not hold it for ever.
      cleanups.push(async () => redis.thaw());
      for (let round = 0; round < 3; round++) {
        const [verdict, found] = await within(
          ANSWER_BOUND_MS,
          `round ${round}: load control and the search cache answering while Redis is frozen`,
          Promise.all([hits.store.hit('a', false), cache.lookup([prefix], Date.now())]),
        );
        assert.equal(verdict, 'admit');
        assert.equal(found.size, 0, 'a miss, so that the search goes upstream');
      }
      assert.equal(hits.fallbacks(), 3, 'each decision made in memory');

      redis.thaw();
      await until(RECOVERY_BOUND_MS, 'load control deciding in Redis again', () => hits.store.shared);
      assert.equal(await hits.store.hit('a', false), 'admit');
      assert.equal(hits.fallbacks(), 3, 'decided in Redis');
      await until(RECOVERY_BOUND_MS, 'the search cache finding the prefix in Redis again', async () =>
        (await cache.lookup([prefix], Date.now())).has(prefix),
      );
    },
  );

  it('closes a connection that went silent and makes another', { timeout: 30_000 }, async () => {
    await ensureRedis();
    const keyPrefix = uniqueKeyPrefix();
    cleanups.push(() => deleteKeys(keyPrefix));
    const relay = await RedisRelay.start();
    const hits = await hitStore(relay.url, keyPrefix);
    // Cut before the client closes, which waits for the answers it expects.
    cleanups.push(() => relay.cut());
    assert.equal(await hits.store.hit('a', false), 'admit');

    // The path to Redis goes silent without closing, as through a host gone without a word: TCP alone
    // would hold the connection for a quarter of an hour.
    relay.stall();
    assert.equal(await within(ANSWER_BOUND_MS, 'a decision while the connection is silent', hits.store.hit('a', false)), 'admit');
    assert.equal(hits.fallbacks(), 1);
    await until(RECOVERY_BOUND_MS, 'load control deciding in Redis over a new connection', () => hits.store.shared);
    assert.equal(await hits.store.hit('a', false), 'admit');
    assert.equal(hits.fallbacks(), 1, 'decided in Redis');
  });
});

describe('Redis behind Sentinel', () => {
  it('publishes through the primary, and again through the promoted replica within 10 s of a failover', { timeout: 30_000 }, async () => {
    const sentinels = await SentinelSet.start();
    cleanups.push(() => sentinels.stop());
    const log: string[] = [];
    const instance = async () => {
      const store = await RedisSnapshotStore.connect({ url: sentinels.url, refreshMs: 0, timeoutMs: 1000, log: (m) => log.push(m) });
      cleanups.push(() => store.close());
      return store;
    };
    const [a, b] = [await instance(), await instance()];
    const [ha, hb] = [history('sentinel-4b'), history('sentinel-4b')];
    await a.follow([ha]);
    await b.follow([hb]);
    const x = await a.publish(ha, X);
    await b.refresh();
    assert.equal(hb.current().id, x.id, 'the other instance serves what the first published');

    await sentinels.failover();
    const start = performance.now();
    let y: string | undefined;
    await until(
      FAILOVER_BOUND_MS,
      () => `a publication after the failover (log: ${log.join(' | ')})`,
      async () => {
        try {
          y = (await a.publish(ha, Y)).id;
          return true;
        } catch {
          return false;
        }
      },
    );
    // The other instance finds the new primary on its own: its reads fail, bounded, until it has.
    await until(
      FAILOVER_BOUND_MS - (performance.now() - start),
      () => `the other instance reading the publication after the failover (log: ${log.join(' | ')})`,
      async () => {
        try {
          await b.refresh();
          return hb.current().id === y;
        } catch {
          return false;
        }
      },
    );
    assert.deepEqual(hb.keptIds(), [x.id, y], 'the history came through the failover: clients at x still get a diff');
    assert.ok(performance.now() - start < FAILOVER_BOUND_MS);
  });
});

describe('Redis behind Sentinel: a publication a replica holds', () => {
  it(
    'is done only once a replica holds it, so that a failover right after cannot lose a version clients took',
    { timeout: 30_000 },
    async () => {
      const sentinels = await SentinelSet.start();
      cleanups.push(() => sentinels.stop());
      const store = await RedisSnapshotStore.connect({ url: sentinels.url, refreshMs: 0, timeoutMs: 5000 });
      cleanups.push(() => store.close());
      const list = history('replicated-4b');
      await store.follow([list]);
      await store.publish(list, X);
      // The replica stops reading from the primary for 300 ms: a write made meanwhile is on the primary alone.
      sentinels.pauseReplicas(true);
      let resumedAt = 0;
      const resume = new Promise<void>((resolve) =>
        setTimeout(() => {
          resumedAt = performance.now();
          sentinels.pauseReplicas(false);
          resolve();
        }, 300),
      );
      try {
        await store.publish(list, Y);
        const publishedAt = performance.now();
        await resume;
        assert.ok(publishedAt >= resumedAt && resumedAt > 0, 'the publication waited for the replica to hold it');
      } finally {
        await resume;
      }
    },
  );
});

describe('Redis behind Sentinel without a primary', () => {
  it(
    'decides load control in memory and misses the search cache within 1 s, instead of waiting for a primary',
    { timeout: 30_000 },
    async () => {
      const sentinels = await SentinelSet.start(0);
      cleanups.push(() => sentinels.stop());
      // Connecting is not what this test bounds: at their request-sized defaults (250–500 ms) an attempt
      // through the Sentinels can fail on a loaded machine, so each part tries again while the set is whole.
      const hits = await connectedAgain(() => hitStore(sentinels.url));
      const cache = await connectedAgain(() => RedisSearchCache.connect({ url: sentinels.url }));
      cleanups.push(() => cache.close());
      const prefix = prefix32(expressionHashString('cached.example/'));
      await cache.store([prefix], [], Date.now() + 60_000);
      assert.equal(await hits.store.hit('a', false), 'admit');
      assert.equal(hits.fallbacks(), 0, 'decided in Redis while the primary answers');

      await sentinels.crashPrimary();
      // Several rounds: node-redis looks for a primary again and again, and a request must never wait for it.
      for (let round = 0; round < 3; round++) {
        const start = performance.now();
        const [verdict, found] = await Promise.all([hits.store.hit('a', false), cache.lookup([prefix], Date.now())]);
        const took = performance.now() - start;
        assert.equal(verdict, 'admit');
        assert.equal(found.size, 0, 'a miss, so that the search goes upstream');
        assert.ok(took < ANSWER_BOUND_MS, `round ${round}: answered in ${Math.round(took)} ms`);
      }
      assert.equal(hits.fallbacks(), 3, 'each decision made in memory');
    },
  );

  it(
    'never runs a command it answered as failed: once the restarted primary is found, no hit of the outage is counted, no edit made',
    { timeout: 60_000 },
    async () => {
      const sentinels = await SentinelSet.start(0);
      cleanups.push(() => sentinels.stop());
      const hits = await connectedAgain(() => hitStore(sentinels.url));
      const edits = await connectedAgain(() => RedisEntryEdits.connect({ url: sentinels.url, timeoutMs: ANSWER_BOUND_MS }));
      cleanups.push(() => edits.close());
      const budget = (client: string) => [{ key: `client:${client}`, max: 10, refusal: 'rate' as const }];
      assert.equal(await hits.store.hit('a', false, budget('a')), 'admit');

      const port = await sentinels.crashPrimary();
      for (let i = 0; i < 5; i++) {
        const verdict = await within(ANSWER_BOUND_MS, `hit ${i} without a primary`, hits.store.hit('a', false, budget('a')));
        assert.equal(verdict, 'admit');
        await assert.rejects(
          within(2 * ANSWER_BOUND_MS, `edit ${i} without a primary`, edits.update('outage-list', [`edit-${i}.example/`], [])),
          (error: Error) => !/not within/.test(error.message),
        );
      }
      assert.equal(hits.fallbacks(), 5);

      // Back empty (no persistence): whatever Redis holds afterwards was written after the restart.
      await sentinels.restart(port);
      // A command sent once a primary is found goes after every command node-redis held meanwhile.
      await until(RECOVERY_BOUND_MS, 'a hit decided in Redis again', async () => {
        const before = hits.fallbacks();
        await hits.store.hit('b', false, budget('b'));
        return hits.fallbacks() === before;
      });
      await until(RECOVERY_BOUND_MS, 'an edit made in Redis again', async () => {
        try {
          await edits.update('other-list', ['other.example/'], []);
          return true;
        } catch {
          return false;
        }
      });
      assert.equal(await redisCli(port, 'LLEN', 'sbkit:guard:{guard}:hits:client:a'), '0', 'no hit of the outage counted late');
      assert.deepEqual(await edits.read('outage-list'), { added: [], removed: [] }, 'no edit answered as failed made late');
      assert.equal(await hits.store.hit('a', false, budget('a')), 'admit');
      assert.equal(await redisCli(port, 'LLEN', 'sbkit:guard:{guard}:hits:client:a'), '1');
    },
  );
});

describe('Redis Cluster', () => {
  it(
    'keeps each list, the edits and load control in one slot each, and the search cache spread over the nodes',
    { timeout: 30_000 },
    async () => {
      const cluster = await RedisClusterSet.start();
      cleanups.push(() => cluster.stop());
      const keyPrefix = 'sbkit:';

      const store = await RedisSnapshotStore.connect({ url: cluster.url, keyPrefix, refreshMs: 0, timeoutMs: SLOW_MACHINE_MS });
      cleanups.push(() => store.close());
      const [h, other] = [history('cluster-4b'), history('cluster-4b')];
      await store.follow([h]);
      await store.publish(h, X);
      await store.publish(h, Y);
      const z = await store.publish(h, Z);
      const reader = await RedisSnapshotStore.connect({ url: cluster.url, keyPrefix, refreshMs: 0, timeoutMs: SLOW_MACHINE_MS });
      cleanups.push(() => reader.close());
      await reader.follow([other]);
      assert.equal(other.current().id, z.id, 'a second instance reads the list from the cluster');
      assert.deepEqual(other.keptIds(), h.keptIds());

      const edits = await RedisEntryEdits.connect({ url: cluster.url, keyPrefix, timeoutMs: SLOW_MACHINE_MS });
      cleanups.push(() => edits.close());
      assert.deepEqual(await edits.update('cluster-4b', ['added.example/'], ['gone.example/']), {
        added: ['added.example/'],
        removed: ['gone.example/'],
      });
      assert.deepEqual(await edits.read('cluster-4b'), { added: ['added.example/'], removed: ['gone.example/'] });

      const hits = await RedisHitStore.connect({
        url: cluster.url,
        keyPrefix,
        timeoutMs: SLOW_MACHINE_MS,
        rules: LC_RATE_RULES,
        fallback: new MemoryHitStore(LC_RATE_RULES, 1000, () => performance.now()),
        onFallback: () => assert.fail('a decision fell back to memory'),
      });
      cleanups.push(() => hits.close());
      const budget = [{ key: 'client:a', max: 2, refusal: 'rate' as const }];
      const verdicts = [];
      for (let i = 0; i < 4; i++) verdicts.push(await hits.hit('a', true, budget));
      assert.deepEqual(verdicts.slice(0, 2), ['admit', 'crawler-recent'], 'the crawler rules, on the cluster');

      const cache = await RedisSearchCache.connect({ url: cluster.url, keyPrefix, timeoutMs: SLOW_MACHINE_MS });
      cleanups.push(() => cache.close());
      const hash = expressionHashString('cached.example/');
      const match = { fullHash: hash, details: [{ threatType: 'MALWARE' as const, attributes: [] }] };
      const prefixes = [prefix32(hash), ...Array.from({ length: 30 }, (_, i) => 0x01000000 * (i + 1))];
      const now = Date.now();
      await cache.store(prefixes, [match], now + 60_000);
      const found = await cache.lookup(prefixes, now);
      assert.equal(found.size, prefixes.length, 'every prefix found, over every node');
      assert.deepEqual(found.get(prefix32(hash))?.fullHashes, [match]);
      const otherCache = await RedisSearchCache.connect({ url: cluster.url, keyPrefix, timeoutMs: SLOW_MACHINE_MS });
      cleanups.push(() => otherCache.close());
      assert.equal((await cache.claim(prefixes, 60_000)).size, 0, "this instance's claims, over every node");
      assert.equal((await otherCache.claim(prefixes, 60_000)).size, prefixes.length, "another instance's claims found");

      const limits = upstreamSearchLimits({ burst: 1, anonymousPrefixesPerMinute: 1 });
      const upstream = await RedisUpstreamBudget.connect({
        url: cluster.url,
        keyPrefix,
        timeoutMs: SLOW_MACHINE_MS,
        limits,
        fallback: new MemoryUpstreamBudget(limits, systemClock),
      });
      cleanups.push(() => upstream.close());
      assert.equal(await upstream.takeToken(), 0);
      assert.ok((await upstream.takeToken()) > 0, 'the bucket of 1 is spent');
      const alice = { id: 'address:192.0.2.1', keyed: false };
      assert.equal(await upstream.spendShare(alice, 1), 1);
      await assert.rejects(upstream.spendShare(alice, 1), /accepts 1 of one client/);
      assert.match(await upstream.metrics.metrics(), /^sbkit_upstream_budget_fallbacks_total 0$/m, 'every decision made on the cluster');

      const keys = await cluster.keys('sbkit:*');
      const tagged = keys.filter((key) => !key.startsWith('sbkit:search:') && !key.startsWith('sbkit:search-claim:'));
      for (const key of tagged) assert.match(key, /^sbkit:(list:\{cluster-4b\}|guard:\{guard\}|upstream:\{upstream\}):/, key);
      assert.ok(tagged.some((key) => key.endsWith(':bucket')) && tagged.some((key) => key.includes(':share:')));
      assert.ok(tagged.some((key) => key.endsWith(':entries-added')) && tagged.some((key) => key.includes(':hits:')));
      const holding: number[] = [];
      for (const port of cluster.ports) if ((await cluster.keys('sbkit:search:*', port)).length > 0) holding.push(port);
      assert.ok(holding.length > 1, `the search cache's keys spread over the nodes, not on ${holding.join()} alone`);
    },
  );
});
