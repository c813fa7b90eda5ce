import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapeBytes, toByteString, unescapeFully } from '../../src/url/percent.ts';

/** The spec's procedure taken literally: unescape pass after pass until nothing changes. */
function unescapeByPasses(input: string): string {
  let current = input;
  for (;;) {
    const next = current.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) return current;
    current = next;
  }
}

describe('unescapeFully', () => {
  it('reaches the same fixed point as repeated passes (SB-5 step 3)', () => {
    const alphabet = fc.constantFrom('%', '2', '5', '3', '4', '1', 'a', 'A', 'f', 'g', 'x', '0');
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 40 }), (s) => {
        assert.equal(unescapeFully(s), unescapeByPasses(s));
      }),
      { numRuns: 5000 },
    );
  });

  it('decodes nested escapes', () => {
    assert.equal(unescapeFully('%252525'), '%');
    assert.equal(unescapeFully('%%%25%32%35asd%%'), '%%%asd%%');
    assert.equal(unescapeFully('%zz%4'), '%zz%4');
  });
});

describe('escapeBytes', () => {
  it('escapes bytes <= 32, >= 127, # and %, uppercase', () => {
    assert.equal(escapeBytes('a b#c%d\x7f\xff\x00~'), 'a%20b%23c%25d%7F%FF%00~');
  });

  it('leaves every other printable byte alone', () => {
    const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))
      .filter((c) => c !== '#' && c !== '%')
      .join('');
    assert.equal(escapeBytes(printable), printable);
  });

  it('round-trips through unescaping for any bytes without escapes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = unescapeFully(Buffer.from(bytes).toString('latin1'));
        assert.equal(unescapeFully(escapeBytes(text)), text);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('toByteString', () => {
  it('gives the UTF-8 bytes of non-ASCII text and ASCII unchanged', () => {
    assert.equal(toByteString('é'), '\xc3\xa9');
    assert.equal(toByteString('plain'), 'plain');
  });
});
