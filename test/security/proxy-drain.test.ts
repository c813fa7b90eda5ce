// The attack: a caching proxy is one client of its upstream, rate-limited like any other. Anonymous
// look-ups on the proxy's page (16, each under a new User-Agent), or three searches of 1,000 random
// prefixes, made the upstream refuse the proxy; the proxy's search schedule then backed off (RF-4) and
// every search that missed the cache, keyed API clients' included, got 503 for about 22 minutes.
// Now upstream-bound searches are batched and spent from a bucket below the upstream's limit, and each
// requester's share of them is rationed: the upstream never refuses the proxy, and a keyed client
// that comes after the attack is served.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { createServer } from '../../src/server/http/server.ts';
import { UpstreamMirror } from '../../src/server/proxy/upstream-mirror.ts';
import { demoCatalog } from '../server/fixture.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const closers: (() => Promise<void>)[] = [];

/**
 * An upstream as sbkit serves by default, without keys (LC's load control: 11 requests of one client in
 * 15 s), and a caching proxy of it with load control, requiring `proxyKeys` when there are any.
 */
async function chain(proxyKeys: string[]): Promise<{ proxyUrl: string; upstreamSearches: number[] }> {
  const upstreamControl = await LoadControl.create();
  const upstream = createServer({ catalog: demoCatalog(), loadControl: upstreamControl, port: 0 });
  const upstreamSearches: number[] = [];
  upstream.app.addHook('onResponse', async (request, reply) => {
    if (request.url.includes('hashes:search')) upstreamSearches.push(reply.statusCode);
  });
  const upstreamUrl = await upstream.listen();
  const mirror = await UpstreamMirror.start({ url: upstreamUrl, firstUpdateWindowMs: 0 });
  await mirror.update();
  const proxyControl = await LoadControl.create();
  const proxy = createServer({
    catalog: mirror.catalog,
    fullHashes: mirror.fullHashes,
    loadControl: proxyControl,
    apiKeys: proxyKeys,
    port: 0,
  });
  const proxyUrl = await proxy.listen();
  closers.push(async () => {
    await proxy.close();
    await mirror.close();
    await upstream.close();
    await proxyControl.close();
    await upstreamControl.close();
  });
  return { proxyUrl, upstreamSearches };
}

after(async () => {
  for (const close of closers) await close();
});

/** `count` random 4-byte prefixes in the query form of a v5 search. */
function randomPrefixes(count: number): string {
  return Array.from(
    { length: count },
    () => `hashPrefixes=${encodeURIComponent(crypto.getRandomValues(Buffer.alloc(4)).toString('base64'))}`,
  ).join('&');
}

/** The upstream refused none of the proxy's searches, and they kept within the bucket (5 at once, 30 a minute). */
function assertWithinUpstreamLimits(upstreamSearches: number[], startedAt: number): void {
  assert.deepEqual(
    upstreamSearches.filter((status) => status !== 200),
    [],
    `the upstream refused the proxy: ${upstreamSearches.join(' ')}`,
  );
  const minutes = (performance.now() - startedAt) / 60_000;
  assert.ok(upstreamSearches.length <= 5 + Math.ceil(30 * minutes), `${upstreamSearches.length} upstream searches`);
}

describe('a caching proxy under anonymous look-ups and huge searches', () => {
  it(
    '16 look-ups on its page, each a new User-Agent: never refused upstream, a keyed client served afterwards',
    { timeout: 60_000 },
    async () => {
      const { proxyUrl, upstreamSearches } = await chain(['partner-key']);
      const startedAt = performance.now();
      const lookups = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          fetch(`${proxyUrl}/?url=${encodeURIComponent(`http://attack-${i}-${Date.now()}.example/page${i}`)}`, {
            headers: { 'user-agent': `${FIREFOX} n/${i}` },
          }).then((r) => r.status),
        ),
      );
      assertWithinUpstreamLimits(upstreamSearches, startedAt);
      assert.ok(
        lookups.every((status) => status === 200 || status === 503),
        lookups.join(' '),
      );
      const keyed = await fetch(`${proxyUrl}/v5/hashes:search?key=partner-key&${randomPrefixes(4)}`, {
        headers: { 'user-agent': 'partner/1' },
      });
      assert.equal(keyed.status, 200, 'the keyed client is served: the proxy is not in back-off');
    },
  );

  it(
    'three searches of 1,000 random prefixes: refused at once, never sent up, a browser served afterwards',
    { timeout: 60_000 },
    async () => {
      const { proxyUrl, upstreamSearches } = await chain([]);
      const startedAt = performance.now();
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${proxyUrl}/v5/hashes:search?${randomPrefixes(1000)}`, { headers: { 'user-agent': `tool/${i}` } });
        assert.equal(response.status, 400, 'a 1,000-prefix search is larger than any anonymous search may be');
        assert.equal(response.headers.get('retry-after'), null, 'without Retry-After: it would be refused for ever');
        assert.match(await response.text(), /may send at most 250/);
      }
      assertWithinUpstreamLimits(upstreamSearches, startedAt);
      assert.deepEqual(upstreamSearches, [], 'nothing of them went up');
      const browser = await fetch(`${proxyUrl}/v5/hashes:search?${randomPrefixes(4)}`, { headers: { 'user-agent': FIREFOX } });
      assert.equal(browser.status, 200, 'a browser elsewhere is served: the proxy is not in back-off');
    },
  );
});
