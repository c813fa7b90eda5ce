import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { create, toBinary } from '@bufbuild/protobuf';
import * as v4 from '../../../src/proto/v4.ts';
import { SafeBrowsingClient } from '../../../src/client/safe-browsing-client.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { KeyRing } from '../../../src/server/ohttp/key-ring.ts';
import { createRelayApp } from '../../../src/server/ohttp/relay.ts';
import { createApp } from '../../../src/server/http/app.ts';
import { createServer, type SafeBrowsingServer } from '../../../src/server/http/server.ts';
import { expressionHashString } from '../../../src/url/hash.ts';
import { decodeBinaryHttpResponse, encodeBinaryHttpRequest } from '../../../src/wire/ohttp/binary-http.ts';
import { decapsulateResponse, encapsulateRequest } from '../../../src/wire/ohttp/ohttp-client.ts';
import { encodeKeyConfigs, parseKeyConfigs } from '../../../src/wire/ohttp/ohttp-keys.ts';
import { demoCatalog } from '../fixture.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const URLS = [
  'http://testsafebrowsing.appspot.com/s/phishing.html',
  'http://testsafebrowsing.appspot.com/s/malware.html',
  'http://example.com/',
  'http://testsafebrowsing.appspot.com/s/unwanted.html',
];
const PHISHING_PREFIX = Buffer.from(expressionHashString('testsafebrowsing.appspot.com/s/phishing.html').slice(0, 4), 'latin1');

let gateway: SafeBrowsingServer;
let gatewayUrl: string;
let relay: FastifyInstance;
let relayUrl: string;
/** Everything the relay received and sent on, as bytes and headers. */
const relayView: string[] = [];
/** Every request that reached the gateway from outside: its address and headers. */
const gatewayView: { address: string | undefined; headers: Record<string, unknown> }[] = [];

