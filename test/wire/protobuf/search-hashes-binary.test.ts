import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { SearchHashesResponseSchema } from '../../../src/proto/v5.ts';
import { encodeSearchHashesResponse } from '../../../src/wire/protobuf/search-hashes-binary.ts';
import { decodeSearchHashesAnswer } from '../../../src/wire/protobuf/v5-binary.ts';

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

const response = fc.record({
  fullHashes: fc.array(
    fc.record({
      fullHash: fc.uint8Array({ maxLength: 40 }),
      fullHashDetails: fc.array(
        fc.record({
          threatType: fc.oneof(fc.integer({ min: 0, max: 5 }), int32),
          attributes: fc.array(fc.oneof(fc.integer({ min: 0, max: 3 }), int32), { maxLength: 4 }),
        }),
        { maxLength: 3 },
      ),
    }),
    { maxLength: 5 },
  ),
  cacheDuration: fc.option(
    fc.record({ seconds: fc.oneof(fc.bigInt({ min: 0n, max: 86_400n }), int64), nanos: fc.oneof(fc.constant(0), int32) }),
    { nil: undefined },
  ),
});

describe('encodeSearchHashesResponse', () => {
  it('writes the bytes toBinary writes, for any response', () => {
    fc.assert(
      fc.property(response, (init) => {
        const message = create(SearchHashesResponseSchema, init);
        assert.deepEqual(Buffer.from(encodeSearchHashesResponse(message)), Buffer.from(toBinary(SearchHashesResponseSchema, message)));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: what it writes, the client’s reader reads as the generated code does', () => {
    fc.assert(
      fc.property(response, (init) => {
        const bytes = encodeSearchHashesResponse(create(SearchHashesResponseSchema, init));
        const generated = fromBinary(SearchHashesResponseSchema, bytes);
        const read = decodeSearchHashesAnswer(bytes);
        assert.deepEqual(
          read.fullHashes.map((h) => ({ fullHash: [...h.fullHash], fullHashDetails: h.fullHashDetails })),
          generated.fullHashes.map((h) => ({
            fullHash: [...h.fullHash],
            fullHashDetails: h.fullHashDetails.map((d) => ({ threatType: d.threatType, attributes: d.attributes })),
          })),
        );
        const duration = generated.cacheDuration;
        assert.deepEqual(read.cacheDuration, duration === undefined ? undefined : { seconds: duration.seconds, nanos: duration.nanos });
      }),
      { numRuns: 500 },
    );
  });

  it('encodes a typical answer that decodes back to itself', () => {
    const message = create(SearchHashesResponseSchema, {
      fullHashes: [{ fullHash: new Uint8Array(32).fill(7), fullHashDetails: [{ threatType: 2, attributes: [1, 2] }] }],
      cacheDuration: { seconds: 300n },
    });
    const bytes = encodeSearchHashesResponse(message);
    assert.deepEqual(fromBinary(SearchHashesResponseSchema, new Uint8Array(bytes)), message);
    assert.equal(encodeSearchHashesResponse(create(SearchHashesResponseSchema)).length, 0);
  });
});
