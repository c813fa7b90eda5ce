// The gateway's side of Oblivious HTTP; the client's is held to it in ohttp-client.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBinaryHttpRequest } from '../../../src/wire/ohttp/binary-http.ts';
import { encapsulateRequest } from '../../../src/wire/ohttp/ohttp-client.ts';
import { decapsulateRequest, encapsulateResponse, generateGatewayKey, importGatewayKey } from '../../../src/wire/ohttp/ohttp.ts';
import { OhttpError } from '../../../src/wire/wire-error.ts';

// RFC 9458 Appendix A, the complete example of a request and response.
const A = JSON.parse(readFileSync(new URL('../fixtures/rfc9458-appendix-a.json', import.meta.url), 'utf8')) as Record<string, string>;
const hex = (name: string) => new Uint8Array(Buffer.from(A[name]!, 'hex'));

describe("the gateway's Oblivious HTTP, known answers of RFC 9458 Appendix A", () => {
  it('derives its public key from skR', async () => {
    const key = await importGatewayKey(1, hex('skR'));
    assert.deepEqual(Buffer.from(key.config.publicKey), Buffer.from(hex('publicKey')));
  });

  it("reads the example's encapsulated request", async () => {
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

  it("encapsulates the response byte for byte with the example's nonce", async () => {
    const key = await importGatewayKey(1, hex('skR'));
    const { context } = await decapsulateRequest([key], hex('encapsulatedRequest'));
    const response = await encapsulateResponse(context, hex('response'), hex('responseNonce'));
    assert.equal(Buffer.from(response).toString('hex'), A.encapsulatedResponse);
  });
});

describe("the gateway's refusals", () => {
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
