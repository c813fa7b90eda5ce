import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RiceDecodeError, type RiceDecodeReason } from '../../src/codec/rice-error.ts';
import { RICE_FORMATS } from '../../src/codec/rice-format.ts';
import { decodeRice128, decodeRice256, decodeRice64, encodeRice128, encodeRice256, encodeRice64 } from '../../src/codec/rice-wide.ts';
import { fromBigEndian, fromHex, hex, referenceEncode, sortedDistinct, toBigEndian } from './reference-rice.ts';

interface Encoded {
  first: bigint;
  riceParameter: number;
  entriesCount: number;
  encodedData: Uint8Array;
}

/** The three widths behind one interface: first value as one bigint, hashes as bytes. */
interface Width {
  format: 'v5-64bit' | 'v5-128bit' | 'v5-256bit';
  bits: number;
  decode(first: bigint, riceParameter: number, entriesCount: number, encodedData: Uint8Array): Uint8Array;
  encode(hashes: Uint8Array, riceParameter?: number): Encoded | undefined;
}

const MASK64 = 2n ** 64n - 1n;

const WIDTHS: Width[] = [
  {
    format: 'v5-64bit',
    bits: 64,
    decode: (first, riceParameter, entriesCount, encodedData) =>
      decodeRice64({ firstValue: first, riceParameter, entriesCount, encodedData }),
    encode: (hashes, riceParameter) => {
      const message = encodeRice64(hashes, { riceParameter });
      return message && { ...message, first: message.firstValue };
    },
  },
  {
    format: 'v5-128bit',
    bits: 128,
    decode: (first, riceParameter, entriesCount, encodedData) =>
      decodeRice128({
        firstValueHi: first >> 64n,
        firstValueLo: first & MASK64,
        riceParameter,
        entriesCount,
        encodedData,
      }),
    encode: (hashes, riceParameter) => {
      const message = encodeRice128(hashes, { riceParameter });
      return message && { ...message, first: (message.firstValueHi << 64n) | message.firstValueLo };
    },
  },
  {
    format: 'v5-256bit',
    bits: 256,
    decode: (first, riceParameter, entriesCount, encodedData) =>
      decodeRice256({
        firstValueFirstPart: first >> 192n,
        firstValueSecondPart: (first >> 128n) & MASK64,
        firstValueThirdPart: (first >> 64n) & MASK64,
        firstValueFourthPart: first & MASK64,
        riceParameter,
        entriesCount,
        encodedData,
      }),
    encode: (hashes, riceParameter) => {
      const message = encodeRice256(hashes, { riceParameter });
      if (message === undefined) return undefined;
      const parts = [message.firstValueFirstPart, message.firstValueSecondPart, message.firstValueThirdPart, message.firstValueFourthPart];
      return { ...message, first: parts.reduce((value, part) => (value << 64n) | part, 0n) };
    },
  },
];

function rejects(action: () => unknown, reason: RiceDecodeReason, format: string): void {
  assert.throws(
    action,
    (error: unknown) => error instanceof RiceDecodeError && error.reason === reason && error.format === format,
    `expected ${reason} from ${format}`,
  );
}

