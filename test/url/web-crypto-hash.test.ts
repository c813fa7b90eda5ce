import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { expressionHashString, nodeExpressionHasher } from '../../src/url/hash.ts';
import { webCryptoHasher } from '../../src/url/web-crypto-hash.ts';
import { expressionsOf } from '../../src/url/expressions.ts';
import { parseCanonicalUrl } from '../../src/url/canonicalize.ts';

describe('expression hashers', () => {
  it('WebCrypto gives the hashes node:crypto gives, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary-ascii', maxLength: 60 }), { maxLength: 30 }), async (expressions) => {
        const printable = expressions.map((e) => e.replace(/[^\x21-\x7e]/g, 'x'));
        assert.deepEqual(await webCryptoHasher.hashAll(printable), printable.map(expressionHashString));
      }),
    );
  });

  it('Node’s hasher answers synchronously, WebCrypto’s with one promise for the batch', async () => {
    const expressions = expressionsOf(parseCanonicalUrl('http://a.b.example.com/1/2.html?q=1'));
    const sync = nodeExpressionHasher.hashAll(expressions);
    assert.ok(Array.isArray(sync));
    const batch = webCryptoHasher.hashAll(expressions);
    assert.ok(batch instanceof Promise);
    assert.deepEqual(await batch, sync);
  });
});

describe('outside a secure context (no crypto.subtle)', () => {
  it('hashes in JavaScript, synchronously, to the same hashes', () => {
    const expressions = expressionsOf(parseCanonicalUrl('http://a.b.example.com/1/2.html?q=1'));
    const subtle = Object.getOwnPropertyDescriptor(globalThis.crypto, 'subtle');
    Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined, configurable: true });
    try {
      const hashes = webCryptoHasher.hashAll(expressions);
      assert.ok(Array.isArray(hashes));
      assert.deepEqual(hashes, expressions.map(expressionHashString));
    } finally {
      if (subtle === undefined) Reflect.deleteProperty(globalThis.crypto, 'subtle');
      else Object.defineProperty(globalThis.crypto, 'subtle', subtle);
    }
  });
});
