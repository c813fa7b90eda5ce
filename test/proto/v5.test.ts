import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import * as v5 from '../../src/proto/v5.ts';
import { bytes, fixed64Field, lengthField, packedField, unpackedField, varintField } from './hand-built.ts';

describe('v5 messages: field numbers and types of docs/api.md §1', () => {
  it('SearchHashesRequest: hash_prefixes = 1 (repeated bytes), filter = 2 (v5alpha1)', () => {
    const wire = bytes(lengthField(1, [0xbf, 0xd0, 0x0f, 0x8e]), lengthField(1, [1, 2, 3, 4]), lengthField(2, 'threat_type == 2'));
    const request = fromBinary(v5.SearchHashesRequestSchema, wire);
    assert.deepEqual(request.hashPrefixes, [new Uint8Array([0xbf, 0xd0, 0x0f, 0x8e]), new Uint8Array([1, 2, 3, 4])]);
    assert.equal(request.filter, 'threat_type == 2');
  });

  it('GetHashListRequest and BatchGetHashListsRequest skip field 3: size_constraints = 4', () => {
    const constraints = lengthField(4, [...varintField(1, 1024), ...varintField(2, 65536)]);
    const get = fromBinary(v5.GetHashListRequestSchema, bytes(lengthField(1, 'se-4b'), lengthField(2, [7]), constraints));
    assert.equal(get.name, 'se-4b');
    assert.deepEqual(get.version, new Uint8Array([7]));
    assert.equal(get.sizeConstraints?.maxUpdateEntries, 1024);
    assert.equal(get.sizeConstraints?.maxDatabaseEntries, 65536);

    const batch = create(v5.BatchGetHashListsRequestSchema, {
      names: ['se-4b'],
      version: [new Uint8Array(), new Uint8Array([1])],
      sizeConstraints: { maxUpdateEntries: 1024 },
    });
    assert.deepEqual(
      toBinary(v5.BatchGetHashListsRequestSchema, batch),
      bytes(lengthField(1, 'se-4b'), lengthField(2, []), lengthField(2, [1]), lengthField(4, varintField(1, 1024))),
    );
  });

  it('HashList: fields 1..8 and the 32-bit Rice additions in the oneof at 4', () => {
    const rice = [...varintField(1, 0xdeadbeef), ...varintField(2, 30), ...varintField(3, 2), ...lengthField(4, [9, 9])];
    const wire = bytes(
      lengthField(1, 'se-4b'),
      lengthField(2, [0x76, 0x31]),
      varintField(3, 1),
      lengthField(4, rice),
      lengthField(5, varintField(1, 3)),
      lengthField(6, varintField(1, 1800)),
      lengthField(7, new Uint8Array(32).fill(0xab)),
      lengthField(8, [...lengthField(4, 'Social engineering'), ...varintField(6, 2)]),
    );
    const list = fromBinary(v5.HashListSchema, wire);
    assert.equal(list.name, 'se-4b');
    assert.deepEqual(list.version, new Uint8Array([0x76, 0x31]));
    assert.equal(list.partialUpdate, true);
    assert.equal(list.compressedAdditions.case, 'additionsFourBytes');
    assert.equal(list.compressedAdditions.value?.firstValue, 0xdeadbeef);
    assert.equal(list.compressedAdditions.value?.riceParameter, 30);
    assert.equal(list.compressedAdditions.value?.entriesCount, 2);
    assert.equal(list.compressedRemovals?.firstValue, 3);
    assert.equal(list.minimumWaitDuration?.seconds, 1800n);
    assert.equal(list.sha256Checksum.length, 32);
    assert.equal(list.metadata?.description, 'Social engineering');
    assert.equal(list.metadata?.hashLength, v5.HashListMetadata_HashLength.FOUR_BYTES);
  });

  it('HashList oneof: 8-byte additions at 9, 16-byte at 10, 32-byte at 11', () => {
    const eight = fromBinary(v5.HashListSchema, bytes(lengthField(9, varintField(1, 2n ** 63n + 5n))));
    assert.equal(eight.compressedAdditions.case, 'additionsEightBytes');
    assert.equal(eight.compressedAdditions.value?.firstValue, 2n ** 63n + 5n);
    const sixteen = fromBinary(v5.HashListSchema, bytes(lengthField(10, varintField(3, 99))));
    assert.equal(sixteen.compressedAdditions.case, 'additionsSixteenBytes');
    const thirtyTwo = fromBinary(v5.HashListSchema, bytes(lengthField(11, varintField(5, 254))));
    assert.equal(thirtyTwo.compressedAdditions.case, 'additionsThirtyTwoBytes');
    assert.equal(thirtyTwo.compressedAdditions.value?.riceParameter, 254);
  });

  it('RiceDeltaEncoded128Bit: first_value_hi is a uint64 varint, first_value_lo a fixed64', () => {
    const hi = 0x0102030405060708n;
    const lo = 0xf1f2f3f4f5f6f7f8n;
    const message = create(v5.RiceDeltaEncoded128BitSchema, { firstValueHi: hi, firstValueLo: lo, riceParameter: 126, entriesCount: 1 });
    assert.deepEqual(
      toBinary(v5.RiceDeltaEncoded128BitSchema, message),
      bytes(varintField(1, hi), fixed64Field(2, lo), varintField(3, 126), varintField(4, 1)),
    );
  });

  it('RiceDeltaEncoded256Bit: a uint64 varint, then three fixed64 parts, then fields 5..7', () => {
    const parts = [0x1111111111111111n, 0x2222222222222222n, 0x3333333333333333n, 0xffffffffffffffffn] as const;
    const wire = bytes(
      varintField(1, parts[0]),
      fixed64Field(2, parts[1]),
      fixed64Field(3, parts[2]),
      fixed64Field(4, parts[3]),
      varintField(5, 227),
      varintField(6, 4),
      lengthField(7, [1, 2, 3]),
    );
    const rice = fromBinary(v5.RiceDeltaEncoded256BitSchema, wire);
    assert.deepEqual(
      [rice.firstValueFirstPart, rice.firstValueSecondPart, rice.firstValueThirdPart, rice.firstValueFourthPart],
      [...parts],
    );
    assert.equal(rice.riceParameter, 227);
    assert.equal(rice.entriesCount, 4);
    assert.deepEqual(toBinary(v5.RiceDeltaEncoded256BitSchema, rice), wire);
  });

  it('ListHashLists messages: page_size 1, page_token 2; hash_lists 1, next_page_token 2', () => {
    const request = fromBinary(v5.ListHashListsRequestSchema, bytes(varintField(1, 10), lengthField(2, 'p2')));
    assert.equal(request.pageSize, 10);
    assert.equal(request.pageToken, 'p2');
    const response = fromBinary(v5.ListHashListsResponseSchema, bytes(lengthField(1, lengthField(1, 'gc-32b')), lengthField(2, 'next')));
    assert.equal(response.hashLists[0]?.name, 'gc-32b');
    assert.equal(response.nextPageToken, 'next');
  });

  it('enum values match docs/api.md, including HashLength skipping 1', () => {
    assert.equal(v5.ThreatType.SOCIAL_ENGINEERING, 2);
    assert.equal(v5.ThreatType.POTENTIALLY_HARMFUL_APPLICATION, 4);
    assert.equal(v5.LikelySafeType.DOWNLOAD, 3);
    assert.equal(v5.ThreatAttribute.FRAME_ONLY, 2);
    assert.equal(v5.HashListMetadata_HashLength.FOUR_BYTES, 2);
    assert.equal(v5.HashListMetadata_HashLength.THIRTY_TWO_BYTES, 5);
    assert.equal(v5.HashListMetadata_HashLength[1], undefined);
  });
});

