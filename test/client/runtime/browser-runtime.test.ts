import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ClientOptionError, SafeBrowsingClient, type Mode } from '../../../src/browser.ts';
import { KeyRing } from '../../../src/server/ohttp/key-ring.ts';
import { createRelayApp } from '../../../src/server/ohttp/relay.ts';
import { createServer, type SafeBrowsingServer } from '../../../src/server/http/server.ts';
import { demoCatalog } from '../../server/fixture.ts';

// The browser build's client, run here on Node's fetch and WebCrypto: the same verdicts as Node's client.
let server: SafeBrowsingServer;
let url: string;
let relay: FastifyInstance;
let relayUrl: string;
/** The paths of the requests the relay was sent. */
const relayed: string[] = [];

before(async () => {
  server = createServer({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), port: 0 });
  url = await server.listen();
  relay = createRelayApp({ gateway: `${url}/ohttp-gateway` });
  relay.addHook('onRequest', async (request) => {
    relayed.push(request.url);
  });
  await relay.listen({ host: '127.0.0.1', port: 0 });
  relayUrl = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}/ohttp-relay`;
});
after(async () => {
  await relay.close();
  await server.close();
});

const URLS = [
  'http://testsafebrowsing.appspot.com/s/phishing.html',
  'http://testsafebrowsing.appspot.com/s/malware.html',
  'http://example.com/',
];
const EXPECTED = [
  ['UNSAFE', ['SOCIAL_ENGINEERING'], undefined],
  ['UNSAFE', ['MALWARE'], undefined],
  ['SAFE', [], undefined],
];

describe('sbkit/browser’s client: WebCrypto, fetch, lists in memory', () => {
  for (const mode of ['realtime', 'local', 'nostorage'] as Mode[]) {
    it(`${mode}: Google's test pages are unsafe, ordinary pages safe`, async () => {
      const client = new SafeBrowsingClient({ server: url, mode, storage: 'memory' });
      if (mode !== 'nostorage') assert.deepEqual((await client.update()).failed, []);
      const verdicts = await client.checkUrls(URLS);
      assert.deepEqual(
        verdicts.map((v) => [v.verdict, v.threats.filter((t) => t.enforced).map((t) => t.threatType), v.error]),
        EXPECTED,
      );
      if (mode === 'realtime') assert.ok(client.listInfo().some((list) => list.name === 'gc-32b'));
      await client.close();
    });
  }

  for (const keys of ['url', 'bytes'] as const) {
    it(`searches through an Oblivious HTTP relay with the gateway's keys as ${keys === 'url' ? 'its URL' : 'bytes'} (SB-2)`, async () => {
      const keysUrl = `${url}/ohttp-keys`;
      const configs = keys === 'url' ? keysUrl : new Uint8Array(await (await fetch(keysUrl)).arrayBuffer());
      const client = new SafeBrowsingClient({ server: url, mode: 'nostorage', ohttp: { relay: relayUrl, keys: configs } });
      relayed.length = 0;
      const verdicts = await client.checkUrls(URLS);
      assert.deepEqual(
        verdicts.map((v) => [v.verdict, v.threats.filter((t) => t.enforced).map((t) => t.threatType), v.error]),
        EXPECTED,
      );
      assert.deepEqual(relayed, ['/ohttp-relay'], 'the one search of the three URLs went through the relay');
      await client.close();
    });
  }

  it('an unreachable server gives UNKNOWN with a TransportError, never SAFE and never a throw', async () => {
    const client = new SafeBrowsingClient({ server: 'http://127.0.0.1:9', mode: 'nostorage', timeoutMs: 2_000 });
    const [result] = await client.checkUrls(['http://example.com/']);
    assert.equal(result!.verdict, 'UNKNOWN');
    assert.equal(result!.answeredBy, undefined);
    assert.equal(result!.error?.code, 'SBKIT_TRANSPORT_NETWORK');
  });

  it('refuses ohttp where there is no WebCrypto, as on a page outside a secure context', () => {
    const crypto = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!;
    Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
    try {
      assert.throws(
        () => new SafeBrowsingClient({ server: url, ohttp: { relay: relayUrl, keys: `${url}/ohttp-keys` } }),
        (err: unknown) => err instanceof ClientOptionError && /secure context/.test(err.message),
      );
    } finally {
      Object.defineProperty(globalThis, 'crypto', crypto);
    }
  });

  it('refuses Node’s options with a message that says where they work', () => {
    for (const options of [
      { dataDir: '/tmp/x' },
      { protocol: 'v4' },
      { protocol: 'webrisk' },
      { encoding: 'json' },
      { ohttp: { relay: 'http://r', keys: '/etc/sbkit/ohttp-keys' } },
    ]) {
      assert.throws(
        () => new SafeBrowsingClient(options as never),
        (err: unknown) => err instanceof ClientOptionError && /Node/.test(err.message),
      );
    }
  });
});
