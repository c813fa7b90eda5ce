import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import * as v4 from '../../src/proto/v4.ts';
import { bytes, lengthField, packedField, unpackedField, varintField } from './hand-built.ts';

describe("v4 enums: REST names plus the browsers' values (docs/api.md §2, §3 pitfall 3)", () => {
  it('keeps the public REST numbers for the REST names', () => {
    assert.equal(v4.ThreatType.MALWARE, 1);
    assert.equal(v4.ThreatType.SOCIAL_ENGINEERING, 2);
    assert.equal(v4.ThreatType.UNWANTED_SOFTWARE, 3);
    assert.equal(v4.ThreatType.POTENTIALLY_HARMFUL_APPLICATION, 4);
    assert.equal(v4.PlatformType.LINUX, 2);
    assert.equal(v4.PlatformType.ALL_PLATFORMS, 7);
    assert.equal(v4.ThreatEntryType.IP_RANGE, 3);
    assert.equal(v4.CompressionType.RICE, 2);
  });

  it('names every value Chromium and Firefox send', () => {
    assert.equal(v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL, 5);
    assert.equal(v4.ThreatType.MALICIOUS_BINARY, 7);
    assert.equal(v4.ThreatType.CSD_DOWNLOAD_ALLOWLIST, 9);
    assert.equal(v4.PlatformType.CHROME, 8);
    assert.equal(v4.ThreatEntryType.CHROME_EXTENSION, 4);
    assert.equal(v4.ThreatEntryType.FILENAME, 5);
    assert.equal(v4.ThreatEntryType.CERT, 6);
    for (const n of [5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17]) {
      assert.equal(typeof v4.ThreatType[n], 'string', `threat type ${n} has a name`);
    }
  });

  it("round-trips the browsers' SOCIAL_ENGINEERING (5) by name through JSON and by number through binary", () => {
    const descriptor = create(v4.ThreatListDescriptorSchema, {
      threatType: 5,
      platformType: v4.PlatformType.CHROME,
      threatEntryType: v4.ThreatEntryType.CHROME_EXTENSION,
    });
    const json = toJson(v4.ThreatListDescriptorSchema, descriptor);
    assert.deepEqual(json, { threatType: 'SOCIAL_ENGINEERING_INTERNAL', platformType: 'CHROME', threatEntryType: 'CHROME_EXTENSION' });
    assert.equal(fromJson(v4.ThreatListDescriptorSchema, json).threatType, 5);
    const wire = toBinary(v4.ThreatListDescriptorSchema, descriptor);
    assert.deepEqual(wire, bytes(varintField(1, 5), varintField(2, 8), varintField(3, 4)));
    assert.deepEqual(fromBinary(v4.ThreatListDescriptorSchema, wire), descriptor);
  });

  it('keeps values it has no name for (open enums), as numbers in JSON', () => {
    const descriptor = fromBinary(v4.ThreatListDescriptorSchema, bytes(varintField(1, 11)));
    assert.equal(descriptor.threatType, 11);
    assert.deepEqual(toBinary(v4.ThreatListDescriptorSchema, descriptor), bytes(varintField(1, 11)));
    assert.deepEqual(toJson(v4.ThreatListDescriptorSchema, descriptor), { threatType: 11 });
  });
});

