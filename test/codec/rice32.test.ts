import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { prefixesToBytes } from '../../src/codec/prefixes.ts';
import { decodeRice32, encodeRice32 } from '../../src/codec/rice32.ts';
import { fromHex, hex, referenceEncode } from './reference-rice.ts';

const MAX = 0xffff_ffff;

/** The bytes of a protobuf text-format string with octal escapes, as SB-10 prints encoded_data. */
function fromTextFormat(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(text.charCodeAt(i));
    }
  }
  return new Uint8Array(bytes);
}

/** Sorted, distinct 32-bit values, with 0 and the maximum likely to appear. */
const sortedValues32 = fc
  .uniqueArray(fc.oneof(fc.constantFrom(0, 1, MAX - 1, MAX), fc.nat({ max: MAX })), { maxLength: 300 })
  .map((values) => Uint32Array.from(values).sort());

describe('v5 32-bit Rice: the SB-10 worked example', () => {
  const expressions = ['a.example.com/', 'b.example.com/', 'y.example.com/'];
  const hashes = expressions.map((expression) => createHash('sha256').update(expression).digest());
  const message = {
    firstValue: 489866504,
    riceParameter: 30,
    entriesCount: 2,
    encodedData: fromTextFormat('t\\000\\322\\227\\033\\355It\\000'),
  };

  it('has the hashes and big-endian prefixes the example prints', () => {
    assert.deepEqual(
      hashes.map((hash) => hash.toString('hex')),
      [
        '291bc5421f1cd54d99afcc55d166e2b9fe42447025895bf09dd41b2110a687dc',
        '1d32c5084a360e58f1b87109637a6810acad97a861a7769e8f1841410d2a960c',
        'f7a502e56e8b01c6dc242b35122683c9d25d07fb1f532d9853eb0ef3ff334f03',
      ],
    );
    assert.deepEqual(
      hashes.map((hash) => hash.readUInt32BE(0)),
      [0x291bc542, 0x1d32c508, 0xf7a502e5],
    );
    assert.equal(hex(message.encodedData), '7400d2971bed497400');
    assert.equal(0x1d32c508, 489866504);
  });

  it('decodes to the sorted prefixes of the three hashes', () => {
    const sortedPrefixes = hashes.map((hash) => hash.subarray(0, 4)).sort((a, b) => Buffer.compare(a, b));
    const values = decodeRice32(message);
    assert.deepEqual([...values], [0x1d32c508, 0x291bc542, 0xf7a502e5]);
    assert.deepEqual(prefixesToBytes(values), new Uint8Array(Buffer.concat(sortedPrefixes)));
  });

  it('encodes byte for byte, with k = 30 given or chosen', () => {
    const prefixes = Uint32Array.from(hashes.map((hash) => hash.readUInt32BE(0))).sort();
    assert.deepEqual(encodeRice32(prefixes, { riceParameter: 30 }), message);
    assert.deepEqual(encodeRice32(prefixes), message);
  });

  it('splits the deltas into the quotients and remainders the example shows', () => {
    const [first, second, third] = decodeRice32(message) as unknown as [number, number, number];
    assert.equal(second - first, 0x0be9003a);
    assert.equal(third - second, 0xce893da3);
    assert.deepEqual([(second - first) >>> 30, (second - first) & (2 ** 30 - 1)], [0, 0x0be9003a]);
    assert.deepEqual([(third - second) >>> 30, (third - second) & (2 ** 30 - 1)], [3, 0x0e893da3]);
  });
});