describe('v5 wide Rice: known answers', () => {
  it('64-bit: quotient 2, remainder 5 at k = 35', () => {
    const first = 0x0123_4567_89ab_cdefn;
    const second = first + 2n * 2n ** 35n + 5n;
    const message = { firstValue: first, riceParameter: 35, entriesCount: 1, encodedData: fromHex('2b00000000') };
    assert.deepEqual(fromBigEndian(decodeRice64(message), 8), [first, second]);
    assert.deepEqual(encodeRice64(toBigEndian([first, second], 8), { riceParameter: 35 }), message);
  });

  for (const width of WIDTHS) {
    const max = 2n ** BigInt(width.bits) - 1n;
    const bytes = width.bits / 8;

    it(`${width.bits}-bit: a delta of 1 carries through every limb`, () => {
      // 00 ff ff … ff + 1 = 01 00 00 … 00; quotient 0 and remainder 1 is the bit string 01.
      const first = max >> 8n;
      const k = width.bits - 29;
      const data = new Uint8Array(Math.ceil((k + 1) / 8));
      data[0] = 0b10;
      assert.deepEqual(fromBigEndian(width.decode(first, k, 1, data), bytes), [first, first + 1n]);
      assert.deepEqual(width.encode(toBigEndian([first, first + 1n], bytes), k)?.encodedData, data);
    });

    it(`${width.bits}-bit: from 0 to the maximum in one delta at the largest k`, () => {
      const k = width.bits - 2;
      // Quotient 3 (1110), then k one-bits.
      const data = referenceEncode([0n, max], k);
      assert.equal(hex(data.subarray(0, 2)), 'f7ff');
      assert.deepEqual(fromBigEndian(width.decode(0n, k, 1, data), bytes), [0n, max]);
      const chosen = width.encode(toBigEndian([0n, max], bytes));
      assert.equal(chosen?.riceParameter, k);
      assert.deepEqual(chosen?.encodedData, data);
    });

    it(`${width.bits}-bit: an absent message is an empty list, both ways`, () => {
      assert.equal(width.encode(new Uint8Array()), undefined);
    });
  }

  it('an absent message decodes to no hashes', () => {
    assert.equal(decodeRice64(undefined).length, 0);
    assert.equal(decodeRice128(undefined).length, 0);
    assert.equal(decodeRice256(undefined).length, 0);
  });

  it('256-bit: the full hashes of the SB-10 expressions, sorted', () => {
    const hashes = ['a.example.com/', 'b.example.com/', 'y.example.com/']
      .map((expression) => createHash('sha256').update(expression).digest())
      .sort((a, b) => Buffer.compare(a, b));
    const message = encodeRice256(new Uint8Array(Buffer.concat(hashes)));
    assert.ok(message !== undefined);
    assert.equal(message.firstValueFirstPart, hashes[0]!.readBigUInt64BE(0));
    assert.equal(message.firstValueFourthPart, hashes[0]!.readBigUInt64BE(24));
    assert.equal(message.entriesCount, 2);
    assert.equal(message.riceParameter, 254);
    assert.deepEqual(message.encodedData, referenceEncode(fromBigEndian(Buffer.concat(hashes), 32), 254));
    assert.deepEqual(decodeRice256(message), new Uint8Array(Buffer.concat(hashes)));
  });

  it('128-bit: the first value is split into its upper and lower halves', () => {
    const values = [0x0011_2233_4455_6677_8899_aabb_ccdd_eeffn, 0xffee_ddcc_bbaa_9988_7766_5544_3322_1100n];
    const message = encodeRice128(toBigEndian(values, 16));
    assert.equal(message?.firstValueHi, 0x0011_2233_4455_6677n);
    assert.equal(message?.firstValueLo, 0x8899_aabb_ccdd_eeffn);
    assert.deepEqual(fromBigEndian(decodeRice128(message), 16), values);
  });
});

