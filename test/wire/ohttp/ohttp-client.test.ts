// The client's Oblivious HTTP on WebCrypto, held to RFC 9458's worked example byte for byte and to the
// gateway's separate implementation (@hpke/core and node:crypto, wire/ohttp/ohttp.ts) for any message.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBinaryHttpResponse } from '../../../src/wire/ohttp/binary-http.ts';
import { decapsulateResponse, encapsulateRequest } from '../../../src/wire/ohttp/ohttp-client.ts';
import { encodeKeyConfigs, parseKeyConfigs } from '../../../src/wire/ohttp/ohttp-keys.ts';
import { decapsulateRequest, encapsulateResponse, generateGatewayKey, importGatewayKey } from '../../../src/wire/ohttp/ohttp.ts';
import { OhttpError } from '../../../src/wire/wire-error.ts';

// RFC 9458 Appendix A, the complete example of a request and response.
const A = JSON.parse(readFileSync(new URL('../fixtures/rfc9458-appendix-a.json', import.meta.url), 'utf8')) as Record<string, string>;
const hex = (name: string) => new Uint8Array(Buffer.from(A[name]!, 'hex'));
const exampleConfig = () => {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(hex('keyConfig').length);
  return parseKeyConfigs(Buffer.concat([length, hex('keyConfig')]))[0]!;
};

describe("the client's Oblivious HTTP, known answers of RFC 9458 Appendix A", () => {
  it("encapsulates the request byte for byte with the example's ephemeral key", async () => {
    const { message, context } = await encapsulateRequest(exampleConfig(), hex('request'), hex('skE'));
    assert.equal(Buffer.from(message).toString('hex'), A.encapsulatedRequest);
    assert.equal(Buffer.from(context.enc).toString('hex'), A.enc);
    assert.equal(Buffer.from(context.secret).toString('hex'), A.exportedSecret);
  });

  it("reads the example's encapsulated response", async () => {
    const { context } = await encapsulateRequest(exampleConfig(), hex('request'), hex('skE'));
    const answer = await decapsulateResponse(context, hex('encapsulatedResponse'));
    assert.equal(Buffer.from(answer).toString('hex'), A.response);
    assert.deepEqual(decodeBinaryHttpResponse(answer), { status: 200, headers: [], content: new Uint8Array(0) });
  });
});

describe("the client's Oblivious HTTP against the gateway's implementation", () => {
  it('carries any request and response both ways, fresh keys each time', async () => {
    const key = await generateGatewayKey(7);
    const [config] = parseKeyConfigs(encodeKeyConfigs([key.config]));
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), fc.uint8Array({ maxLength: 600 }), async (request, response) => {
        const client = await encapsulateRequest(config!, request);
        const gateway = await decapsulateRequest([key], client.message);
        assert.deepEqual(Buffer.from(gateway.request), Buffer.from(request));
        const answer = await decapsulateResponse(client.context, await encapsulateResponse(gateway.context, response));
        assert.deepEqual(Buffer.from(answer), Buffer.from(response));
      }),
      { numRuns: 60 },
    );
  });

  it('encrypts to the key it is given: another gateway key cannot read the request', async () => {
    const key = await importGatewayKey(1, hex('skR'));
    const other = await generateGatewayKey(1);
    const { message } = await encapsulateRequest(key.config, Uint8Array.of(1, 2, 3));
    assert.deepEqual(Buffer.from((await decapsulateRequest([key], message)).request), Buffer.of(1, 2, 3));
    await assert.rejects(decapsulateRequest([other], message), (e: unknown) => e instanceof OhttpError && e.reason === 'decryption');
  });

  it('refuses a garbled or truncated response with an OhttpError', async () => {
    const key = await generateGatewayKey(3);
    const client = await encapsulateRequest(key.config, Uint8Array.of(9));
    const gateway = await decapsulateRequest([key], client.message);
    const response = await encapsulateResponse(gateway.context, new TextEncoder().encode('an answer'));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: response.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const garbled = Uint8Array.from(response);
        garbled[at]! ^= flip;
        await assert.rejects(
          decapsulateResponse(client.context, garbled),
          (e: unknown) => e instanceof OhttpError && e.reason === 'decryption',
        );
      }),
      { numRuns: 60 },
    );
    await assert.rejects(
      decapsulateResponse(client.context, response.subarray(0, 31)),
      (e: unknown) => e instanceof OhttpError && e.reason === 'malformed',
    );
  });

  it('refuses a configuration without its suite, or with a public key that is no X25519 point', async () => {
    const key = await generateGatewayKey(4);
    await assert.rejects(
      encapsulateRequest({ ...key.config, suites: [{ kdfId: 1, aeadId: 3 }] }, Uint8Array.of(1)),
      (e: unknown) => e instanceof OhttpError && e.reason === 'unsupported',
    );
    // The all-zero point has small order: X25519 with it gives all zeros, which WebCrypto refuses.
    await assert.rejects(
      encapsulateRequest({ ...key.config, publicKey: new Uint8Array(32) }, Uint8Array.of(1)),
      (e: unknown) => e instanceof OhttpError && e.reason === 'unsupported',
    );
  });
});
