import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SafeBrowsingClient, type Mode } from '../../src/client/safe-browsing-client.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/server.ts';
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
