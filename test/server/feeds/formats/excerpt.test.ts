import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { excerpt, MAX_EXCERPT_LENGTH, quotedExcerpt } from '../../../../src/server/feeds/formats/excerpt.ts';

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

describe('excerpt', () => {
  it('leaves short plain text as it is', () => {
    assert.equal(excerpt('http://bad.example/login'), 'http://bad.example/login');
    assert.equal(excerpt('x'.repeat(MAX_EXCERPT_LENGTH)), 'x'.repeat(MAX_EXCERPT_LENGTH));
  });

  it('escapes terminal escapes, bidi controls, line breaks and backslashes', () => {
    assert.equal(excerpt('a\x1b[31mb\u202ec\r\nd\\x1b'), 'a\\x1b[31mb\\u{202e}c\\x0d\\x0ad\\\\x1b');
    assert.equal(excerpt('\ud800'), '\\u{d800}');
  });

  it('cuts long text to the limit, the last character an ellipsis', () => {
    assert.equal(excerpt('y'.repeat(1_000_000)), `${'y'.repeat(MAX_EXCERPT_LENGTH - 1)}…`);
    assert.equal(excerpt('\x1b'.repeat(100)).length, 77);
  });

  it('quotes with the quotes inside escaped, within the same limit', () => {
    assert.equal(quotedExcerpt('say "hi"'), '"say \\"hi\\""');
    assert.equal(quotedExcerpt('z'.repeat(500)).length, MAX_EXCERPT_LENGTH);
  });

  it('never gives more than the limit or an unsafe character, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 10, max: 200 }), (text, max) => {
        for (const shown of [excerpt(text, max), quotedExcerpt(text, max)]) {
          assert.ok(shown.length <= max, shown);
          assert.doesNotMatch(shown, UNSAFE);
        }
      }),
    );
  });
});