describe('v4 messages: field numbers of docs/api.md §2', () => {
  it('FetchThreatListUpdatesRequest as Firefox encodes it (proto2, unpacked compressions)', () => {
    const constraints = [...varintField(1, 4096), ...varintField(2, 1 << 20), ...lengthField(3, 'US'), ...unpackedField(4, [2, 1])];
    const listRequest = [
      ...varintField(1, 5),
      ...varintField(2, 2),
      ...varintField(5, 1),
      ...lengthField(3, 'state'),
      ...lengthField(4, constraints),
    ];
    const wire = bytes(
      lengthField(1, [...lengthField(1, 'navclient-auto-ffox'), ...lengthField(2, '153.0')]),
      lengthField(3, listRequest),
      lengthField(4, varintField(1, 3)),
    );
    const request = fromBinary(v4.FetchThreatListUpdatesRequestSchema, wire);
    assert.equal(request.client?.clientId, 'navclient-auto-ffox');
    assert.equal(request.client?.clientVersion, '153.0');
    const list = request.listUpdateRequests[0];
    assert.equal(list?.threatType, v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL);
    assert.equal(list?.platformType, v4.PlatformType.LINUX);
    assert.equal(list?.threatEntryType, v4.ThreatEntryType.URL);
    assert.equal(new TextDecoder().decode(list?.state), 'state');
    assert.equal(list?.constraints?.maxUpdateEntries, 4096);
    assert.equal(list?.constraints?.maxDatabaseEntries, 1 << 20);
    assert.equal(list?.constraints?.region, 'US');
    assert.deepEqual(list?.constraints?.supportedCompressions, [v4.CompressionType.RICE, v4.CompressionType.RAW]);
    assert.equal(request.chromeClientInfo?.reportingPopulation, v4.ChromeClientInfo_SafeBrowsingReportingPopulation.SCOUT);
  });

  it('ListUpdateResponse: entry type at 2 and platform at 3 (the reverse of the request)', () => {
    const wire = bytes(
      lengthField(1, [
        ...varintField(1, 5),
        ...varintField(2, 1),
        ...varintField(3, 2),
        ...varintField(4, 2),
        ...lengthField(5, [...varintField(1, 1), ...lengthField(2, [...varintField(1, 4), ...lengthField(2, [0, 0, 0, 1])])]),
        ...lengthField(6, [...varintField(1, 1), ...lengthField(3, unpackedField(1, [0, 7]))]),
        ...lengthField(7, 'new-state'),
        ...lengthField(8, lengthField(1, new Uint8Array(32))),
      ]),
      lengthField(2, varintField(1, 1800)),
    );
    const response = fromBinary(v4.FetchThreatListUpdatesResponseSchema, wire);
    const update = response.listUpdateResponses[0];
    assert.equal(update?.threatType, 5);
    assert.equal(update?.threatEntryType, v4.ThreatEntryType.URL);
    assert.equal(update?.platformType, v4.PlatformType.LINUX);
    assert.equal(update?.responseType, v4.FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType.FULL_UPDATE);
    assert.equal(update?.additions[0]?.rawHashes?.prefixSize, 4);
    assert.deepEqual(update?.removals[0]?.rawIndices?.indices, [0, 7]);
    assert.equal(new TextDecoder().decode(update?.newClientState), 'new-state');
    assert.equal(update?.checksum?.sha256.length, 32);
    assert.equal(response.minimumWaitDuration?.seconds, 1800n);
  });

  it('ThreatEntrySet: raw hashes 2, raw indices 3, Rice hashes 4, Rice indices 5', () => {
    const rice = [...varintField(1, 12345), ...varintField(2, 28), ...varintField(3, 1), ...lengthField(4, [1])];
    const set = fromBinary(v4.ThreatEntrySetSchema, bytes(varintField(1, 2), lengthField(4, rice), lengthField(5, varintField(1, 9))));
    assert.equal(set.compressionType, v4.CompressionType.RICE);
    assert.equal(set.riceHashes?.firstValue, 12345n);
    assert.equal(set.riceHashes?.riceParameter, 28);
    assert.equal(set.riceHashes?.numEntries, 1);
    assert.equal(set.riceIndices?.firstValue, 9n);
    assert.deepEqual(toJson(v4.RiceDeltaEncodingSchema, set.riceHashes), {
      firstValue: '12345',
      riceParameter: 28,
      numEntries: 1,
      encodedData: 'AQ==',
    });
  });

  it('FindFullHashes messages, ThreatMatch (entry type at 6, cache duration at 5)', () => {
    const request = fromBinary(
      v4.FindFullHashesRequestSchema,
      bytes(lengthField(2, 'state-a'), lengthField(3, lengthField(3, lengthField(1, [1, 2, 3, 4])))),
    );
    assert.equal(request.clientStates.length, 1);
    assert.deepEqual(request.threatInfo?.threatEntries[0]?.hash, new Uint8Array([1, 2, 3, 4]));

    const match = [
      ...varintField(1, 1),
      ...varintField(2, 6),
      ...varintField(6, 1),
      ...lengthField(3, lengthField(1, new Uint8Array(32))),
      ...lengthField(4, lengthField(1, [...lengthField(1, 'malware_pattern_type'), ...lengthField(2, 'LANDING')])),
      ...lengthField(5, varintField(1, 300)),
    ];
    const response = fromBinary(
      v4.FindFullHashesResponseSchema,
      bytes(lengthField(1, match), lengthField(2, varintField(1, 60)), lengthField(3, varintField(1, 300))),
    );
    const found = response.matches[0];
    assert.equal(found?.threatEntryType, v4.ThreatEntryType.URL);
    assert.equal(found?.platformType, v4.PlatformType.ANY_PLATFORM);
    assert.equal(new TextDecoder().decode(found?.threatEntryMetadata?.entries[0]?.value), 'LANDING');
    assert.equal(found?.cacheDuration?.seconds, 300n);
    const json = toJson(v4.FindFullHashesResponseSchema, response) as Record<string, unknown>;
    assert.equal(json['minimumWaitDuration'], '60s');
    assert.equal(json['negativeCacheDuration'], '300s');
  });

  it("ThreatHit: Chromium's fields 1..4 and Firefox's client_info 5 and user_info 6", () => {
    const source = [
      ...lengthField(1, 'http://bad.example/'),
      ...varintField(2, 2),
      ...lengthField(3, '192.0.2.1'),
      ...lengthField(4, 'http://ref.example/'),
    ];
    const wire = bytes(
      varintField(1, 5),
      varintField(2, 2),
      lengthField(3, lengthField(2, 'bad.example/')),
      lengthField(4, source),
      lengthField(5, lengthField(1, 'navclient-auto-ffox')),
      lengthField(6, [...lengthField(1, '150'), ...lengthField(2, [1, 2])]),
    );
    const hit = fromBinary(v4.ThreatHitSchema, wire);
    assert.equal(hit.threatType, 5);
    assert.equal(hit.entry?.url, 'bad.example/');
    assert.equal(hit.resources[0]?.type, v4.ThreatHit_ThreatSourceType.TAB_URL);
    assert.equal(hit.resources[0]?.remoteIp, '192.0.2.1');
    assert.equal(hit.resources[0]?.referrer, 'http://ref.example/');
    assert.equal(hit.clientInfo?.clientId, 'navclient-auto-ffox');
    assert.equal(hit.userInfo?.regionCode, '150');
    assert.deepEqual(toBinary(v4.ThreatHitSchema, hit), wire);
  });
});

