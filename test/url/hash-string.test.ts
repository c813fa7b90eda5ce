import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hashStringOfHex, hexOfBytes, hexOfHashString, prefix32, prefix32OfBytes } from '../../src/url/hash-string.ts';

describe('hash strings', () => {
  it('convert to hex and back as Node’s Buffer does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const hashString = Buffer.from(bytes).toString('latin1');
        const hex = hexOfHashString(hashString);
        assert.equal(hex, Buffer.from(bytes).toString('hex'));
        assert.equal(hexOfBytes(bytes), hex);
        assert.equal(hashStringOfHex(hex), hashString);
        assert.equal(hashStringOfHex(hex.toUpperCase()), hashString);
        assert.equal(prefix32(hashString), Buffer.from(bytes).readUInt32BE(0));
        assert.equal(prefix32OfBytes(bytes), prefix32(hashString));
        assert.equal(prefix32OfBytes(bytes.subarray(0, 4)), prefix32(hashString));
      }),
    );
  });

  it('stop reading hex at the first pair that is none, as Buffer does', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        assert.equal(hashStringOfHex(text), Buffer.from(text, 'hex').toString('latin1'));
      }),
    );
    assert.equal(hashStringOfHex('ab1z'), '\xab');
  });
});
