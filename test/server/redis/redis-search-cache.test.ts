import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import { createClient } from 'redis';
import { SafeBrowsingClient } from '../../../src/client/safe-browsing-client.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { RedisSnapshotStore } from '../../../src/server/redis/redis-snapshot-store.ts';
import { RedisSearchCache } from '../../../src/server/redis/redis-search-cache.ts';
import { createServer, type SafeBrowsingServer } from '../../../src/server/http/server.ts';
import { UpstreamMirror } from '../../../src/server/proxy/upstream-mirror.ts';
import { expressionHashString, prefix32 } from '../../../src/url/hash.ts';
import { demoCatalog } from '../fixture.ts';
import { deleteKeys, ensureRedis, keysUnder, REDIS_URL, RedisRelay, uniqueKeyPrefix } from '../redis-fixture.ts';
import { until } from '../../support/waiting.ts';

const TEST_TIMEOUT = { timeout: 30_000 };
const keyPrefix = uniqueKeyPrefix();
const cleanups: (() => Promise<void>)[] = [];
let authorityUrl: string;
let authoritySearches = 0;
let dir: string;

before(async () => {
  await ensureRedis();
  dir = await mkdtemp(join(tmpdir(), 'sbkit-proxies-'));
  const authority: SafeBrowsingServer = createServer({ catalog: demoCatalog(), port: 0 });
  authority.app.addHook('onRequest', async (request) => {
    if (request.url.includes('hashes:search')) authoritySearches++;
  });
  authorityUrl = await authority.listen();
  cleanups.push(() => authority.close());
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await deleteKeys(keyPrefix);
  await rm(dir, { recursive: true, force: true });
});

/** A proxy instance in front of the authority, sharing this run's Redis namespace; its URL. */
async function proxy(name: string): Promise<string> {
  const store = await RedisSnapshotStore.connect({ url: REDIS_URL, keyPrefix, refreshMs: 0 });
  const searchCache = await RedisSearchCache.connect({ url: REDIS_URL, keyPrefix });
  const mirror = await UpstreamMirror.start({ url: authorityUrl, firstUpdateWindowMs: 0, dataDir: join(dir, name), store, searchCache });
  await mirror.update();
  const server = createServer({ catalog: mirror.catalog, fullHashes: mirror.fullHashes, port: 0 });
  const url = await server.listen();
  cleanups.push(async () => {
    await server.close();
    await mirror.close();
    await store.close();
    await searchCache.close();
  });
  return url;
}

describe('proxy instances sharing Redis', () => {
  it(
    "serve the same versions of the mirrored lists, and share the upstream's search answers, negative ones too",
    TEST_TIMEOUT,
    async () => {
      const [a, b] = [await proxy('a'), await proxy('b')];
      const list = async (base: string) =>
        fromBinary(v5.HashListSchema, new Uint8Array(await (await fetch(`${base}/v5/hashList/se-4b`)).arrayBuffer()));
      const [fromA, fromB] = [await list(a), await list(b)];
      assert.deepEqual(fromB.version, fromA.version);
      assert.deepEqual(fromB.sha256Checksum, fromA.sha256Checksum);

      const check = (server: string, url: string) => new SafeBrowsingClient({ server, mode: 'nostorage' }).checkUrl(url);
      const before = authoritySearches;
      assert.equal((await check(a, 'http://testsafebrowsing.appspot.com/s/phishing.html')).verdict, 'UNSAFE');
      assert.equal((await check(a, 'http://shared-negative.example/')).verdict, 'SAFE');
      assert.equal(authoritySearches - before, 2);
      // A stores its answers without making its clients wait for Redis.
      await until(
        5000,
        'A stored both answers',
        async () => (await keysUnder(keyPrefix)).filter((key) => key.includes(':search:')).length >= 2,
      );
      const fromCache = await check(b, 'http://testsafebrowsing.appspot.com/s/phishing.html');
      assert.equal(fromCache.verdict, 'UNSAFE');
      assert.deepEqual(
        fromCache.threats.map((t) => t.threatType),
        ['SOCIAL_ENGINEERING'],
      );
      assert.equal((await check(b, 'http://shared-negative.example/')).verdict, 'SAFE');
      assert.equal(authoritySearches - before, 2, 'B answered both from the answers A left in Redis');
    },
  );
});

