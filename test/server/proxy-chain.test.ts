import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import * as v5 from '../../src/proto/v5.ts';
import type { Mode } from '../../src/client/options.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { createApp } from '../../src/server/http/app.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { ListCatalog } from '../../src/server/catalog.ts';
import { UpstreamMirror } from '../../src/server/proxy/upstream-mirror.ts';
import { demoCatalog } from './fixture.ts';
import { until } from '../support/waiting.ts';

// client → proxy → authority: two sbkit servers on loopback, the second a caching proxy of the first.
let authority: SafeBrowsingServer;
let proxy: SafeBrowsingServer;
let mirror: UpstreamMirror;
let authorityUrl: string;
let proxyUrl: string;
let authoritySearches = 0;

const URLS = [
  'http://testsafebrowsing.appspot.com/s/phishing.html',
  'http://testsafebrowsing.appspot.com/s/malware.html',
  'http://testsafebrowsing.appspot.com/s/unwanted.html',
  'http://itisatrap.org/firefox/its-a-trap.html',
  'http://example.com/',
  'http://www.wikipedia.org/wiki/Safe_Browsing',
];

before(async () => {
  authority = createServer({ catalog: demoCatalog(), apiKeys: ['upstream-key'], port: 0 });
  authority.app.addHook('onRequest', async (request) => {
    if (request.url.includes('hashes:search')) authoritySearches++;
  });
  authorityUrl = await authority.listen();
  mirror = await UpstreamMirror.start({ url: authorityUrl, apiKey: 'upstream-key', firstUpdateWindowMs: 0 });
  await mirror.update();
  proxy = createServer({ catalog: mirror.catalog, fullHashes: mirror.fullHashes, port: 0 });
  proxyUrl = await proxy.listen();
});
after(async () => {
  await proxy.close();
  await mirror.close();
  await authority.close();
});

async function verdicts(server: string, protocol: 'v5' | 'v4', mode: Mode): Promise<string[]> {
  const client = new SafeBrowsingClient({ server, protocol, mode, apiKey: 'upstream-key' });
  if (mode !== 'nostorage') await client.update();
  const results = await client.checkUrls(URLS);
  await client.close();
  return results.map((r) => `${r.verdict}${r.error === undefined ? '' : ' (failed)'} ${r.threats.map((t) => t.threatType).join(',')}`);
}

describe('client → proxy → authority', () => {
  for (const [protocol, mode] of [
    ['v5', 'realtime'],
    ['v5', 'local'],
    ['v5', 'nostorage'],
    ['v4', 'local'],
  ] as const) {
    it(`gives the same verdicts as client → authority (${protocol}, ${mode})`, async () => {
      const direct = await verdicts(authorityUrl, protocol, mode);
      const proxied = await verdicts(proxyUrl, protocol, mode);
      assert.deepEqual(proxied, direct);
      assert.ok(direct.filter((v) => v.startsWith('UNSAFE')).length === 4, direct.join('; '));
    });
  }

  it('serves the same lists, with its own versions', async () => {
    const get = async (base: string) =>
      fromBinary(v5.HashListSchema, new Uint8Array(await (await fetch(`${base}/v5/hashList/se-4b?key=upstream-key`)).arrayBuffer()));
    const [fromAuthority, fromProxy] = [await get(authorityUrl), await get(proxyUrl)];
    assert.deepEqual(fromProxy.sha256Checksum, fromAuthority.sha256Checksum);
    assert.notDeepEqual(fromProxy.version, fromAuthority.version);
  });

  it('answers repeated searches from its cache, negative answers included', async () => {
    const client = () => new SafeBrowsingClient({ server: proxyUrl, mode: 'nostorage' });
    await client().checkUrl('http://cached.example/first');
    const before = authoritySearches;
    await client().checkUrl('http://cached.example/first');
    const first = await client().checkUrl('http://testsafebrowsing.appspot.com/s/malware_in_iframe.html');
    const second = await client().checkUrl('http://testsafebrowsing.appspot.com/s/malware_in_iframe.html');
    assert.deepEqual([first.verdict, second.verdict], ['UNSAFE', 'UNSAFE']);
    assert.equal(authoritySearches - before, 1, 'only the first of these checks reached the authority');
  });
});

