import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import {
  BatchGetHashListsRequestSchema,
  BatchGetHashListsResponseSchema,
  HashListSchema,
  SearchHashesRequestSchema,
  SearchHashesResponseSchema,
} from '../../../src/proto/v5.ts';
import { buildWireRequest } from '../../../src/wire/rest/client-request.ts';
import {
  batchGetHashListsRequest,
  decodeBatchGetHashListsAnswer,
  decodeSearchHashesAnswer,
  searchHashesRequest,
} from '../../../src/wire/protobuf/v5-binary.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const bytes = (max: number) => fc.uint8Array({ maxLength: max });
const rice32 = fc.record({
  firstValue: fc.nat({ max: 2 ** 32 - 1 }),
  riceParameter: fc.integer({ min: -5, max: 40 }),
  entriesCount: fc.integer({ min: -3, max: 1e6 }),
  encodedData: bytes(20),
});
const rice64 = fc.record({ firstValue: u64, riceParameter: fc.nat(62), entriesCount: fc.nat(), encodedData: bytes(20) });
const rice128 = fc.record({
  firstValueHi: u64,
  firstValueLo: u64,
  riceParameter: fc.nat(126),
  entriesCount: fc.nat(),
  encodedData: bytes(20),
});
const rice256 = fc.record({
  firstValueFirstPart: u64,
  firstValueSecondPart: u64,
  firstValueThirdPart: u64,
  firstValueFourthPart: u64,
  riceParameter: fc.nat(254),
  entriesCount: fc.nat(),
  encodedData: bytes(20),
});
const duration = fc.record({
  seconds: fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
  nanos: fc.integer({ min: -999_999_999, max: 999_999_999 }),
});
const additions = fc.oneof(
  fc.constant({ case: undefined }),
  rice32.map((value) => ({ case: 'additionsFourBytes' as const, value })),
  rice64.map((value) => ({ case: 'additionsEightBytes' as const, value })),
  rice128.map((value) => ({ case: 'additionsSixteenBytes' as const, value })),
  rice256.map((value) => ({ case: 'additionsThirtyTwoBytes' as const, value })),
);
const hashList = fc.record(
  {
    name: fc.string({ maxLength: 12 }),
    version: bytes(12),
    partialUpdate: fc.boolean(),
    compressedAdditions: additions,
    compressedRemovals: rice32,
    minimumWaitDuration: duration,
    sha256Checksum: bytes(32),
    metadata: fc.record({
      threatTypes: fc.array(fc.nat(10), { maxLength: 3 }),
      description: fc.string({ maxLength: 10 }),
      hashLength: fc.nat(5),
    }),
  },
  { requiredKeys: ['name', 'version', 'partialUpdate', 'compressedAdditions', 'sha256Checksum'] },
);
const searchAnswer = fc.record(
  {
    fullHashes: fc.array(
      fc.record({
        fullHash: bytes(33),
        fullHashDetails: fc.array(fc.record({ threatType: fc.nat(10), attributes: fc.array(fc.nat(3), { maxLength: 3 }) }), {
          maxLength: 3,
        }),
      }),
      { maxLength: 4 },
    ),
    cacheDuration: duration,
  },
  { requiredKeys: ['fullHashes'] },
);

