import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { prefixesToBytes } from '../../src/codec/prefixes.ts';
import {
  decodeV4RiceHashes,
  decodeV4RiceIndices,
  encodeV4RiceHashes,
  encodeV4RiceIndices,
  type RiceDeltaEncoding,
} from '../../src/codec/rice-v4.ts';
import { fromHex, hex, referenceEncode } from './reference-rice.ts';

const MAX = 0xffff_ffff;

function encoding(firstValue: bigint, riceParameter: number, numEntries: number, data: string): RiceDeltaEncoding {
  return { firstValue, riceParameter, numEntries, encodedData: fromHex(data) };
}

/**
 * `rice_hashes` of the Go reference client's tests (google/safebrowsing rice_test.go, "randomly
 * generated using the server-side Rice compression implementation"), with the prefixes they hold.
 * The fields were read out of the serialized ThreatEntrySet protos of those tests.
 */
const GOOGLE_HASH_VECTORS: Array<[RiceDeltaEncoding, string[]]> = [
  [
    encoding(229820320n, 28, 6, 'dda588628aad88f883e2421a66384d10bce123dd22030202'),
    ['17f15426', '47ba02b7', '573373a2', 'a0c7b20d', 'a19edd3e', 'd2c60aef', 'f1fa25a2'],
  ],
  [encoding(202217208n, 28, 3, '5fe56d19f084ea8fffeacca708'), ['2b9f705e', '8d4e735c', 'a085c4f2', 'f8960d0c']],
  [encoding(164066655n, 28, 2, '91280dd01f2c9d5301'), ['33341993', '5f75c709', '83bfca1d']],
  [
    encoding(419641154n, 28, 5, 'b0e8007275b8ba8319e39f2d4ea7f1df8b1a1202'),
    ['0f64be45', '42370319', '6650275f', '95ba6fd7', '9aab0322', 'db7cbd52'],
  ],
  [
    encoding(927378526n, 28, 8, 'ce4f1cc9b81c12c9e0142610815a766d8771f0b282397d6779d2cbe98e2f01'),
    ['17ad48ca', '28471d40', '41e3df44', '45d4d43b', '51643a4b', '5eac4637', '7e261bf6', 'beebab7b', 'cc9d97ff'],
  ],
  [encoding(501086569n, 28, 2, 'ff93bf27d073d3bb37'), ['5bf1e2c7', '69f9dd1d', 'c96bdafe']],
  [encoding(2952333783n, 28, 1, '2f701aef01'), ['58dd71ff', 'd709f9af']],
];

/** `rice_indices` of the same tests, with the indices they hold. */
const GOOGLE_INDEX_VECTORS: Array<[RiceDeltaEncoding, number[]]> = [
  [encoding(172n, 28, 5, '720000c0210000100400001a01006017000000'), [172, 229, 364, 494, 776, 963]],
  [encoding(75n, 28, 7, '34010000110000300500000a0000e0100000a80100007a000000'), [75, 229, 297, 463, 473, 608, 714, 958]],
  [encoding(35n, 28, 6, 'f80100800f000050050000c50000c0020000b4020000'), [35, 287, 349, 519, 716, 738, 911]],
  [encoding(998n, 0, 0, ''), [998]],
  [encoding(193n, 28, 3, '360300c02b0000b8040000'), [193, 604, 779, 930]],
  [encoding(128n, 28, 7, '140000c000000088050000520000c03200004402000024000000'), [128, 138, 141, 318, 400, 806, 951, 1023]],
  [encoding(271n, 28, 5, '48000000560000c0010000cd00000002000000'), [271, 307, 651, 707, 912, 928]],
  [encoding(497n, 28, 4, 'de0000c00000006805000085000000'), [497, 608, 611, 784, 917]],
];

describe('v4 Rice: Google’s server-generated vectors', () => {
  it('decodes rice_hashes to the lexicographically sorted prefixes', () => {
    for (const [message, prefixes] of GOOGLE_HASH_VECTORS) {
      assert.equal(hex(prefixesToBytes(decodeV4RiceHashes(message))), prefixes.join(''));
    }
  });

  it('encodes those prefixes to the same bytes, choosing the same k = 28', () => {
    for (const [message, prefixes] of GOOGLE_HASH_VECTORS) {
      const values = Uint32Array.from(prefixes, (prefix) => Number.parseInt(prefix, 16));
      assert.deepEqual(encodeV4RiceHashes(values), message);
    }
  });

  it('decodes rice_indices without a byte swap', () => {
    for (const [message, indices] of GOOGLE_INDEX_VECTORS) {
      assert.deepEqual([...decodeV4RiceIndices(message)], indices);
    }
  });

  it('encodes those indices to the same bytes with Google’s k, and 0 for a single index', () => {
    for (const [message, indices] of GOOGLE_INDEX_VECTORS) {
      const riceParameter = message.numEntries === 0 ? undefined : message.riceParameter;
      assert.deepEqual(encodeV4RiceIndices(Uint32Array.from(indices), { riceParameter }), message);
    }
  });
});

