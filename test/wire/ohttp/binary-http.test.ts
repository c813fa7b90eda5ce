import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decodeBinaryHttpRequest,
  decodeBinaryHttpResponse,
  encodeBinaryHttpRequest,
  encodeBinaryHttpResponse,
} from '../../../src/wire/ohttp/binary-http.ts';
import { BinaryHttpError } from '../../../src/wire/wire-error.ts';

const token = fc.stringMatching(/^[A-Z]{1,8}$/);
const fields = fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.string({ maxLength: 40 })), { maxLength: 5 });

describe('binary HTTP (RFC 9292, known length)', () => {
  it('reads back any request and response it writes, with padding after them', () => {
    fc.assert(
      fc.property(
        fc.record({
          method: token,
          scheme: fc.constantFrom('https', 'http'),
          authority: fc.string({ maxLength: 30 }),
          path: fc.string({ maxLength: 200 }).map((p) => `/${p}`),
          headers: fields,
          content: fc.uint8Array({ maxLength: 100 }),
        }),
        fc.nat({ max: 8 }),
        (request, padding) => {
          const bytes = Buffer.concat([encodeBinaryHttpRequest(request), Buffer.alloc(padding)]);
          assert.deepEqual(
            { ...decodeBinaryHttpRequest(bytes), content: Buffer.from(decodeBinaryHttpRequest(bytes).content) },
            { ...request, content: Buffer.from(request.content) },
          );
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.record({ status: fc.integer({ min: 200, max: 599 }), headers: fields, content: fc.uint8Array({ maxLength: 300 }) }),
        (response) => {
          const decoded = decodeBinaryHttpResponse(encodeBinaryHttpResponse(response));
          assert.deepEqual({ ...decoded, content: Buffer.from(decoded.content) }, { ...response, content: Buffer.from(response.content) });
        },
      ),
    );
  });

  it("reads RFC 9458's example request, truncated after its control data", () => {
    assert.deepEqual(decodeBinaryHttpRequest(Buffer.from('00034745540568747470730b6578616d706c652e636f6d012f', 'hex')), {
      method: 'GET',
      scheme: 'https',
      authority: 'example.com',
      path: '/',
      headers: [],
      content: new Uint8Array(0),
    });
    assert.equal(decodeBinaryHttpResponse(Buffer.from('0140c8', 'hex')).status, 200);
  });

  it('skips interim responses', () => {
    const interim = Buffer.concat([
      Buffer.from([0x01, 0x40, 0x67, 0x00]),
      Buffer.from(encodeBinaryHttpResponse({ status: 204, headers: [], content: new Uint8Array(0) })).subarray(1),
    ]);
    assert.equal(decodeBinaryHttpResponse(interim).status, 204);
  });

  it('refuses anything else with a BinaryHttpError, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        for (const decode of [decodeBinaryHttpRequest, decodeBinaryHttpResponse]) {
          try {
            decode(bytes);
          } catch (error) {
            assert.ok(error instanceof BinaryHttpError, String(error));
          }
        }
      }),
      { numRuns: 2000 },
    );
    assert.throws(() => decodeBinaryHttpRequest(Buffer.from([0x02])), /framing indicator 2/);
    assert.throws(
      () =>
        decodeBinaryHttpRequest(
          Buffer.concat([
            Buffer.from(
              encodeBinaryHttpRequest({
                method: 'GET',
                scheme: 'https',
                authority: 'a',
                path: '/',
                headers: [],
                content: new Uint8Array(0),
              }),
            ),
            Buffer.from([1]),
          ]),
        ),
      /not padding/,
    );
  });
});