/** The generated code's reading of a message, without its type tags and the metadata clients do not read. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Uint8Array || typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => k !== '$typeName' && k !== 'metadata' && v !== undefined)
      .map(([k, v]) => [k, plain(v)]),
  );
}

describe('v5 in binary protobuf without the generated code', () => {
  it('property: reads any BatchGetHashListsResponse as the generated code does', () => {
    fc.assert(
      fc.property(fc.array(hashList, { maxLength: 3 }), (hashLists) => {
        const message = create(BatchGetHashListsResponseSchema, { hashLists: hashLists as never });
        const decoded = decodeBatchGetHashListsAnswer(toBinary(BatchGetHashListsResponseSchema, message));
        assert.deepEqual(plain(decoded), plain(message));
      }),
    );
  });

  it('property: reads any SearchHashesResponse as the generated code does, packed enums or not', () => {
    fc.assert(
      fc.property(searchAnswer, (answer) => {
        const message = create(SearchHashesResponseSchema, answer as never);
        const decoded = decodeSearchHashesAnswer(toBinary(SearchHashesResponseSchema, message));
        assert.deepEqual(plain(decoded), plain(message));
      }),
    );
    // attributes = [1, 2] not packed: two varint fields of number 2 in one detail.
    const unpacked = Uint8Array.from([0x0a, 0x08, 0x12, 0x06, 0x08, 0x03, 0x10, 0x01, 0x10, 0x02]);
    assert.deepEqual(decodeSearchHashesAnswer(unpacked).fullHashes[0]!.fullHashDetails, [{ threatType: 3, attributes: [1, 2] }]);
  });

  it('property: two answers sent as one are read merged, as the generated code merges them', () => {
    // Protobuf's rule: a message's bytes after another's are one message, singular message fields merged
    // field by field, repeated ones joined, a oneof's other member replacing the first.
    fc.assert(
      fc.property(searchAnswer, searchAnswer, (a, b) => {
        const [first, second] = [a, b].map((x) => toBinary(SearchHashesResponseSchema, create(SearchHashesResponseSchema, x as never)));
        const joined = Uint8Array.from([...first!, ...second!]);
        assert.deepEqual(plain(decodeSearchHashesAnswer(joined)), plain(fromBinary(SearchHashesResponseSchema, joined)));
      }),
    );
    fc.assert(
      fc.property(hashList, hashList, (a, b) => {
        // One hash list's fields twice: the first's bytes, then the second's, inside one field 1.
        const [first, second] = [a, b].map((list) => toBinary(HashListSchema, create(HashListSchema, list as never)));
        const both = [...first!, ...second!];
        const length: number[] = [];
        for (let n = both.length; ; n >>>= 7) {
          if (n < 0x80) {
            length.push(n);
            break;
          }
          length.push((n & 0x7f) | 0x80);
        }
        const joined = Uint8Array.from([0x0a, ...length, ...both]);
        assert.deepEqual(plain(decodeBatchGetHashListsAnswer(joined)), plain(fromBinary(BatchGetHashListsResponseSchema, joined)));
      }),
    );
  });

  it('skips an unknown field in the obsolete group encoding, nested or not, as the generated code does', () => {
    // Field 15 as a group holding a varint and a group of field 16, before a cache duration of 5 s.
    const group = [0x7b, 0x08, 0x01, 0x83, 0x01, 0x08, 0x02, 0x84, 0x01, 0x7c];
    const answer = Uint8Array.from([...group, 0x12, 0x02, 0x08, 0x05]);
    assert.deepEqual(
      plain(decodeSearchHashesAnswer(answer)),
      plain(fromBinary(SearchHashesResponseSchema, answer, { readUnknownFields: false })),
    );
    assert.equal(decodeSearchHashesAnswer(answer).cacheDuration?.seconds, 5n);
    assert.throws(() => decodeSearchHashesAnswer(Uint8Array.from([0x7b, 0x08, 0x01])), /group 15 has no end/);
    assert.throws(() => decodeSearchHashesAnswer(Uint8Array.from([0x7b, 0x84, 0x01])), /group 15 ends as group 16/);
  });

  it('property: any bytes are read or refused with a WireError, nothing else', () => {
    fc.assert(
      fc.property(bytes(64), (data) => {
        for (const decode of [decodeSearchHashesAnswer, decodeBatchGetHashListsAnswer]) {
          try {
            decode(data);
          } catch (err) {
            assert.ok(err instanceof WireError, String(err));
          }
        }
      }),
    );
    assert.throws(() => decodeSearchHashesAnswer(Uint8Array.from([0x0a, 0x05, 0x01])), /runs past the end/);
  });

  it('property: asks exactly as the generated code’s requests do', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 30 }),
        fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        (prefixes, apiKey) => {
          const generated = buildWireRequest('http://h:1/', 'SearchHashes', create(SearchHashesRequestSchema, { hashPrefixes: prefixes }), {
            apiKey,
          });
          assert.deepEqual(searchHashesRequest('http://h:1/', apiKey, prefixes), generated);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.constantFrom('gc-32b', 'mw-4b', 'se-4b'), version: bytes(6) }), { minLength: 1, maxLength: 3 }),
        fc.record({ maxUpdateEntries: fc.nat(9), maxDatabaseEntries: fc.nat(9) }),
        (lists, sizeConstraints) => {
          const request = create(BatchGetHashListsRequestSchema, {
            names: lists.map((l) => l.name),
            version: lists.map((l) => l.version),
            sizeConstraints,
          });
          const generated = buildWireRequest('http://h:1', 'BatchGetHashLists', request, { apiKey: 'k' });
          assert.deepEqual(batchGetHashListsRequest('http://h:1', 'k', lists, sizeConstraints), generated);
        },
      ),
    );
  });
});