describe('v4 Rice: the byte order of SB-14 point 3', () => {
  const hashes = ['a.example.com/', 'b.example.com/', 'y.example.com/'].map((expression) =>
    createHash('sha256').update(expression).digest(),
  );

  it('codes the SB-10 prefixes as little-endian integers, sorted numerically', () => {
    const littleEndian = hashes.map((hash) => BigInt(hash.readUInt32LE(0))).sort((a, b) => (a < b ? -1 : 1));
    assert.deepEqual(littleEndian, [0x08c5321dn, 0x42c51b29n, 0xe502a5f7n]);
    const prefixes = Uint32Array.from(hashes.map((hash) => hash.readUInt32BE(0))).sort();
    const message = encodeV4RiceHashes(prefixes, { riceParameter: 28 });
    assert.deepEqual(message, {
      firstValue: 0x08c5321dn,
      riceParameter: 28,
      numEntries: 2,
      encodedData: referenceEncode(littleEndian, 28),
    });
    assert.deepEqual(decodeV4RiceHashes(message), prefixes);
  });

  it('sorts after decoding when little-endian order differs from lexicographic order', () => {
    // 0x00000001 and 0x01000000 read little-endian are 0x01000000 and 0x00000001.
    const prefixes = Uint32Array.of(0x0000_0001, 0x0100_0000);
    const message = encodeV4RiceHashes(prefixes)!;
    assert.equal(message.firstValue, 1n);
    assert.deepEqual(decodeV4RiceHashes(message), prefixes);
    assert.deepEqual([...decodeV4RiceIndices(message)], [0x0000_0001, 0x0100_0000]);
  });

  it('treats an absent message as an empty list, both ways', () => {
    assert.equal(decodeV4RiceHashes(undefined).length, 0);
    assert.equal(decodeV4RiceIndices(undefined).length, 0);
    assert.equal(encodeV4RiceHashes(new Uint32Array()), undefined);
    assert.equal(encodeV4RiceIndices(new Uint32Array()), undefined);
  });
});

describe('v4 Rice: round trips', () => {
  const sortedValues = fc
    .uniqueArray(fc.oneof(fc.constantFrom(0, 1, 0xff, 0xff00_0000, MAX - 1, MAX), fc.nat({ max: MAX })), {
      maxLength: 300,
    })
    .map((values) => Uint32Array.from(values).sort());

  it('decodes the prefixes it encodes, with a parameter in 2..28 (0 for a single prefix)', () => {
    fc.assert(
      fc.property(sortedValues, (prefixes) => {
        const message = encodeV4RiceHashes(prefixes);
        if (prefixes.length === 0) return assert.equal(message, undefined);
        assert.ok(message !== undefined);
        assert.equal(message.numEntries, prefixes.length - 1);
        if (message.numEntries === 0) assert.equal(message.riceParameter, 0);
        else assert.ok(message.riceParameter >= 2 && message.riceParameter <= 28);
        assert.deepEqual(decodeV4RiceHashes(message), prefixes);
      }),
      { numRuns: 1000 },
    );
  });

  it('decodes the indices it encodes, bit for bit as SB-10 describes', () => {
    fc.assert(
      fc.property(sortedValues, (indices) => {
        const message = encodeV4RiceIndices(indices);
        if (indices.length === 0) return assert.equal(message, undefined);
        assert.ok(message !== undefined);
        assert.deepEqual(message.encodedData, referenceEncode([...indices].map(BigInt), message.riceParameter));
        assert.deepEqual(decodeV4RiceIndices(message), indices);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('v4 Rice: malformed input', () => {
  const [valid] = GOOGLE_HASH_VECTORS[0]!;

  it('refuses a first value outside 0..2^32-1 (the field is an int64)', () => {
    for (const firstValue of [-1n, 2n ** 32n, -(2n ** 63n)]) {
      assert.throws(() => decodeV4RiceHashes({ ...valid, firstValue }), {
        name: 'RiceDecodeError',
        reason: 'first-value-out-of-range',
        format: 'v4',
      });
    }
    const largest = { ...valid, firstValue: 2n ** 32n - 1n, numEntries: 0, encodedData: new Uint8Array() };
    assert.deepEqual([...decodeV4RiceIndices(largest)], [MAX]);
  });

  it('refuses a parameter outside 2..28, and 0 with entries', () => {
    for (const riceParameter of [0, 1, 29, 30]) {
      assert.throws(() => decodeV4RiceIndices({ ...valid, riceParameter }), { reason: 'parameter-out-of-range' });
    }
  });

  it('refuses the other malformations the 32-bit decoder knows', () => {
    assert.throws(() => decodeV4RiceHashes({ ...valid, numEntries: -1 }), { reason: 'count-negative' });
    assert.throws(() => decodeV4RiceHashes({ ...valid, numEntries: 2 ** 31 - 1 }), { reason: 'count-too-large' });
    assert.throws(() => decodeV4RiceHashes({ ...valid, encodedData: valid.encodedData.subarray(0, 22) }), {
      reason: 'out-of-bits',
    });
    assert.throws(() => decodeV4RiceHashes({ ...valid, numEntries: 5 }), { reason: 'count-mismatch' });
    assert.throws(() => decodeV4RiceHashes({ ...valid, firstValue: 0xffff_fff0n }), { reason: 'value-overflow' });
    assert.throws(() => decodeV4RiceHashes(encoding(5n, 2, 1, '00')), { reason: 'duplicate-entry' });
  });

  it('refuses unsorted or repeated input to the encoders, naming the prefix in hex', () => {
    assert.throws(() => encodeV4RiceHashes(Uint32Array.of(0x0200_0000, 0x0100_0000)), {
      name: 'RiceEncodeError',
      reason: 'not-ascending',
      message: /prefix 0x01000000 at index 1 follows 0x02000000/,
    });
    assert.throws(() => encodeV4RiceHashes(Uint32Array.of(4, 4)), { reason: 'not-ascending' });
    assert.throws(() => encodeV4RiceIndices(Uint32Array.of(4, 3)), { reason: 'not-ascending' });
    assert.throws(() => encodeV4RiceIndices(Uint32Array.of(3, 4), { riceParameter: 29 }), {
      reason: 'parameter-out-of-range',
    });
  });
});