before(async () => {
  // No load control here: these tests make more requests than one client may (the relay's test below has it).
  gateway = createServer({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), port: 0 });
  gateway.app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/ohttp-gateway'))
      gatewayView.push({ address: request.socket.remoteAddress, headers: { ...request.headers } });
  });
  gatewayUrl = await gateway.listen();
  relay = createRelayApp({ gateway: `${gatewayUrl}/ohttp-gateway` });
  relay.addHook('preHandler', async (request) => {
    relayView.push(JSON.stringify(request.headers), Buffer.isBuffer(request.body) ? request.body.toString('latin1') : '');
  });
  relay.addHook('onSend', async (_request, _reply, payload) => {
    relayView.push(Buffer.isBuffer(payload) ? payload.toString('latin1') : String(payload));
    return payload;
  });
  await relay.listen({ host: '127.0.0.1', port: 0 });
  const address = relay.server.address();
  relayUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/ohttp-relay`;
});
after(async () => {
  await relay.close();
  await gateway.close();
});

async function verdicts(options: ConstructorParameters<typeof SafeBrowsingClient>[0]): Promise<string[]> {
  const client = new SafeBrowsingClient({ server: gatewayUrl, mode: 'nostorage', ...options });
  if (client.mode !== 'nostorage') await client.update();
  const results = await client.checkUrls(URLS);
  await client.close();
  return results.map(
    (r) => `${r.verdict}${r.error === undefined ? '' : ` (${r.error.message})`} ${r.threats.map((t) => t.threatType).join(',')}`,
  );
}

describe('client → relay → gateway on loopback (SB-2)', () => {
  for (const mode of ['nostorage', 'local', 'realtime'] as const) {
    it(`gives the same verdicts as a direct search (${mode} mode)`, async () => {
      const direct = await verdicts({ mode });
      relayView.length = 0;
      const oblivious = await verdicts({ mode, ohttp: { relay: relayUrl, keys: `${gatewayUrl}/ohttp-keys` } });
      assert.deepEqual(oblivious, direct);
      assert.ok(relayView.length > 0, 'the searches went through the relay');
      assert.deepEqual(
        direct.map((v) => v.split(' ')[0]),
        ['UNSAFE', 'UNSAFE', 'SAFE', 'UNSAFE'],
      );
    });
  }

  it('shows the relay no hash prefix in any form, and the gateway nothing of the client', async () => {
    relayView.length = 0;
    gatewayView.length = 0;
    const keys = parseKeyConfigs(new Uint8Array(await (await fetch(`${gatewayUrl}/ohttp-keys`)).arrayBuffer()));
    const inner = encodeBinaryHttpRequest({
      method: 'GET',
      scheme: 'http',
      authority: 'sb',
      path: `/v5/hashes:search?hashPrefixes=${PHISHING_PREFIX.toString('base64url')}`,
      headers: [],
      content: new Uint8Array(0),
    });
    const { message } = await encapsulateRequest(keys[0]!, inner);
    // A client that gives itself away in every header it can.
    const answer = await fetch(relayUrl, {
      method: 'POST',
      headers: {
        'content-type': 'message/ohttp-req',
        'user-agent': 'client-marker/7',
        'x-forwarded-for': '203.0.113.7',
        forwarded: 'for=203.0.113.7',
        cookie: 'id=client-marker',
      },
      body: message,
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'message/ohttp-res');
    await verdicts({ ohttp: { relay: relayUrl, keys: `${gatewayUrl}/ohttp-keys` } });
    const seen = relayView.join('\n');
    assert.ok(seen.length > 0);
    for (const form of [
      PHISHING_PREFIX.toString('latin1'),
      PHISHING_PREFIX.toString('base64'),
      PHISHING_PREFIX.toString('base64url'),
      PHISHING_PREFIX.toString('hex'),
      'hashPrefixes',
      'hashes:search',
    ]) {
      assert.ok(!seen.includes(form), `the relay saw ${JSON.stringify(form)}`);
    }
    assert.ok(gatewayView.length >= 2);
    for (const { headers } of gatewayView) {
      assert.deepEqual(
        Object.keys(headers).sort(),
        [
          'accept',
          'accept-encoding',
          'accept-language',
          'connection',
          'content-length',
          'content-type',
          'host',
          'sec-fetch-mode',
          'user-agent',
        ].filter((h) => h in headers),
      );
      const text = JSON.stringify(headers);
      for (const marker of ['client-marker', '203.0.113.7']) assert.ok(!text.includes(marker), `the gateway saw ${marker}`);
      assert.equal(headers['user-agent'], 'sbkit-relay');
    }
  });

  it('refuses garbage, replays, unknown keys and non-API paths with a 4xx, never a crash', async () => {
    const post = (body: Uint8Array, type = 'message/ohttp-req') =>
      fetch(`${gatewayUrl}/ohttp-gateway`, { method: 'POST', headers: { 'content-type': type }, body });
    const codeOf = async (response: Response) => ((await response.json()) as { code: string }).code;
    const garbage = await post(Buffer.from('not an encapsulated request at all'));
    assert.equal(garbage.status, 400);
    assert.equal(await codeOf(garbage), 'SBKIT_OHTTP_MALFORMED');
    const wrongType = await post(Buffer.from('x'), 'application/json');
    assert.equal(wrongType.status, 415);
    assert.equal(await codeOf(wrongType), 'SBKIT_OHTTP_MEDIA_TYPE');
    const keys = parseKeyConfigs(new Uint8Array(await (await fetch(`${gatewayUrl}/ohttp-keys`)).arrayBuffer()));
    const inner = encodeBinaryHttpRequest({
      method: 'GET',
      scheme: 'http',
      authority: 'sb',
      path: '/v5/hashLists',
      headers: [],
      content: new Uint8Array(0),
    });
    const { message } = await encapsulateRequest(keys[0]!, inner);
    assert.equal((await post(message)).status, 200);
    const replay = await post(message);
    assert.equal(replay.status, 400);
    const replayProblem = (await replay.json()) as { detail: string; code: string };
    assert.match(replayProblem.detail, /received before/);
    assert.equal(replayProblem.code, 'SBKIT_OHTTP_REPLAY');
    const otherKey = { ...keys[0]!, keyId: (keys[0]!.keyId + 1) % 256 };
    const unknown = await post((await encapsulateRequest(otherKey, inner)).message);
    assert.equal(unknown.status, 400);
    const unknownProblem = (await unknown.json()) as { type: string; code: string };
    assert.match(unknownProblem.type, /#ohttp-key/);
    assert.equal(unknownProblem.code, 'SBKIT_OHTTP_UNKNOWN_KEY');
    const admin = encodeBinaryHttpRequest({
      method: 'POST',
      scheme: 'http',
      authority: 'sb',
      path: '/admin/pause',
      headers: [],
      content: new Uint8Array(0),
    });
    assert.equal((await post((await encapsulateRequest(keys[0]!, admin)).message)).status, 200, 'answered, encapsulated…');
    assert.deepEqual(await (await fetch(`${gatewayUrl}/healthz`)).json(), { status: 'ok' }, '…refused inside: the server was not paused');
  });
});

describe('KeyRing', () => {
  it('rotates keys and keeps accepting a replaced key for the overlap', async () => {
    const clock = new FakeClock(0);
    const ring = await KeyRing.create({ rotateMs: 1000, overlapMs: 300, clock });
    const [first] = (await ring.configs()).map((c) => c.keyId);
    const next = (first! + 1) % 256;
    clock.advance(1000);
    assert.deepEqual(
      (await ring.configs()).map((c) => c.keyId),
      [next, first],
      'the new key first, the old one still accepted',
    );
    clock.advance(299);
    assert.equal((await ring.keys()).length, 2);
    clock.advance(1);
    assert.deepEqual(
      (await ring.configs()).map((c) => c.keyId),
      [next],
    );
    assert.equal(ring.secondsUntilRotation(), 0);
  });
});

describe('the relay behind load control', () => {
  it('refuses a client over its budget before anything reaches the gateway', async () => {
    const control = await LoadControl.create();
    const guarded = createRelayApp({ gateway: `${gatewayUrl}/ohttp-gateway`, loadControl: control });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push(
        (
          await guarded.inject({
            method: 'POST',
            url: '/ohttp-relay',
            headers: { 'content-type': 'message/ohttp-req', 'user-agent': 'eager/1' },
            payload: Buffer.from('opaque'),
          })
        ).statusCode,
      );
    }
    assert.deepEqual(
      statuses,
      [...Array<number>(11).fill(400), 503],
      'the gateway refuses the garbage (400); the 12th never leaves the relay',
    );
    await guarded.close();
    await control.close();
  });
});

describe('a gateway behind load control', () => {
  it('applies only the load rules to what trusted relays send, and the rate rule to anyone else posting directly', async () => {
    // 10.0.0.7 is a load balancer: trusted for X-Forwarded-For, but not a relay itself.
    const control = await LoadControl.create({ settings: { trustedRelays: ['10.0.0.5'], trustedProxies: ['10.0.0.7'] } });
    const app = createApp({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), loadControl: control });
    const keys = parseKeyConfigs((await app.inject({ url: '/ohttp-keys', remoteAddress: '10.0.0.5' })).rawPayload);
    const inner = encodeBinaryHttpRequest({
      method: 'GET',
      scheme: 'http',
      authority: 'sb',
      path: '/v5/hashLists',
      headers: [],
      content: new Uint8Array(0),
    });
    const post = async (remoteAddress: string, forwardedFor?: string) =>
      (
        await app.inject({
          method: 'POST',
          url: '/ohttp-gateway',
          remoteAddress,
          headers: {
            'content-type': 'message/ohttp-req',
            'user-agent': 'sbkit-relay',
            ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
          },
          payload: Buffer.from((await encapsulateRequest(keys[0]!, inner)).message),
        })
      ).statusCode;
    const fromRelay: number[] = [];
    const fromRelayBehindBalancer: number[] = [];
    const direct: number[] = [];
    const balancer: number[] = [];
    for (let i = 0; i < 13; i++) {
      fromRelay.push(await post('10.0.0.5'));
      fromRelayBehindBalancer.push(await post('10.0.0.7', '10.0.0.5'));
      direct.push(await post('192.0.2.9'));
      balancer.push(await post('10.0.0.7'));
    }
    assert.deepEqual(fromRelay, Array(13).fill(200));
    assert.deepEqual(fromRelayBehindBalancer, Array(13).fill(200), 'the relay is recognised behind a trusted load balancer');
    assert.deepEqual(direct, [...Array<number>(11).fill(200), 503, 503]);
    assert.deepEqual(balancer, [...Array<number>(11).fill(200), 503, 503], 'a trusted proxy is not a relay');
    assert.equal(control.gate.load, 0, 'inner requests are not counted, outer ones counted out');
    await control.close();
  });

  it('answers a hit and a miss in encapsulations of one size, so the relay cannot tell them apart', async () => {
    const app = createApp({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create() });
    const keys = parseKeyConfigs((await app.inject({ url: '/ohttp-keys' })).rawPayload);
    const size = async (prefix: Buffer) => {
      const inner = encodeBinaryHttpRequest({
        method: 'GET',
        scheme: 'http',
        authority: 'sb',
        path: `/v5/hashes:search?hashPrefixes=${prefix.toString('base64url')}`,
        headers: [],
        content: new Uint8Array(0),
      });
      const outer = await app.inject({
        method: 'POST',
        url: '/ohttp-gateway',
        headers: { 'content-type': 'message/ohttp-req' },
        payload: Buffer.from((await encapsulateRequest(keys[0]!, inner)).message),
      });
      return outer.rawPayload.length;
    };
    assert.equal(await size(PHISHING_PREFIX), await size(Buffer.from([1, 2, 3, 4])));
  });

  it('serves API paths only: no dot segments, escaped slashes, other methods or other routes', async () => {
    const app = createApp({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), adminToken: 'a-token-of-sixteen-chars' });
    const keys = parseKeyConfigs((await app.inject({ url: '/ohttp-keys' })).rawPayload);
    const innerStatus = async (method: string, path: string) => {
      const inner = encodeBinaryHttpRequest({
        method,
        scheme: 'http',
        authority: 'sb',
        path,
        headers: [['authorization', 'Bearer a-token-of-sixteen-chars']],
        content: new Uint8Array(0),
      });
      const { message, context } = await encapsulateRequest(keys[0]!, inner);
      const outer = await app.inject({
        method: 'POST',
        url: '/ohttp-gateway',
        headers: { 'content-type': 'message/ohttp-req' },
        payload: Buffer.from(message),
      });
      assert.equal(outer.statusCode, 200);
      return decodeBinaryHttpResponse(await decapsulateResponse(context, outer.rawPayload)).status;
    };
    for (const path of ['/v5/../admin/pause', '/v5/%2e%2e/metrics', '/v5/..%2fhealthz', '/v5/../ohttp-gateway', '/', '/status']) {
      assert.equal(await innerStatus(path.includes('admin') ? 'POST' : 'GET', path), 404, path);
    }
    assert.equal(await innerStatus('FOO', '/v5/hashLists'), 405);
    // v4's request-in-the-path form, standard base64 with its "/" escaped as clients send it.
    const find = toBinary(
      v4.FindFullHashesRequestSchema,
      create(v4.FindFullHashesRequestSchema, { threatInfo: { threatEntries: [{ hash: Buffer.from([0xff, 0xff, 0xfe, 0x3f]) }] } }),
    );
    const encoded = encodeURIComponent(Buffer.from(find).toString('base64'));
    assert.match(encoded, /%2F/);
    assert.equal(await innerStatus('GET', `/v4/encodedFullHashes/${encoded}`), 200);
    assert.equal(await innerStatus('GET', '/v5/hashLists'), 200);
    assert.deepEqual((await app.inject({ url: '/healthz' })).json(), { status: 'ok' }, 'nothing was paused');
  });
});

describe('the client through a relay', () => {
  it("never takes a relay's own answer for the server's", async () => {
    const forger = Fastify();
    forger.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    forger.post('/ohttp-relay', async (_request, reply) =>
      reply.header('content-type', 'application/json').send('{"cacheDuration":"86400s"}'),
    );
    await forger.listen({ host: '127.0.0.1', port: 0 });
    const port = (forger.server.address() as AddressInfo).port;
    const client = new SafeBrowsingClient({
      server: gatewayUrl,
      mode: 'nostorage',
      ohttp: { relay: `http://127.0.0.1:${port}/ohttp-relay`, keys: `${gatewayUrl}/ohttp-keys` },
    });
    const result = await client.checkUrl(URLS[0]!);
    assert.match(result.error?.message ?? '', /the relay answered HTTP 200, not an encapsulated answer/);
    await forger.close();
  });

  it('tries again with fresh keys only when the gateway says the key is unknown, not after any other refusal', async () => {
    const keys = await KeyRing.create();
    const attempts = async (problemType: string | undefined) => {
      const counts = { keys: 0, posts: 0 };
      const gatewayStandIn = Fastify();
      gatewayStandIn.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      gatewayStandIn.get('/ohttp-keys', async (_request, reply) => {
        counts.keys++;
        return reply.header('content-type', 'application/ohttp-keys').send(Buffer.from(encodeKeyConfigs(await keys.configs())));
      });
      gatewayStandIn.post('/ohttp-gateway', async (_request, reply) => {
        counts.posts++;
        return reply
          .code(400)
          .header('content-type', 'application/problem+json')
          .send(JSON.stringify({ ...(problemType === undefined ? {} : { type: problemType }), status: 400 }));
      });
      await gatewayStandIn.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(gatewayStandIn.server.address() as AddressInfo).port}`;
      const client = new SafeBrowsingClient({
        server: base,
        mode: 'nostorage',
        ohttp: { relay: `${base}/ohttp-gateway`, keys: `${base}/ohttp-keys` },
      });
      const result = await client.checkUrl(URLS[0]!);
      assert.match(result.error?.message ?? '', /HTTP 400/);
      await client.close();
      await gatewayStandIn.close();
      return counts;
    };
    assert.deepEqual(await attempts('https://iana.org/assignments/http-problem-types#ohttp-key'), { keys: 2, posts: 2 });
    assert.deepEqual(await attempts(undefined), { keys: 1, posts: 1 });
  });

  it("reads the gateway's keys again when its key is gone, and the search succeeds", async () => {
    const clock = new FakeClock(0);
    const ring = await KeyRing.create({ rotateMs: 1000, overlapMs: 0, clock });
    const server = createServer({ catalog: demoCatalog(), ohttpKeys: ring, port: 0 });
    const url = await server.listen();
    const client = new SafeBrowsingClient({
      server: url,
      mode: 'nostorage',
      ohttp: { relay: `${url}/ohttp-gateway`, keys: `${url}/ohttp-keys` },
    });
    assert.equal((await client.checkUrl(URLS[0]!)).verdict, 'UNSAFE');
    clock.advance(5000);
    const after = await client.checkUrl(URLS[1]!);
    assert.equal(after.error, undefined);
    assert.equal(after.verdict, 'UNSAFE');
    await server.close();
  });
});
