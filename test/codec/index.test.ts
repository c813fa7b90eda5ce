import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as codec from '../../src/codec/index.ts';

describe('the codec’s public surface', () => {
  it('exports the decoders, encoders, prefix helpers and error classes', () => {
    const names = [
      'decodeRice32',
      'encodeRice32',
      'decodeRice64',
      'encodeRice64',
      'decodeRice128',
      'encodeRice128',
      'decodeRice256',
      'encodeRice256',
      'decodeV4RiceHashes',
      'decodeV4RiceIndices',
      'encodeV4RiceHashes',
      'encodeV4RiceIndices',
      'prefixesToBytes',
      'prefixesFromBytes',
      'RiceDecodeError',
      'RiceEncodeError',
    ];
    assert.deepEqual(Object.keys(codec).sort(), [...names].sort());
    for (const name of names) assert.equal(typeof codec[name as keyof typeof codec], 'function', name);
  });

  it('decodes the SB-10 example through it', () => {
    const encodedData = new Uint8Array([0x74, 0x00, 0xd2, 0x97, 0x1b, 0xed, 0x49, 0x74, 0x00]);
    const values = codec.decodeRice32({ firstValue: 489866504, riceParameter: 30, entriesCount: 2, encodedData });
    assert.deepEqual(
      codec.prefixesToBytes(values),
      new Uint8Array([0x1d, 0x32, 0xc5, 0x08, 0x29, 0x1b, 0xc5, 0x42, 0xf7, 0xa5, 0x02, 0xe5]),
    );
  });
});
