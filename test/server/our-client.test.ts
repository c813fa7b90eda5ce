import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Mode } from '../../src/client/options.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { expressionHashString } from '../../src/url/hash.ts';
import { demoCatalog } from './fixture.ts';

let server: SafeBrowsingServer;
let url: string;

before(async () => {
  server = createServer({ catalog: demoCatalog(), port: 0 });
  url = await server.listen();
});
after(async () => {
  await server.close();
});

const cases: { protocol: 'v5' | 'v4'; mode: Mode }[] = [
  { protocol: 'v5', mode: 'realtime' },
  { protocol: 'v5', mode: 'local' },
  { protocol: 'v5', mode: 'nostorage' },
  { protocol: 'v4', mode: 'local' },
  { protocol: 'v4', mode: 'nostorage' },
];

describe('our client against our server, on loopback', () => {
  for (const { protocol, mode } of cases) {
    it(`${protocol} ${mode}: Google's test pages are unsafe, ordinary pages safe`, async () => {
      const client = new SafeBrowsingClient({ server: url, protocol, mode });
      if (mode !== 'nostorage') {
        const summary = await client.update();
        assert.equal(summary.error, undefined);
        assert.deepEqual(summary.failed, []);
      }
      const verdicts = await client.checkUrls([
        'http://testsafebrowsing.appspot.com/s/phishing.html',
        'http://testsafebrowsing.appspot.com/s/malware.html',
        'http://testsafebrowsing.appspot.com/s/unwanted.html',
        'http://example.com/',
        'http://testsafebrowsing.appspot.com/s/unlisted.html',
      ]);
      assert.deepEqual(
        verdicts.map((v) => [v.verdict, v.threats.filter((t) => t.enforced).map((t) => t.threatType)]),
        [
          ['UNSAFE', ['SOCIAL_ENGINEERING']],
          ['UNSAFE', ['MALWARE']],
          ['UNSAFE', ['UNWANTED_SOFTWARE']],
          ['SAFE', []],
          ['SAFE', []],
        ],
      );
      assert.ok(verdicts.every((v) => v.error === undefined));
      await client.close();
    });
  }
});

describe('request size on real HTTP', () => {
  it('answers a hashes:search with the 1000 prefixes docs/api.md allows, all in the query string', async () => {
    const phishing = expressionHashString('testsafebrowsing.appspot.com/s/phishing.html');
    const prefixes = Array.from({ length: 999 }, (_, i) => Buffer.from([0xff, 0xfe, i >> 8, i & 0xff]));
    prefixes.push(Buffer.from(phishing.slice(0, 4), 'latin1'));
    const query = prefixes.map((p) => `hashPrefixes=${encodeURIComponent(p.toString('base64'))}`).join('&');
    assert.ok(query.length > 16 * 1024, "the request is bigger than Node's default limit for a request head");
    const response = await fetch(`${url}/v5/hashes:search?${query}`, { headers: { accept: 'application/json' } });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { fullHashes: { fullHash: string }[] };
    assert.deepEqual(
      body.fullHashes.map((f) => Buffer.from(f.fullHash, 'base64').toString('latin1')),
      [phishing],
    );
  });
});
