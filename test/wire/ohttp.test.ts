import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBinaryHttpRequest, decodeBinaryHttpResponse } from '../../src/wire/binary-http.ts';
import {
  decapsulateRequest,
  decapsulateResponse,
  encapsulateRequest,
  encapsulateResponse,
  encodeKeyConfigs,
  generateGatewayKey,
  importGatewayKey,
  parseKeyConfigs,
} from '../../src/wire/ohttp.ts';
import { OhttpError } from '../../src/wire/wire-error.ts';

// RFC 9458 Appendix A, the complete example of a request and response.
const A = JSON.parse(readFileSync(new URL('./fixtures/rfc9458-appendix-a.json', import.meta.url), 'utf8')) as Record<string, string>;
const hex = (name: string) => new Uint8Array(Buffer.from(A[name]!, 'hex'));

describe('Oblivious HTTP, known answers of RFC 9458 Appendix A', () => {
  it("reads the gateway's key configuration and derives its public key from skR", async () => {
    const key = await importGatewayKey(1, hex('skR'));
    assert.deepEqual(Buffer.from(key.config.publicKey), Buffer.from(hex('publicKey')));
    const length = Buffer.alloc(2);
    length.writeUInt16BE(hex('keyConfig').length);
    const [config] = parseKeyConfigs(Buffer.concat([length, hex('keyConfig')]));
    assert.equal(config!.keyId, 1);
    assert.deepEqual(Buffer.from(config!.publicKey), Buffer.from(hex('publicKey')));
    assert.deepEqual(config!.suites, [
      { kdfId: 1, aeadId: 1 },
      { kdfId: 1, aeadId: 3 },
    ]);
  });

  it("encapsulates the request byte for byte with the example's ephemeral key, and the gateway reads it", async () => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(hex('keyConfig').length);
    const [config] = parseKeyConfigs(Buffer.concat([length, hex('keyConfig')]));
    const { message } = await encapsulateRequest(config!, hex('request'), hex('skE'));
    assert.equal(Buffer.from(message).toString('hex'), A.encapsulatedRequest);
    const key = await importGatewayKey(1, hex('skR'));
    const { request } = await decapsulateRequest([key], hex('encapsulatedRequest'));
    assert.deepEqual(Buffer.from(request), Buffer.from(hex('request')));
    assert.deepEqual(decodeBinaryHttpRequest(request), {
      method: 'GET',
      scheme: 'https',
      authority: 'example.com',
      path: '/',
      headers: [],
      content: new Uint8Array(0),
    });
  });

  it("encapsulates the response byte for byte with the example's nonce, and the client reads it", async () => {
    const key = await importGatewayKey(1, hex('skR'));
    const { context } = await decapsulateRequest([key], hex('encapsulatedRequest'));
    const response = await encapsulateResponse(context, hex('response'), hex('responseNonce'));
    assert.equal(Buffer.from(response).toString('hex'), A.encapsulatedResponse);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(hex('keyConfig').length);
    const [config] = parseKeyConfigs(Buffer.concat([length, hex('keyConfig')]));
    const client = await encapsulateRequest(config!, hex('request'), hex('skE'));
    const answer = await decapsulateResponse(client.context, hex('encapsulatedResponse'));
    assert.deepEqual(decodeBinaryHttpResponse(answer), { status: 200, headers: [], content: new Uint8Array(0) });
  });
});

describe('Oblivious HTTP, round trips and refusals', () => {
  it('carries any request and response between a client and a gateway with a fresh key', async () => {
    const key = await generateGatewayKey(7);
    const [config] = parseKeyConfigs(encodeKeyConfigs([key.config]));
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), async (request, response) => {
        const client = await encapsulateRequest(config!, request);
        const gateway = await decapsulateRequest([key], client.message);
        assert.deepEqual(Buffer.from(gateway.request), Buffer.from(request));
        const answer = await decapsulateResponse(client.context, await encapsulateResponse(gateway.context, response));
        assert.deepEqual(Buffer.from(answer), Buffer.from(response));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses garbled, truncated, or unknown-key requests with an OhttpError, never anything else', async () => {
    const key = await generateGatewayKey(7);
    const { message } = await encapsulateRequest(key.config, Buffer.from('hello'));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: message.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const garbled = Uint8Array.from(message);
        garbled[at]! ^= flip;
        await assert.rejects(decapsulateRequest([key], garbled), OhttpError);
      }),
      { numRuns: 100 },
    );
    await assert.rejects(
      decapsulateRequest([key], message.subarray(0, 20)),
      (e: unknown) => e instanceof OhttpError && e.reason === 'malformed',
    );
    const other = await generateGatewayKey(8);
    await assert.rejects(decapsulateRequest([other], message), (e: unknown) => e instanceof OhttpError && e.reason === 'unknown-key');
  });
});
