import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sha256Portable } from '../../src/url/sha256.ts';

const nodeSha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

describe('sha256', () => {
  it('the portable one agrees with node:crypto on any bytes, every padding boundary included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (bytes, offset) => {
        // A view that does not start its buffer, as list bytes often are.
        const framed = new Uint8Array(bytes.length + offset);
        framed.set(bytes, offset);
        const view = framed.subarray(offset);
        assert.deepEqual(Buffer.from(sha256Portable(view)), nodeSha256(bytes));
      }),
    );
    for (const length of [55, 56, 63, 64, 65, 119, 120, 128, 100_000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31) & 0xff);
      assert.deepEqual(Buffer.from(sha256Portable(bytes)), nodeSha256(bytes), `length ${length}`);
    }
  });
});