describe("a proxy before its first copy of the upstream's lists", () => {
  it('answers list requests with 503 and Retry-After, not with empty lists that look final, until it has mirrored them', async () => {
    // An upstream that holds its list answers until the test lets them go.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = createServer({ catalog: demoCatalog(), port: 0 });
    slow.app.addHook('onRequest', async (request) => {
      if (!request.url.includes('hashes:search')) await held;
    });
    const early = await UpstreamMirror.start({ url: await slow.listen(), firstUpdateWindowMs: 0 });
    try {
      const app = createApp({
        catalog: early.catalog,
        fullHashes: early.fullHashes,
        listUnavailable: (name) => early.listUnavailable(name),
      });
      const batch = '/v5/hashLists:batchGet?names=se-4b&names=mw-4b&alt=json';
      const waiting = await app.inject({ url: batch });
      assert.deepEqual([waiting.statusCode, waiting.headers['retry-after']], [503, '60']);
      const fetch = { listUpdateRequests: [{ threatType: 'MALWARE', platformType: 'ANY_PLATFORM', threatEntryType: 'URL', state: '' }] };
      assert.equal(
        (
          await app.inject({
            url: '/v4/threatListUpdates:fetch?alt=json',
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(fetch),
          })
        ).statusCode,
        503,
      );
      // Naming its lists would tell clients the upstream has them all, before the proxy knows which it has.
      assert.equal((await app.inject({ url: '/v5/hashLists?alt=json' })).statusCode, 503);
      assert.equal((await app.inject({ url: '/v4/threatLists?alt=json' })).statusCode, 503);
      release();
      await until(5000, 'the mirror has its first copy', () => early.listReady('se-4b') && early.listReady('mw-4b'));
      const served = await app.inject({ url: batch });
      assert.equal(served.statusCode, 200);
      assert.equal((await app.inject({ url: '/v5/hashLists?alt=json' })).statusCode, 200);
      assert.ok(
        served.json<{ hashLists: { additionsFourBytes?: unknown }[] }>().hashLists.every((list) => list.additionsFourBytes !== undefined),
        'the mirrored lists, with their entries',
      );
    } finally {
      release();
      await early.close();
      await slow.close();
    }
  });
});

describe('a proxy whose upstream lacks some of the lists it mirrors', () => {
  it('logs each once, serves none of them as an empty copy, and answers for them as any list it lacks', async () => {
    const published = ['se-4b', 'mw-4b', 'gc-32b'];
    const partial = createServer({
      catalog: new ListCatalog(
        demoCatalog()
          .all()
          .filter((history) => published.includes(history.definition.name)),
      ),
      port: 0,
    });
    const log: string[] = [];
    const lacking = await UpstreamMirror.start({ url: await partial.listen(), firstUpdateWindowMs: 0, log: (line) => log.push(line) });
    const server = createServer({ catalog: lacking.catalog, fullHashes: lacking.fullHashes, port: 0 });
    try {
      await lacking.update();
      await lacking.update();
      assert.deepEqual(log, [
        'the upstream publishes no list uws-4b (it has se-4b, mw-4b, gc-32b); uws-4b is not served',
        'the upstream publishes no list uwsa-4b (it has se-4b, mw-4b, gc-32b); uwsa-4b is not served',
        'the upstream publishes no list pha-4b (it has se-4b, mw-4b, gc-32b); pha-4b is not served',
      ]);
      const base = await server.listen();
      // Not 503 "no copy yet" for ever, nor an empty list that looks like the upstream's: not published here.
      const missing = await fetch(`${base}/v5/hashList/uws-4b`);
      assert.equal(missing.status, 404);
      const body = (await missing.json()) as { error: { message: string; details: { reason: string }[] } };
      assert.match(body.error.message, /^the server publishes no list "uws-4b"; it publishes se-4b, mw-4b, gc-32b/);
      assert.equal(body.error.details[0]!.reason, 'SBKIT_UNKNOWN_LIST');
      const served = await fetch(`${base}/v5/hashList/se-4b`);
      assert.equal(served.status, 200);
      const listing = fromBinary(
        v5.ListHashListsResponseSchema,
        new Uint8Array(await (await fetch(`${base}/v5/hashLists?alt=proto`)).arrayBuffer()),
      );
      assert.deepEqual(
        listing.hashLists.map((list) => list.name),
        published,
      );
      // A client of the proxy with the default lists keeps those there are, and says which there are not.
      const client = new SafeBrowsingClient({ server: base, mode: 'local' });
      const summary = await client.update();
      await client.close();
      assert.deepEqual([summary.error, summary.notServed], [undefined, ['uws-4b', 'uwsa-4b', 'pha-4b']]);
    } finally {
      await server.close();
      await lacking.close();
      await partial.close();
    }
  });
});
