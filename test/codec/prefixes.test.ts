import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { prefixesFromBytes, prefixesToBytes } from '../../src/codec/prefixes.ts';
import { fromHex, hex } from './reference-rice.ts';

describe('4-byte prefixes as big-endian integers', () => {
  it('turn into their bytes, most significant first', () => {
    const bytes = prefixesToBytes(Uint32Array.of(0x1d32c508, 0x291bc542, 0xffff_ffff, 0));
    assert.equal(hex(bytes), '1d32c508291bc542ffffffff00000000');
    assert.equal(prefixesToBytes(new Uint32Array()).length, 0);
  });

  it('are read back from bytes, also from inside a larger buffer', () => {
    const backing = fromHex('aa1d32c508f7a502e5bb');
    assert.deepEqual([...prefixesFromBytes(backing.subarray(1, 9))], [0x1d32c508, 0xf7a502e5]);
  });

  it('sort numerically exactly as their bytes sort lexicographically', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffff_ffff }), { maxLength: 50 }), (values) => {
        const sorted = Uint32Array.from(values).sort();
        const bytes = prefixesToBytes(sorted);
        const chunks = Array.from({ length: sorted.length }, (_, i) => Buffer.from(bytes.subarray(i * 4, i * 4 + 4)));
        assert.deepEqual(
          [...chunks].sort((a, b) => Buffer.compare(a, b)),
          chunks,
        );
        assert.deepEqual(prefixesFromBytes(bytes), sorted);
      }),
    );
  });

  it('refuse bytes that are not whole prefixes, naming the message they were meant for', () => {
    assert.throws(() => prefixesFromBytes(new Uint8Array(6)), {
      name: 'RiceEncodeError',
      reason: 'ragged-input',
      format: 'v5-32bit',
      message: /6 bytes are not 4-byte prefixes/,
    });
    assert.throws(() => prefixesFromBytes(new Uint8Array(3), 'v4'), { reason: 'ragged-input', format: 'v4' });
  });
});
