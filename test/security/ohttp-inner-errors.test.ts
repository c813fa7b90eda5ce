// What a relay can read of the gateway's refusals (SB-2): a request that decrypts but is no usable
// binary HTTP request, or asks for something the gateway does not serve, is answered inside the
// encapsulation, and the answer does not quote it. Run through a real relay in front of a real
// gateway on loopback, with everything the relay passes back recorded.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { KeyRing } from '../../src/server/ohttp/key-ring.ts';
import { createRelayApp } from '../../src/server/ohttp/relay.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { decodeBinaryHttpResponse, encodeBinaryHttpRequest } from '../../src/wire/ohttp/binary-http.ts';
import { decapsulateResponse, encapsulateRequest } from '../../src/wire/ohttp/ohttp-client.ts';
import { type KeyConfig, parseKeyConfigs } from '../../src/wire/ohttp/ohttp-keys.ts';
import { demoCatalog } from '../server/fixture.ts';

/** Stands for what a client asks: none of it may reach the relay readably. */
const MARKER = 'SECRET-MARKER';

let gateway: SafeBrowsingServer;
let relay: FastifyInstance;
let relayUrl: string;
let keys: KeyConfig[];
/** Every answer the relay passed back to its client, as bytes. */
const relayView: Buffer[] = [];

before(async () => {
  gateway = createServer({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), port: 0 });
  const gatewayUrl = await gateway.listen();
  keys = parseKeyConfigs(new Uint8Array(await (await fetch(`${gatewayUrl}/ohttp-keys`)).arrayBuffer()));
  relay = createRelayApp({ gateway: `${gatewayUrl}/ohttp-gateway` });
  relay.addHook('onSend', async (_request, reply, payload) => {
    relayView.push(
      Buffer.concat([Buffer.from(JSON.stringify(reply.getHeaders())), Buffer.isBuffer(payload) ? payload : Buffer.from(String(payload))]),
    );
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

const request = (method: string, path: string) =>
  encodeBinaryHttpRequest({ method, scheme: 'https', authority: 'sb', path, headers: [['x-note', MARKER]], content: Buffer.from(MARKER) });
const valid = request('GET', '/v5/hashLists');

/** Inner requests that decrypt but cannot be served, each with the status its answer must have inside. */
const CASES: { what: string; inner: Uint8Array; status: number; code?: string }[] = [
  { what: 'a method that is no HTTP token', inner: request(`${MARKER} GET`, '/v5/hashLists'), status: 400, code: 'SBKIT_BINARY_HTTP' },
  {
    what: 'another framing indicator',
    inner: Buffer.concat([Buffer.from([2]), Buffer.from(MARKER)]),
    status: 400,
    code: 'SBKIT_BINARY_HTTP',
  },
  { what: 'a message cut short', inner: request('GET', `/v5/${MARKER}`).subarray(0, 20), status: 400, code: 'SBKIT_BINARY_HTTP' },
  { what: 'bytes after the message', inner: Buffer.concat([valid, Buffer.from(MARKER)]), status: 400, code: 'SBKIT_BINARY_HTTP' },
  { what: 'a path outside the API', inner: request('GET', `/admin/${MARKER}`), status: 404 },
  { what: 'a method the API does not take', inner: request('DELETE', `/v5/${MARKER}`), status: 405 },
];

describe('refusals of a decrypted request, through a relay', () => {
  for (const { what, inner, status, code } of CASES) {
    it(`answers ${what} with ${status} inside the encapsulation, quoting nothing of the request`, async () => {
      relayView.length = 0;
      const { message, context } = await encapsulateRequest(keys[0]!, inner);
      const outer = await fetch(relayUrl, { method: 'POST', headers: { 'content-type': 'message/ohttp-req' }, body: message });
      const outerBytes = Buffer.from(await outer.arrayBuffer());
      assert.equal(outer.status, 200, `the relay was told in the clear: ${outerBytes.toString('latin1').slice(0, 200)}`);
      assert.equal(outer.headers.get('content-type'), 'message/ohttp-res');
      assert.equal(relayView.length, 1);
      assert.ok(!relayView[0]!.toString('latin1').includes(MARKER), 'the relay saw the request');
      const answer = decodeBinaryHttpResponse(await decapsulateResponse(context, outerBytes));
      assert.equal(answer.status, status);
      const body = Buffer.from(answer.content).toString('utf8');
      assert.ok(!body.includes(MARKER) && !body.includes('SECRET'), `the answer quotes the request: ${body}`);
      if (code !== undefined) assert.equal((JSON.parse(body) as { code: string }).code, code);
    });
  }

  it('still tells the relay in the clear what it can know: a body that is no encapsulation', async () => {
    const outer = await fetch(relayUrl, { method: 'POST', headers: { 'content-type': 'message/ohttp-req' }, body: Buffer.from('x') });
    assert.equal(outer.status, 400);
    assert.equal(((await outer.json()) as { code: string }).code, 'SBKIT_OHTTP_MALFORMED');
  });
});