describe('v5 repeated scalars decode packed and unpacked (docs/api.md §3 pitfall 5)', () => {
  it('FullHashDetail.attributes', () => {
    const unpacked = fromBinary(v5.FullHash_FullHashDetailSchema, bytes(varintField(1, 2), unpackedField(2, [1, 2])));
    const packed = fromBinary(v5.FullHash_FullHashDetailSchema, bytes(varintField(1, 2), packedField(2, [1, 2])));
    assert.deepEqual(unpacked.attributes, [v5.ThreatAttribute.CANARY, v5.ThreatAttribute.FRAME_ONLY]);
    assert.deepEqual(packed, unpacked);
  });

  it('HashListMetadata.threat_types and likely_safe_types', () => {
    const unpacked = fromBinary(v5.HashListMetadataSchema, bytes(unpackedField(1, [1, 3]), unpackedField(2, [1])));
    const packed = fromBinary(v5.HashListMetadataSchema, bytes(packedField(1, [1, 3]), packedField(2, [1])));
    assert.deepEqual(unpacked.threatTypes, [v5.ThreatType.MALWARE, v5.ThreatType.UNWANTED_SOFTWARE]);
    assert.deepEqual(unpacked.likelySafeTypes, [v5.LikelySafeType.GENERAL_BROWSING]);
    assert.deepEqual(packed, unpacked);
  });

  it('ThreatUrl.threat_types', () => {
    const unpacked = fromBinary(v5.ThreatUrlSchema, bytes(lengthField(1, 'http://x/'), unpackedField(2, [2, 1])));
    const packed = fromBinary(v5.ThreatUrlSchema, bytes(lengthField(1, 'http://x/'), packedField(2, [2, 1])));
    assert.deepEqual(packed, unpacked);
    assert.deepEqual(packed.threatTypes, [2, 1]);
  });
});

