import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import type { DescMessage } from '@bufbuild/protobuf';
import fc from 'fast-check';
import * as v4 from '../../src/proto/v4.ts';
import * as v5 from '../../src/proto/v5.ts';
import { decodePayload, encodePayload } from '../../src/wire/payload.ts';
import { WireError } from '../../src/wire/wire-error.ts';
import { bytes, lengthField, packedField, unpackedField, varintField } from '../proto/hand-built.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const invalidArgument = (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT' && error.httpStatus === 400;

describe('encodePayload', () => {
  const response = create(v5.SearchHashesResponseSchema, { cacheDuration: { seconds: 300n } });

  it('binary: application/x-protobuf and the message bytes', () => {
    const payload = encodePayload(v5.SearchHashesResponseSchema, response, 'protobuf');
    assert.equal(payload.contentType, 'application/x-protobuf');
    assert.deepEqual(payload.body, bytes(lengthField(2, varintField(1, 300))));
  });

  it('JSON: application/json; charset=utf-8 and proto3 JSON', () => {
    const payload = encodePayload(v5.SearchHashesResponseSchema, response, 'json');
    assert.equal(payload.contentType, 'application/json; charset=utf-8');
    assert.equal(new TextDecoder().decode(payload.body), '{"cacheDuration":"300s"}');
  });

  it('an empty message is an empty binary body and {} in JSON', () => {
    const empty = create(v5.SearchHashesResponseSchema);
    assert.equal(encodePayload(v5.SearchHashesResponseSchema, empty, 'protobuf').body.length, 0);
    assert.equal(new TextDecoder().decode(encodePayload(v5.SearchHashesResponseSchema, empty, 'json').body), '{}');
  });
});

