import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary } from '@bufbuild/protobuf';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { encodeWireResponse } from '../../../src/wire/rest/server-response.ts';

describe('encodeWireResponse', () => {
  const lists = create(v5.BatchGetHashListsResponseSchema, {
    hashLists: [
      { name: 'se-4b', version: new Uint8Array([1]), sha256Checksum: new Uint8Array(32), minimumWaitDuration: { seconds: 1800n } },
      { name: 'mw-4b', version: new Uint8Array([2]), partialUpdate: true },
    ],
  });

  it('binary for browsers: the lists in request order', () => {
    const payload = encodeWireResponse('BatchGetHashLists', lists, 'protobuf');
    assert.equal(payload.contentType, 'application/x-protobuf');
    const decoded = fromBinary(v5.BatchGetHashListsResponseSchema, payload.body);
    assert.deepEqual(
      decoded.hashLists.map((l) => l.name),
      ['se-4b', 'mw-4b'],
    );
    assert.deepEqual(decoded, lists);
  });

  it('proto3 JSON for REST clients', () => {
    const payload = encodeWireResponse('BatchGetHashLists', lists, 'json');
    assert.equal(payload.contentType, 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(new TextDecoder().decode(payload.body)), {
      hashLists: [
        { name: 'se-4b', version: 'AQ==', sha256Checksum: 'A'.repeat(43) + '=', minimumWaitDuration: '1800s' },
        { name: 'mw-4b', version: 'Ag==', partialUpdate: true },
      ],
    });
  });

  it("v4: the browsers' threat type 5 by name, durations as strings", () => {
    const response = create(v4.FetchThreatListUpdatesResponseSchema, {
      listUpdateResponses: [
        {
          threatType: 5,
          platformType: v4.PlatformType.LINUX,
          threatEntryType: v4.ThreatEntryType.URL,
          newClientState: new Uint8Array([1]),
        },
      ],
      minimumWaitDuration: { seconds: 300n },
    });
    const json: unknown = JSON.parse(new TextDecoder().decode(encodeWireResponse('FetchThreatListUpdates', response, 'json').body));
    assert.deepEqual(json, {
      listUpdateResponses: [
        { threatType: 'SOCIAL_ENGINEERING_INTERNAL', platformType: 'LINUX', threatEntryType: 'URL', newClientState: 'AQ==' },
      ],
      minimumWaitDuration: '300s',
    });
  });
});
