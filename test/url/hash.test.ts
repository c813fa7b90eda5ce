import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expressionHash, expressionHashString, hashPrefix, prefix32 } from '../../src/url/hash.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('expressionHash', () => {
  it('is SHA-256 of the expression (docs/api.md test identifier)', () => {
    const full = expressionHash('malware.sbtest.example/');
    assert.equal(hex(full), 'bfd00f8e2fe3c810bd449e28af095aa010d0ebc11875a2bab2f19b9147cf086f');
    assert.equal(Buffer.from(hashPrefix(full)).toString('base64'), 'v9APjg==');
  });

  it('matches the SB-10 worked example hashes', () => {
    assert.equal(hex(expressionHash('a.example.com/')), '291bc5421f1cd54d99afcc55d166e2b9fe42447025895bf09dd41b2110a687dc');
    assert.equal(hex(expressionHash('y.example.com/')), 'f7a502e56e8b01c6dc242b35122683c9d25d07fb1f532d9853eb0ef3ff334f03');
  });

  it('truncates to the requested prefix length', () => {
    const full = expressionHash('b.example.com/');
    assert.equal(hex(hashPrefix(full, 4)), '1d32c508');
    assert.equal(hashPrefix(full, 16).length, 16);
    assert.equal(full.length, 32);
  });
});

describe('expressionHashString and prefix32', () => {
  it('carry the same bytes as expressionHash', () => {
    for (const expression of ['a.example.com/', 'malware.sbtest.example/', 'x/?q']) {
      const bytes = Buffer.from(expressionHash(expression));
      assert.equal(Buffer.from(expressionHashString(expression), 'latin1').toString('hex'), bytes.toString('hex'));
      assert.equal(prefix32(expressionHashString(expression)), bytes.readUInt32BE(0));
    }
  });

  it('reads a prefix with the top bit set as an unsigned number', () => {
    assert.equal(prefix32(expressionHashString('y.example.com/')), 0xf7a502e5);
  });
});
