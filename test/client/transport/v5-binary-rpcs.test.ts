import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import { binaryV5Rpcs } from '../../../src/client/transport/v5-binary-rpcs.ts';
import type { Sender } from '../../../src/client/transport/rpc.ts';
import type { ServerSettings } from '../../../src/client/transport/transport.ts';
import { SearchHashesResponseSchema } from '../../../src/proto/v5.ts';
import { WireResponseError } from '../../../src/wire/wire-error.ts';
import type { WireResponse } from '../../../src/wire/rest/client-response.ts';

const SETTINGS: ServerSettings = {
  serverUrl: 'http://sb.test',
  apiKey: 'k',
  encoding: 'protobuf',
  userAgent: 'test',
  timeoutMs: 1000,
  maxResponseBytes: 1000,
  sizeConstraints: { maxUpdateEntries: 0, maxDatabaseEntries: 0 },
  maxListEntries: 1000,
};

/** A sender that records the URLs asked and gives one answer. */
function answering(response: WireResponse): { send: Sender; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    send: (request) => {
      asked.push(request.url);
      return Promise.resolve(response);
    },
  };
}

describe('v5 RPCs in binary protobuf', () => {
  it('searches by prefix and reads the binary answer', async () => {
    const body = toBinary(
      SearchHashesResponseSchema,
      create(SearchHashesResponseSchema, { fullHashes: [{ fullHash: new Uint8Array(32).fill(7), fullHashDetails: [{ threatType: 2 }] }] }),
    );
    const { send, asked } = answering({ httpStatus: 200, contentType: 'application/x-protobuf', body });
    const answer = await binaryV5Rpcs(SETTINGS, send).searchHashes([0x01020304]);
    assert.deepEqual(asked, ['http://sb.test/v5/hashes:search?key=k&alt=proto&hashPrefixes=AQIDBA']);
    assert.equal(answer.fullHashes[0]!.fullHashDetails[0]!.threatType, 2);
  });

  it('an error status is the WireResponseError Node’s client gives, Retry-After and the server’s words kept', async () => {
    const body = new TextEncoder().encode('{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}');
    const { send } = answering({ httpStatus: 429, contentType: 'application/json', body, retryAfter: '30' });
    await assert.rejects(
      binaryV5Rpcs(SETTINGS, send).batchGetHashLists([{ name: 'gc-32b', version: new Uint8Array(0), width: 32 }]),
      (err) => {
        assert.ok(err instanceof WireResponseError);
        assert.equal(err.retryAfter, '30');
        assert.match(err.message, /HTTP 429 RESOURCE_EXHAUSTED: slow down/);
        return true;
      },
    );
  });

  it('hands a JSON answer to the JSON reader when one is given, and only a JSON one', async () => {
    const read: WireResponse[] = [];
    const fromJson = { fullHashes: [], cacheDuration: { seconds: 60n, nanos: 0 } };
    const json = {
      searchHashes: (response: WireResponse) => {
        read.push(response);
        return Promise.resolve(fromJson);
      },
      batchGetHashLists: () => Promise.reject(new Error('not asked')),
      listHashLists: () => Promise.reject(new Error('not asked')),
    };
    const jsonAnswer = { httpStatus: 200, contentType: 'application/json', body: new TextEncoder().encode('{"cacheDuration":"60s"}') };
    assert.equal(await binaryV5Rpcs(SETTINGS, answering(jsonAnswer).send, { json }).searchHashes([1]), fromJson);
    assert.deepEqual(read, [jsonAnswer]);
    const binary = { httpStatus: 200, contentType: 'application/x-protobuf', body: new Uint8Array(0) };
    assert.deepEqual(await binaryV5Rpcs(SETTINGS, answering(binary).send, { json }).searchHashes([1]), {
      fullHashes: [],
      cacheDuration: undefined,
    });
    assert.equal(read.length, 1);
  });

  it('sends searches by the search sender when one is given, list updates by the other', async () => {
    const empty = { httpStatus: 200, contentType: 'application/x-protobuf', body: new Uint8Array(0) };
    const direct = answering(empty);
    const relayed = answering(empty);
    const rpcs = binaryV5Rpcs(SETTINGS, direct.send, { searchSender: relayed.send });
    await rpcs.searchHashes([1]);
    await rpcs.batchGetHashLists([{ name: 'gc-32b', version: new Uint8Array(0), width: 32 }]);
    assert.deepEqual(
      relayed.asked.map((url) => new URL(url).pathname),
      ['/v5/hashes:search'],
    );
    assert.deepEqual(
      direct.asked.map((url) => new URL(url).pathname),
      ['/v5/hashLists:batchGet'],
    );
  });

  it('a JSON answer or a broken body is a malformed-body WireResponseError', async () => {
    for (const response of [
      { httpStatus: 200, contentType: 'application/json', body: new TextEncoder().encode('{}') },
      { httpStatus: 200, contentType: 'application/x-protobuf', body: Uint8Array.from([0x0a, 0x09, 0x01]) },
    ]) {
      await assert.rejects(binaryV5Rpcs(SETTINGS, answering(response).send).searchHashes([1]), (err) => {
        assert.ok(err instanceof WireResponseError);
        assert.equal(err.code, 'SBKIT_WIRE_RESPONSE_MALFORMED_BODY');
        return true;
      });
    }
  });
});