describe('v5 wide Rice: round trips', () => {
  for (const width of WIDTHS) {
    const max = 2n ** BigInt(width.bits) - 1n;
    const bytes = width.bits / 8;
    const { minParameter, maxParameter } = RICE_FORMATS[width.format];
    const runs = width.bits === 256 ? 300 : width.bits === 128 ? 500 : 1000;

    it(`${width.bits}-bit: decodes what it encodes, as SB-10 codes it, k in ${minParameter}..${maxParameter}`, () => {
      const values = fc.array(fc.oneof(fc.constantFrom(0n, 1n, max - 1n, max), fc.bigInt({ min: 0n, max })), {
        maxLength: 60,
      });
      fc.assert(
        fc.property(values, (raw) => {
          const sorted = sortedDistinct(raw);
          const hashes = toBigEndian(sorted, bytes);
          const message = width.encode(hashes);
          if (sorted.length === 0) return assert.equal(message, undefined);
          assert.ok(message !== undefined);
          assert.equal(message.first, sorted[0]);
          assert.equal(message.entriesCount, sorted.length - 1);
          assert.ok(message.riceParameter >= minParameter && message.riceParameter <= maxParameter);
          assert.deepEqual(message.encodedData, referenceEncode(sorted, message.riceParameter));
          const { first, riceParameter, entriesCount, encodedData } = message;
          assert.deepEqual(width.decode(first, riceParameter, entriesCount, encodedData), hashes);
        }),
        { numRuns: runs },
      );
    });

    it(`${width.bits}-bit: round-trips dense lists with any parameter the caller picks`, () => {
      const dense = fc.integer({ min: minParameter, max: maxParameter }).chain((k) =>
        fc.record({
          k: fc.constant(k),
          first: fc.bigInt({ min: 0n, max }),
          gaps: fc.array(fc.bigInt({ min: 1n, max: 2n ** BigInt(k + 3) }), { maxLength: 30 }),
        }),
      );
      fc.assert(
        fc.property(dense, ({ k, first, gaps }) => {
          const sorted = [first];
          for (const gap of gaps) {
            const next = sorted[sorted.length - 1]! + gap;
            if (next > max) break;
            sorted.push(next);
          }
          const message = width.encode(toBigEndian(sorted, bytes), k);
          assert.ok(message !== undefined);
          assert.equal(message.riceParameter, k);
          assert.deepEqual(message.encodedData, referenceEncode(sorted, k));
          const decoded = width.decode(message.first, k, message.entriesCount, message.encodedData);
          assert.deepEqual(fromBigEndian(decoded, bytes), sorted);
        }),
        { numRuns: Math.floor(runs / 2) },
      );
    });
  }
});