describe('decodePayload', () => {
  it('ignores REST-only JSON fields real clients send (apiClient, language, digest) and unknown enum names', () => {
    const body = utf8(
      JSON.stringify({
        client: { clientId: 'npm', clientVersion: '1' },
        apiClient: { clientId: 'x' },
        clientStates: ['c3RhdGU='],
        threatInfo: {
          threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING', 'SOMETHING_NEW'],
          platformTypes: ['ANY_PLATFORM'],
          threatEntryTypes: ['URL'],
          threatEntries: [{ hash: 'v9APjg==', digest: 'AAAA' }],
        },
      }),
    );
    const request = decodePayload(v4.FindFullHashesRequestSchema, body, 'json', 'the request body');
    assert.equal(request.client?.clientId, 'npm');
    assert.deepEqual(request.threatInfo?.threatTypes, [v4.ThreatType.MALWARE, v4.ThreatType.SOCIAL_ENGINEERING]);
    assert.deepEqual(request.threatInfo?.threatEntries[0]?.hash, new Uint8Array([0xbf, 0xd0, 0x0f, 0x8e]));
    const fetch = decodePayload(
      v4.FetchThreatListUpdatesRequestSchema,
      utf8('{"listUpdateRequests":[{"threatType":"MALWARE","constraints":{"language":"en","deviceLocation":"US","region":"US"}}]}'),
      'json',
      'the request body',
    );
    assert.equal(fetch.listUpdateRequests[0]?.constraints?.region, 'US');
  });

  it('reads repeated scalars unpacked (proto2 browsers) and packed (proto3)', () => {
    const unpacked = bytes(lengthField(3, [...unpackedField(1, [1, 5, 7]), ...unpackedField(2, [2, 8])]));
    const packed = bytes(lengthField(3, [...packedField(1, [1, 5, 7]), ...packedField(2, [2, 8])]));
    const a = decodePayload(v4.FindFullHashesRequestSchema, unpacked, 'protobuf', 'body');
    const b = decodePayload(v4.FindFullHashesRequestSchema, packed, 'protobuf', 'body');
    assert.deepEqual(a.threatInfo?.threatTypes, [1, 5, 7]);
    assert.deepEqual(a, b);
  });

  it('drops unknown binary fields rather than keeping them', () => {
    const request = decodePayload(v5.SearchHashesRequestSchema, bytes(varintField(9, 1), lengthField(1, [1, 2, 3, 4])), 'protobuf', 'body');
    assert.equal(request.$unknown, undefined);
    assert.equal(request.hashPrefixes.length, 1);
  });

  it('an empty body is the empty message in either encoding', () => {
    assert.deepEqual(decodePayload(v5.SearchHashesRequestSchema, new Uint8Array(), 'json', 'body'), create(v5.SearchHashesRequestSchema));
    assert.deepEqual(
      decodePayload(v5.SearchHashesRequestSchema, new Uint8Array(), 'protobuf', 'body'),
      create(v5.SearchHashesRequestSchema),
    );
  });

  const malformed: Array<[string, DescMessage, Uint8Array, 'json' | 'protobuf']> = [
    ['truncated protobuf (length past the end)', v4.FindFullHashesRequestSchema, bytes([0x1a, 0x10, 0x0a]), 'protobuf'],
    ['truncated varint', v4.FindFullHashesRequestSchema, bytes([0x08, 0x80]), 'protobuf'],
    ['invalid wire type', v4.FindFullHashesRequestSchema, bytes([0x0f]), 'protobuf'],
    ['invalid UTF-8 in a string field', v5.GetHashListRequestSchema, bytes(lengthField(1, [0xff, 0xfe])), 'protobuf'],
    ['field number 0', v5.GetHashListRequestSchema, bytes([0x02, 0x00]), 'protobuf'],
    ['groups nested past the recursion limit', v5.SearchHashesRequestSchema, new Uint8Array(100_000).fill(0x7b), 'protobuf'],
    ['invalid JSON', v4.FindFullHashesRequestSchema, utf8('{"client":'), 'json'],
    ['JSON array instead of an object', v4.FindFullHashesRequestSchema, utf8('[1,2]'), 'json'],
    ['JSON number for a message', v4.FindFullHashesRequestSchema, utf8('{"threatInfo":5}'), 'json'],
    ['JSON string for an int32', v5.ListHashListsRequestSchema, utf8('{"pageSize":"ten"}'), 'json'],
    ['JSON bytes that are not base64', v4.FindFullHashesRequestSchema, utf8('{"clientStates":["!!"]}'), 'json'],
    ['JSON that is not UTF-8', v4.FindFullHashesRequestSchema, bytes([0x7b, 0xff, 0x7d]), 'json'],
    ["JSPB, Google's positional arrays", v4.FindFullHashesRequestSchema, utf8('[null,[]]'), 'json'],
  ];
  for (const [name, schema, body, encoding] of malformed) {
    it(`refuses ${name} with INVALID_ARGUMENT`, () => {
      assert.throws(
        () => decodePayload(schema, body, encoding, 'the request body'),
        (error: unknown) => {
          assert.ok(invalidArgument(error), String(error));
          assert.match((error as Error).message, /^the request body is not a valid (binary protobuf|proto3 JSON) google\./);
          return true;
        },
      );
    });
  }

  it('survives deeply nested JSON in an ignored field', () => {
    const deep = `{"apiClient":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    try {
      decodePayload(v4.FindFullHashesRequestSchema, utf8(deep), 'json', 'body');
    } catch (error) {
      assert.ok(invalidArgument(error));
    }
  });

  const schemas = [
    v5.SearchHashesRequestSchema,
    v5.BatchGetHashListsRequestSchema,
    v4.FetchThreatListUpdatesRequestSchema,
    v4.FindFullHashesRequestSchema,
    v4.ThreatHitSchema,
  ];

  it('property: arbitrary bytes decode or raise INVALID_ARGUMENT, in both encodings', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...schemas),
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom('json' as const, 'protobuf' as const),
        (schema, body, encoding) => {
          try {
            decodePayload(schema, body, encoding, 'body');
          } catch (error) {
            assert.ok(invalidArgument(error), String(error));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('property: corrupted valid messages decode or raise INVALID_ARGUMENT', () => {
    const valid = toBinary(
      v4.FetchThreatListUpdatesRequestSchema,
      create(v4.FetchThreatListUpdatesRequestSchema, {
        client: { clientId: 'c', clientVersion: '1' },
        listUpdateRequests: [
          {
            threatType: 5,
            platformType: 2,
            threatEntryType: 1,
            state: new Uint8Array([1, 2]),
            constraints: { supportedCompressions: [2] },
          },
        ],
      }),
    );
    fc.assert(
      fc.property(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 }), fc.nat(valid.length), (at, value, cut) => {
        const corrupted = valid.slice(0, Math.max(cut, at + 1));
        corrupted[at] = value;
        try {
          decodePayload(v4.FetchThreatListUpdatesRequestSchema, corrupted, 'protobuf', 'body');
        } catch (error) {
          assert.ok(invalidArgument(error), String(error));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('property: arbitrary JSON values decode or raise INVALID_ARGUMENT', () => {
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.json(), (schema, json) => {
        try {
          decodePayload(schema, utf8(json), 'json', 'body');
        } catch (error) {
          assert.ok(invalidArgument(error), String(error));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