describe('v5 proto3 JSON (docs/api.md, JSON mapping)', () => {
  it('SearchHashesResponse: bytes as base64, enums by name, Duration as "300s"', () => {
    const fullHash = new Uint8Array(Buffer.from('bfd00f8e2fe3c810bd449e28af095aa010d0ebc11875a2bab2f19b9147cf086f', 'hex'));
    const response = create(v5.SearchHashesResponseSchema, {
      fullHashes: [
        { fullHash, fullHashDetails: [{ threatType: v5.ThreatType.SOCIAL_ENGINEERING, attributes: [v5.ThreatAttribute.CANARY] }] },
      ],
      cacheDuration: { seconds: 300n },
    });
    const json = toJson(v5.SearchHashesResponseSchema, response);
    assert.deepEqual(json, {
      fullHashes: [
        {
          fullHash: 'v9APji/jyBC9RJ4orwlaoBDQ68EYdaK6svGbkUfPCG8=',
          fullHashDetails: [{ threatType: 'SOCIAL_ENGINEERING', attributes: ['CANARY'] }],
        },
      ],
      cacheDuration: '300s',
    });
    assert.deepEqual(fromJson(v5.SearchHashesResponseSchema, json), response);
  });

  it('HashList: 64-bit integers as decimal strings, fractional durations, oneof by field name', () => {
    const list = create(v5.HashListSchema, {
      name: 'mw-4b',
      version: new Uint8Array([1, 2, 3]),
      compressedAdditions: { case: 'additionsEightBytes', value: { firstValue: 18446744073709551615n, riceParameter: 62 } },
      minimumWaitDuration: { seconds: 3n, nanos: 500_000_000 },
      sha256Checksum: new Uint8Array([0xff]),
    });
    const json = toJson(v5.HashListSchema, list);
    assert.deepEqual(json, {
      name: 'mw-4b',
      version: 'AQID',
      additionsEightBytes: { firstValue: '18446744073709551615', riceParameter: 62 },
      minimumWaitDuration: '3.500s',
      sha256Checksum: '/w==',
    });
    assert.deepEqual(fromJson(v5.HashListSchema, json), list);
  });

  it('Duration accepts "300s" and "3.5s" on input', () => {
    assert.equal(fromJson(DurationSchema, '300s').seconds, 300n);
    assert.equal(fromJson(DurationSchema, '3.5s').nanos, 500_000_000);
  });

  it('RiceDeltaEncoded256Bit fixed64 parts are strings too', () => {
    const json = toJson(v5.RiceDeltaEncoded256BitSchema, create(v5.RiceDeltaEncoded256BitSchema, { firstValueFourthPart: 2n ** 64n - 1n }));
    assert.deepEqual(json, { firstValueFourthPart: '18446744073709551615' });
  });
});
