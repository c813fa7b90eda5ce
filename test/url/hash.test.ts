import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  expressionHash,
  expressionHashBytes,
  expressionHashString,
  hashPrefix,
  hashStringOfHex,
  hexOfHashString,
  prefix32,
} from '../../src/url/hash.ts';

describe('expressionHash', () => {
  it('is SHA-256 of the expression in lower-case hex (docs/api.md test identifier)', () => {
    const full = expressionHash('malware.sbtest.example/');
    assert.equal(full, 'bfd00f8e2fe3c810bd449e28af095aa010d0ebc11875a2bab2f19b9147cf086f');
    assert.equal(Buffer.from(hashPrefix(full), 'hex').toString('base64'), 'v9APjg==');
  });

  it('matches the SB-10 worked example hashes', () => {
    assert.equal(expressionHash('a.example.com/'), '291bc5421f1cd54d99afcc55d166e2b9fe42447025895bf09dd41b2110a687dc');
    assert.equal(expressionHash('y.example.com/'), 'f7a502e56e8b01c6dc242b35122683c9d25d07fb1f532d9853eb0ef3ff334f03');
  });

  it('truncates to the requested prefix length in bytes', () => {
    const full = expressionHash('b.example.com/');
    assert.equal(hashPrefix(full, 4), '1d32c508');
    assert.equal(hashPrefix(full), '1d32c508');
    assert.equal(hashPrefix(full, 16).length, 32);
    assert.equal(hashPrefix(full, 32), full);
  });
});

describe('the inner forms of a full hash', () => {
  it('carry the same bytes as expressionHash, and convert both ways', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (expression) => {
        const full = expressionHash(expression);
        const bytes = expressionHashBytes(expression);
        const hashString = expressionHashString(expression);
        assert.equal(bytes.toString('hex'), full);
        assert.equal(hexOfHashString(hashString), full);
        assert.equal(hashStringOfHex(full), hashString);
        assert.equal(prefix32(hashString), bytes.readUInt32BE(0));
      }),
    );
  });

  it('reads a prefix with the top bit set as an unsigned number', () => {
    assert.equal(prefix32(expressionHashString('y.example.com/')), 0xf7a502e5);
  });
});
