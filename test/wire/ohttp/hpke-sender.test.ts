import assert from 'node:assert/strict';
import { hkdfSync } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hkdfExpand, hkdfExtract } from '../../../src/wire/ohttp/hpke-sender.ts';

const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

describe('HKDF-SHA256', () => {
  it("gives RFC 5869's test cases 1 and 3 (the latter with an empty salt)", () => {
    const ikm = hex('0b'.repeat(22));
    const prk = hkdfExtract(hex('000102030405060708090a0b0c'), ikm);
    assert.equal(Buffer.from(prk).toString('hex'), '077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5');
    const okm = hkdfExpand(prk, hex('f0f1f2f3f4f5f6f7f8f9'), 42);
    assert.equal(Buffer.from(okm).toString('hex'), '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865');
    const unsalted = hkdfExpand(hkdfExtract(new Uint8Array(0), ikm), new Uint8Array(0), 42);
    assert.equal(
      Buffer.from(unsalted).toString('hex'),
      '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
    );
  });

  it("agrees with node:crypto's HKDF for any salt, key material, info and length", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 150 }),
        fc.uint8Array({ maxLength: 150 }),
        fc.uint8Array({ maxLength: 80 }),
        fc.integer({ min: 1, max: 200 }),
        (salt, ikm, info, length) => {
          const ours = hkdfExpand(hkdfExtract(salt, ikm), info, length);
          assert.deepEqual(Buffer.from(ours), Buffer.from(hkdfSync('sha256', ikm, salt, info, length)));
        },
      ),
      { numRuns: 100 },
    );
  });
});
