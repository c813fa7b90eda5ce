import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import * as v5 from '../../../src/proto/v5.ts';
import { decodeWireResponse } from '../../../src/wire/rest/client-response.ts';
import { WireResponseError, WireError, renderWireError } from '../../../src/wire/wire-error.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const response = create(v5.SearchHashesResponseSchema, {
  fullHashes: [{ fullHash: new Uint8Array(32).fill(7), fullHashDetails: [{ threatType: v5.ThreatType.MALWARE }] }],
  cacheDuration: { seconds: 300n },
});

describe('decodeWireResponse', () => {
  it('reads binary protobuf by Content-Type', () => {
    const decoded = decodeWireResponse(
      'SearchHashes',
      { httpStatus: 200, contentType: 'application/x-protobuf', body: toBinary(v5.SearchHashesResponseSchema, response) },
      'json',
    );
    assert.deepEqual(decoded, response);
  });

  it('reads proto3 JSON by Content-Type, ignoring fields it does not know', () => {
    const body = utf8(
      JSON.stringify({
        fullHashes: [
          { fullHash: Buffer.from(new Uint8Array(32).fill(7)).toString('base64'), fullHashDetails: [{ threatType: 'MALWARE' }] },
        ],
        cacheDuration: '300s',
        newField: 1,
      }),
    );
    assert.deepEqual(
      decodeWireResponse('SearchHashes', { httpStatus: 200, contentType: 'application/json; charset=UTF-8', body }, 'protobuf'),
      response,
    );
  });

  it('falls back to the requested encoding without a known Content-Type', () => {
    const body = toBinary(v5.SearchHashesResponseSchema, response);
    assert.deepEqual(decodeWireResponse('SearchHashes', { httpStatus: 200, contentType: undefined, body }, 'protobuf'), response);
    assert.deepEqual(decodeWireResponse('SearchHashes', { httpStatus: 200, contentType: 'text/plain', body }, 'protobuf'), response);
  });

  it('an empty 200 body is the empty message', () => {
    assert.deepEqual(
      decodeWireResponse(
        'BatchGetHashLists',
        { httpStatus: 200, contentType: 'application/x-protobuf', body: new Uint8Array() },
        'protobuf',
      ),
      create(v5.BatchGetHashListsResponseSchema),
    );
  });

  it('reports a Google-style error body with status and message', () => {
    const rendered = renderWireError(new WireError('INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'));
    assert.throws(
      () =>
        decodeWireResponse(
          'SearchHashes',
          { httpStatus: rendered.httpStatus, contentType: rendered.headers['content-type'], body: rendered.body },
          'protobuf',
        ),
      (error: unknown) => {
        assert.ok(error instanceof WireResponseError);
        assert.equal(error.kind, 'error-status');
        assert.equal(error.httpStatus, 400);
        assert.equal(error.status, 'INVALID_ARGUMENT');
        assert.equal(error.message, 'the server answered HTTP 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.');
        return true;
      },
    );
  });

  it('reports any other non-200 answer by its status alone (RF-4: every non-200 is a failure)', () => {
    for (const [httpStatus, body] of [
      [503, utf8('<html>Service Unavailable</html>')],
      [204, new Uint8Array()],
      [429, utf8('{"error":"quota"}')],
    ] as const) {
      assert.throws(
        () => decodeWireResponse('SearchHashes', { httpStatus, contentType: 'text/html', body }, 'protobuf'),
        (error: unknown) =>
          error instanceof WireResponseError &&
          error.kind === 'error-status' &&
          error.status === undefined &&
          error.message === `the server answered HTTP ${httpStatus}`,
      );
    }
  });

  it('reports a 200 whose body does not parse as malformed', () => {
    assert.throws(
      () =>
        decodeWireResponse(
          'SearchHashes',
          { httpStatus: 200, contentType: 'application/x-protobuf', body: new Uint8Array([0x0a, 0x40, 0x01]) },
          'protobuf',
        ),
      (error: unknown) => {
        assert.ok(error instanceof WireResponseError);
        assert.equal(error.kind, 'malformed-body');
        assert.match(
          error.message,
          /the server's SearchHashes response is not a valid binary protobuf google\.security\.safebrowsing\.v5\.SearchHashesResponse/,
        );
        return true;
      },
    );
    assert.throws(
      () => decodeWireResponse('SearchHashes', { httpStatus: 200, contentType: 'application/json', body: utf8('<html>') }, 'json'),
      WireResponseError,
    );
  });
});
