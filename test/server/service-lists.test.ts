// The lists a service opens, as far as Redis shares them between instances: two proxies of one upstream.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { type Service, startService } from '../../src/server/service.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from './redis-fixture.ts';
import { demoCatalog } from './fixture.ts';

const TEST_TIMEOUT = { timeout: 30_000 };
const keyPrefix = uniqueKeyPrefix();
const cleanups: (() => Promise<unknown>)[] = [];
let upstreamUrl: string;
let upstreamSearches = 0;

before(async () => {
  await ensureRedis();
  const upstream: SafeBrowsingServer = createServer({ catalog: demoCatalog(), port: 0 });
  upstream.app.addHook('onRequest', async (request) => {
    if (request.url.includes('hashes:search')) upstreamSearches++;
  });
  upstreamUrl = await upstream.listen();
  cleanups.push(() => upstream.close());
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await deleteKeys(keyPrefix);
});

/** A proxy instance of the upstream on this run's Redis namespace. */
async function proxy(): Promise<Service> {
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'upstream', url: upstreamUrl, apiKey: undefined, protocol: 'v5', dataDir: undefined, config: undefined },
    redis: { url: REDIS_URL, keyPrefix },
    loadControl: true,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: () => undefined,
  });
  cleanups.push(() => service.close());
  return service;
}

describe('two proxies on one Redis', () => {
  it('ask their upstream once for a prefix both are asked at once, and report their shared budget', TEST_TIMEOUT, async () => {
    const [a, b] = [await proxy(), await proxy()];
    const search = (service: Service) =>
      fetch(`${service.url}/v5/hashes:search?hashPrefixes=${encodeURIComponent('q83vEg')}`, { signal: AbortSignal.timeout(5000) });
    const before = upstreamSearches;
    const answers = await Promise.all([search(a), search(b)]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
    assert.equal(upstreamSearches - before, 1, 'one search upstream for both instances');
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    assert.match(metrics, /^sbkit_redis_available\{part="upstream-budget"\} 1$/m);
    assert.match(metrics, /^sbkit_upstream_budget_fallbacks_total 0$/m);
  });
});