describe('v5 32-bit Rice: known answers', () => {
  const cases: Array<{ name: string; firstValue: number; k: number; data: string; values: number[] }> = [
    { name: 'quotient 3, remainder 3 at k = 3', firstValue: 0, k: 3, data: '37', values: [0, 27] },
    { name: 'the top bit from the quotient at k = 30', firstValue: 0, k: 30, data: '0300000000', values: [0, 2 ** 31] },
    { name: 'from 0 to the maximum in one delta', firstValue: 0, k: 30, data: 'f7ffffff03', values: [0, MAX] },
    { name: 'consecutive removal indices at k = 3', firstValue: 5, k: 3, data: '22', values: [5, 6, 7] },
    { name: 'the maximum alone', firstValue: MAX, k: 3, data: '', values: [MAX] },
  ];
  for (const { name, firstValue, k, data, values } of cases) {
    it(name, () => {
      const message = { firstValue, riceParameter: k, entriesCount: values.length - 1, encodedData: fromHex(data) };
      assert.deepEqual([...decodeRice32(message)], values);
      assert.deepEqual(encodeRice32(Uint32Array.from(values), { riceParameter: k }), message);
    });
  }

  it('decodes an absent message to no entries, and encodes no entries as an absent message', () => {
    assert.equal(decodeRice32(undefined).length, 0);
    assert.equal(encodeRice32(new Uint32Array()), undefined);
  });

  it('decodes a present message without entries to its first value (as Chromium does)', () => {
    const alone = { firstValue: 0, riceParameter: 0, entriesCount: 0, encodedData: new Uint8Array() };
    assert.deepEqual([...decodeRice32(alone)], [0]);
  });

  it('decodes data living inside a larger buffer', () => {
    const backing = fromHex('ffff7400d2971bed497400ffff');
    const message = { firstValue: 489866504, riceParameter: 30, entriesCount: 2, encodedData: backing.subarray(2, 11) };
    assert.deepEqual([...decodeRice32(message)], [0x1d32c508, 0x291bc542, 0xf7a502e5]);
  });
});

describe('v5 32-bit Rice: round trips', () => {
  it('decodes what it encodes, with the bits of SB-10 and a parameter in 3..30', () => {
    fc.assert(
      fc.property(sortedValues32, (values) => {
        const message = encodeRice32(values);
        if (values.length === 0) {
          assert.equal(message, undefined);
          return;
        }
        assert.ok(message !== undefined);
        assert.equal(message.firstValue, values[0]);
        assert.equal(message.entriesCount, values.length - 1);
        assert.ok(message.riceParameter >= 3 && message.riceParameter <= 30);
        assert.deepEqual(message.encodedData, referenceEncode([...values].map(BigInt), message.riceParameter));
        assert.deepEqual(decodeRice32(message), values);
      }),
      { numRuns: 1500 },
    );
  });

  it('round-trips with any parameter the caller picks', () => {
    const gapsAndParameter = fc.integer({ min: 3, max: 30 }).chain((k) =>
      fc.record({
        k: fc.constant(k),
        first: fc.nat({ max: MAX }),
        // Gaps up to 2^(k + 4) keep the unary quotients short.
        gaps: fc.array(fc.integer({ min: 1, max: 2 ** Math.min(k + 4, 32) }), { maxLength: 100 }),
      }),
    );
    fc.assert(
      fc.property(gapsAndParameter, ({ k, first, gaps }) => {
        const values = [first];
        for (const gap of gaps) {
          const next = values[values.length - 1]! + gap;
          if (next > MAX) break;
          values.push(next);
        }
        const message = encodeRice32(Uint32Array.from(values), { riceParameter: k });
        assert.ok(message !== undefined);
        assert.equal(message.riceParameter, k);
        assert.deepEqual(message.encodedData, referenceEncode(values.map(BigInt), k));
        assert.deepEqual([...decodeRice32(message)], values);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips a realistic list of 100,000 random prefixes', () => {
    let state = 0x2545f491;
    const random = new Uint32Array(100_000).map(() => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state >>> 0;
    });
    const values = random.sort().filter((value, index, all) => index === 0 || value !== all[index - 1]);
    const message = encodeRice32(values);
    assert.ok(message !== undefined);
    // 2^32 / 100,000 ≈ 2^15.4: the shortest coding has k near 15 and about k + 2 bits per entry.
    assert.ok(message.riceParameter >= 14 && message.riceParameter <= 16, `k = ${message.riceParameter}`);
    assert.ok(message.encodedData.length * 8 < values.length * (message.riceParameter + 2.1));
    assert.deepEqual(decodeRice32(message), values);
  });
});

describe('v5 32-bit Rice: encoder input', () => {
  it('refuses unsorted and repeated values', () => {
    assert.throws(() => encodeRice32(Uint32Array.of(1, 3, 2)), {
      name: 'RiceEncodeError',
      reason: 'not-ascending',
      message: /value 2 at index 2 follows 3/,
    });
    assert.throws(() => encodeRice32(Uint32Array.of(7, 7)), { reason: 'not-ascending' });
  });

  it('refuses a parameter outside 3..30', () => {
    assert.throws(() => encodeRice32(Uint32Array.of(1, 2), { riceParameter: 2 }), { reason: 'parameter-out-of-range' });
    assert.throws(() => encodeRice32(Uint32Array.of(1, 2), { riceParameter: 31 }), {
      reason: 'parameter-out-of-range',
    });
  });
});