describe('v4 repeated scalars decode packed and unpacked (docs/api.md §3 pitfall 5)', () => {
  // Chromium's fullHashes:find names many threat types, two platforms and two entry types (pitfall 7).
  const threatTypes = [1, 3, 5, 6, 7, 8, 9, 13, 14, 15, 16];

  it('ThreatInfo: threat_types 1, platform_types 2, threat_entry_types 4 (threat_entries 3)', () => {
    const entry = lengthField(3, lengthField(1, [0xbf, 0xd0, 0x0f, 0x8e]));
    const unpacked = fromBinary(
      v4.ThreatInfoSchema,
      bytes(unpackedField(1, threatTypes), unpackedField(2, [2, 8]), unpackedField(4, [1, 4]), entry),
    );
    const packed = fromBinary(
      v4.ThreatInfoSchema,
      bytes(packedField(1, threatTypes), packedField(2, [2, 8]), packedField(4, [1, 4]), entry),
    );
    assert.deepEqual(unpacked.threatTypes, threatTypes);
    assert.deepEqual(unpacked.platformTypes, [v4.PlatformType.LINUX, v4.PlatformType.CHROME]);
    assert.deepEqual(unpacked.threatEntryTypes, [v4.ThreatEntryType.URL, v4.ThreatEntryType.CHROME_EXTENSION]);
    assert.deepEqual(packed, unpacked);
  });

  it('a mix of packed and unpacked runs of the same field appends in order', () => {
    const mixed = fromBinary(v4.ThreatInfoSchema, bytes(unpackedField(1, [1]), packedField(1, [3, 5]), unpackedField(1, [7])));
    assert.deepEqual(mixed.threatTypes, [1, 3, 5, 7]);
  });

  it('RawIndices.indices (int32)', () => {
    const values = [0, 1, 300, 2 ** 31 - 1];
    assert.deepEqual(fromBinary(v4.RawIndicesSchema, bytes(unpackedField(1, values))).indices, values);
    assert.deepEqual(fromBinary(v4.RawIndicesSchema, bytes(packedField(1, values))).indices, values);
  });

  it('our encoder writes them packed, as proto3 does', () => {
    const info = create(v4.ThreatInfoSchema, { threatTypes: [1, 5] });
    assert.deepEqual(toBinary(v4.ThreatInfoSchema, info), bytes(packedField(1, [1, 5])));
  });
});