describe('RedisSearchCache', () => {
  const hash = expressionHashString('cached.example/');
  const match = { fullHash: hash, details: [{ threatType: 'MALWARE' as const, attributes: ['FRAME_ONLY' as const] }] };

  it('answers what it stored until it expires, and stores negative answers', TEST_TIMEOUT, async () => {
    const cache = await RedisSearchCache.connect({ url: REDIS_URL, keyPrefix });
    cleanups.push(() => cache.close());
    const now = Date.now();
    await cache.store([prefix32(hash), 0x01020304], [match], now + 60_000);
    const found = await cache.lookup([prefix32(hash), 0x01020304, 0x05060708], now);
    assert.deepEqual([...found.keys()].sort(), [0x01020304, prefix32(hash)].sort());
    assert.deepEqual(found.get(prefix32(hash)), { expiresAt: now + 60_000, fullHashes: [match] });
    assert.deepEqual(found.get(0x01020304)?.fullHashes, []);
    assert.equal((await cache.lookup([prefix32(hash)], now + 60_001)).size, 0, "expired by the caller's clock");
  });

  it('treats whatever else a key holds as unknown: not an answer, a hash under another prefix, more than 24 h', TEST_TIMEOUT, async () => {
    const cache = await RedisSearchCache.connect({ url: REDIS_URL, keyPrefix });
    cleanups.push(() => cache.close());
    const raw = createClient({ url: REDIS_URL });
    await raw.connect();
    const stored = (expiresAt: number, details: unknown[] = []) =>
      JSON.stringify({ expiresAt, fullHashes: [{ hash: Buffer.from(hash, 'latin1').toString('base64'), details }] });
    const key = `${keyPrefix}search:${prefix32(hash).toString(16).padStart(8, '0')}`;
    const forged = [
      ['not json', key],
      ['{"expiresAt":"soon","fullHashes":[]}', key],
      [JSON.stringify({ expiresAt: Date.now() + 60_000, fullHashes: [{ hash: 'AAAA', details: [] }] }), key],
      [stored(Date.now() + 60_000, [{ threatType: 'NEW_TYPE', attributes: [] }]), key],
      [stored(Date.now() + 25 * 3600_000), key],
      [stored(Date.now() + 60_000), `${keyPrefix}search:00000001`],
    ];
    for (const [value, at] of forged) {
      await raw.set(at!, value!);
      assert.equal((await cache.lookup([prefix32(hash), 1], Date.now())).size, 0, value);
    }
    await raw.set(key, stored(Date.now() + 60_000));
    assert.equal((await cache.lookup([prefix32(hash)], Date.now())).size, 1, 'a well-formed answer is found');
    await raw.close();
  });

  it('knows nothing and keeps nothing while Redis is away, says so once, and never fails a search', TEST_TIMEOUT, async () => {
    const relay = await RedisRelay.start();
    const messages: string[] = [];
    const cache = await RedisSearchCache.connect({ url: relay.url, keyPrefix, log: (m) => messages.push(m) });
    cleanups.push(async () => {
      await cache.close();
    });
    await relay.cut();
    await cache.store([prefix32(hash)], [match], Date.now() + 60_000);
    assert.equal((await cache.lookup([prefix32(hash)], Date.now())).size, 0);
    assert.equal((await cache.lookup([prefix32(hash)], Date.now())).size, 0);
    assert.equal(messages.length, 1, messages.join(' / '));
    assert.match(messages[0]!, /the search cache in Redis at redis:\/\/127\.0\.0\.1:\d+ failed/);
  });
});
