import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LC_RATE_RULES, MemoryHitStore, type RateRules } from '../../../src/server/guard/hit-store.ts';
import { RedisHitStore } from '../../../src/server/redis/redis-hit-store.ts';
import { deleteKeys, ensureRedis, PrivateRedis, REDIS_URL, uniqueKeyPrefix } from '../redis-fixture.ts';
import { until } from '../../support/waiting.ts';

const TEST_TIMEOUT = { timeout: 30_000 };
// Windows long enough that the test's own pace cannot move a request out of them.
const RULES: RateRules = { ...LC_RATE_RULES, burstWindowMs: 60_000, crawlerIntervalMs: 60_000, anyCrawlerIntervalMs: 60_000 };
const keyPrefix = uniqueKeyPrefix();
const closers: (() => Promise<void>)[] = [];

before(async () => {
  await ensureRedis();
});
after(async () => {
  for (const close of closers) await close();
  await deleteKeys(keyPrefix);
});

async function instance(url = REDIS_URL, log?: (message: string) => void) {
  let fallbacks = 0;
  const store = await RedisHitStore.connect({
    url,
    keyPrefix,
    rules: RULES,
    fallback: new MemoryHitStore(RULES, 1000, () => performance.now()),
    log,
    onFallback: () => fallbacks++,
  });
  closers.push(() => store.close());
  return { store, fallbacks: () => fallbacks };
}

describe('RedisHitStore', () => {
  it('gives a client one budget across instances: the 12th request over two instances is refused', TEST_TIMEOUT, async () => {
    const [a, b] = [await instance(), await instance()];
    const verdicts = [];
    for (let i = 0; i < 12; i++) verdicts.push(await (i % 2 === 0 ? a : b).store.hit('shared-client', false));
    assert.deepEqual(verdicts, [...Array<string>(11).fill('admit'), 'rate']);
    assert.equal(await a.store.hit('another-client', false), 'admit');
  });

  it('shares every budget of a request across instances: an address cap holds over two instances', TEST_TIMEOUT, async () => {
    const [a, b] = [await instance(), await instance()];
    const budgets = (client: string) => [
      { key: client, max: 10, refusal: 'rate' as const },
      { key: 'address:198.51.100.7', max: 4, refusal: 'address-rate' as const },
    ];
    const verdicts = [];
    for (let i = 0; i < 7; i++) verdicts.push(await (i % 2 === 0 ? a : b).store.hit(`agent-${i}`, false, budgets(`agent-${i}`)));
    assert.deepEqual(verdicts, ['admit', 'admit', 'admit', 'admit', 'admit', 'address-rate', 'address-rate']);
  });

  it('applies the crawler rules across instances', TEST_TIMEOUT, async () => {
    const [a, b] = [await instance(), await instance()];
    assert.equal(await a.store.hit('crawler-1', true), 'admit');
    assert.equal(await b.store.hit('crawler-1', true), 'crawler-recent');
    assert.equal(await b.store.hit('crawler-2', true), 'crawlers-busy');
  });

  it('falls back to memory when Redis stops, says so once, counts it, and shares again once it is back', TEST_TIMEOUT, async () => {
    const redis = await PrivateRedis.start();
    closers.push(() => redis.stop());
    const messages: string[] = [];
    const { store, fallbacks } = await instance(redis.url, (m) => messages.push(m));
    assert.equal(await store.hit('c', false), 'admit');
    assert.equal(store.shared, true);

    await redis.stop();
    await until(5000, 'the client notices', () => !store.shared);
    for (let i = 0; i < 12; i++) await store.hit('outage-client', false);
    assert.equal(await store.hit('outage-client', false), 'rate', 'memory enforces the limits meanwhile');
    assert.equal(fallbacks(), 13);
    assert.equal(messages.length, 1, messages.join(' / '));
    assert.match(messages[0]!, /load control: Redis at redis:\/\/127\.0\.0\.1:\d+ failed .*limits are kept in this instance's memory/);

    await redis.restart();
    await until(10_000, 'the client reconnects', () => store.shared);
    assert.equal(await store.hit('after-restart', false), 'admit');
    assert.equal(fallbacks(), 13, 'decided in Redis again');
    assert.match(messages.at(-1)!, /answers again; limits are shared again/);
  });
});