describe('v5 wide Rice: malformed input', () => {
  for (const width of WIDTHS) {
    const { format, bits } = width;
    const max = 2n ** BigInt(bits) - 1n;
    const k = bits - 2;
    const valid = referenceEncode([0n, 5n, max], k);

    it(`${bits}-bit: each malformation has its reason`, () => {
      assert.deepEqual(fromBigEndian(width.decode(0n, k, 2, valid), bits / 8), [0n, 5n, max]);
      rejects(() => width.decode(0n, k + 1, 2, valid), 'parameter-out-of-range', format);
      rejects(() => width.decode(0n, bits - 30, 2, valid), 'parameter-out-of-range', format);
      rejects(() => width.decode(0n, 0, 2, valid), 'parameter-out-of-range', format);
      rejects(() => width.decode(0n, k, -1, valid), 'count-negative', format);
      rejects(() => width.decode(0n, k, 3, valid), 'count-too-large', format);
      rejects(() => width.decode(0n, k, 2 ** 31 - 1, valid), 'count-too-large', format);
      rejects(() => width.decode(0n, k, 2, valid.subarray(0, valid.length - 1)), 'out-of-bits', format);
      rejects(() => width.decode(0n, k, 1, new Uint8Array(valid.length).fill(0xff)), 'out-of-bits', format);
      rejects(() => width.decode(0n, k, 1, valid), 'count-mismatch', format);
      rejects(() => width.decode(0n, k, 2, Uint8Array.of(...valid, 0)), 'count-mismatch', format);
      rejects(() => width.decode(0n, 0, 0, Uint8Array.of(0)), 'count-mismatch', format);
      // Carry out of the top limb: max + 1.
      rejects(() => width.decode(max, k, 1, referenceEncode([0n, 1n], k)), 'value-overflow', format);
      // A quotient of 4 at k = width - 2 is 2^width.
      rejects(() => width.decode(0n, k, 1, referenceEncode([0n, 4n << BigInt(k)], k)), 'value-overflow', format);
      // A zero delta: quotient 0, remainder 0.
      rejects(() => width.decode(7n, k, 1, new Uint8Array(Math.ceil((k + 1) / 8))), 'duplicate-entry', format);
    });
  }

  it('refuses a first value part outside 0..2^64-1', () => {
    const encodedData = new Uint8Array();
    const part = { riceParameter: 0, entriesCount: 0, encodedData };
    rejects(() => decodeRice64({ ...part, firstValue: 2n ** 64n }), 'first-value-out-of-range', 'v5-64bit');
    rejects(() => decodeRice64({ ...part, firstValue: -1n }), 'first-value-out-of-range', 'v5-64bit');
    rejects(() => decodeRice128({ ...part, firstValueHi: 0n, firstValueLo: 2n ** 64n }), 'first-value-out-of-range', 'v5-128bit');
    rejects(
      () =>
        decodeRice256({
          ...part,
          firstValueFirstPart: 0n,
          firstValueSecondPart: 0n,
          firstValueThirdPart: -5n,
          firstValueFourthPart: 0n,
        }),
      'first-value-out-of-range',
      'v5-256bit',
    );
  });

  it('either returns sorted distinct hashes that re-encode to the data, or throws RiceDecodeError', () => {
    // Random bits of about the length the entries need, so that most cases reach the entry loop.
    const hostile = fc.record({
      width: fc.constantFrom(...WIDTHS),
      kOffset: fc.integer({ min: -1, max: 30 }),
      first: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })),
      entriesCount: fc.nat({ max: 4 }),
      slackBytes: fc.integer({ min: -2, max: 2 }),
      bits: fc.uint8Array({ minLength: 160, maxLength: 160 }),
    });
    fc.assert(
      fc.property(hostile, ({ width, kOffset, first, entriesCount, slackBytes, bits }) => {
        const bytes = width.bits / 8;
        const start = first & (2n ** BigInt(width.bits) - 1n);
        const k = width.bits - 30 + kOffset;
        const encodedData = bits.subarray(0, Math.max(0, Math.ceil((entriesCount * (k + 2)) / 8) + slackBytes));
        let hashes: Uint8Array;
        try {
          hashes = width.decode(start, k, entriesCount, encodedData);
        } catch (error) {
          assert.ok(error instanceof RiceDecodeError, `unexpected ${String(error)}`);
          return;
        }
        const values = fromBigEndian(hashes, bytes);
        assert.equal(values.length, entriesCount + 1);
        assert.equal(values[0], start);
        for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, `not ascending at ${i}`);
        // Encoding the result again gives back the data, but for the padding bits of the last byte.
        const expected = Uint8Array.from(encodedData);
        const paddingBits = expected.length * 8 - bitCount(values, k);
        if (paddingBits > 0) expected[expected.length - 1]! &= 0xff >>> paddingBits;
        assert.deepEqual(referenceEncode(values, k), expected);
      }),
      { numRuns: 1000 },
    );
  });
});

/** Bits SB-10 takes for the deltas of `values` at parameter k. */
function bitCount(values: readonly bigint[], k: number): number {
  let bits = 0;
  for (let i = 1; i < values.length; i++) bits += Number((values[i]! - values[i - 1]!) >> BigInt(k)) + 1 + k;
  return bits;
}

describe('v5 wide Rice: encoder input', () => {
  for (const width of WIDTHS) {
    const bytes = width.bits / 8;
    it(`${width.bits}-bit: refuses ragged, unsorted and repeated hashes, and a bad parameter`, () => {
      assert.throws(() => width.encode(new Uint8Array(bytes + 1)), { name: 'RiceEncodeError', reason: 'ragged-input' });
      assert.throws(() => width.encode(toBigEndian([2n, 1n], bytes)), {
        reason: 'not-ascending',
        message: /hash 1 does not sort after hash 0/,
      });
      const high = 1n << BigInt(width.bits - 3);
      assert.throws(() => width.encode(toBigEndian([high, high], bytes)), { reason: 'not-ascending' });
      assert.throws(() => width.encode(toBigEndian([high, 1n], bytes)), { reason: 'not-ascending' });
      assert.throws(() => width.encode(toBigEndian([1n, 2n], bytes), width.bits - 1), {
        reason: 'parameter-out-of-range',
      });
    });
  }
});
