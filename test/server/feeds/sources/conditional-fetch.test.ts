import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { conditionalHeaders, refreshedValidators, validatorsOf } from '../../../../src/server/feeds/sources/conditional-fetch.ts';

describe('validatorsOf', () => {
  it('keeps strong and weak ETags and HTTP dates as received', () => {
    assert.deepEqual(validatorsOf({ etag: '"abc-123"', 'last-modified': 'Tue, 24 Nov 2026 10:00:00 GMT' }), {
      etag: '"abc-123"',
      lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT',
    });
    assert.deepEqual(validatorsOf({ etag: 'W/"5f-1"' }), { etag: 'W/"5f-1"' });
  });

  it('drops what is no entity tag or date, and what is too long', () => {
    assert.deepEqual(validatorsOf({ etag: 'unquoted', 'last-modified': 'yesterday' }), {});
    assert.deepEqual(validatorsOf({ etag: '"a"b"' }), {});
    assert.deepEqual(validatorsOf({ etag: `"${'x'.repeat(300)}"` }), {});
    assert.deepEqual(validatorsOf({ etag: '"caf\u00e9"' }), {}, 'obs-text is not kept');
  });

  it('gives only values that can be sent back as request headers, unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), (etag, lastModified) => {
        const kept = validatorsOf({ etag, 'last-modified': lastModified });
        for (const [name, value] of Object.entries(conditionalHeaders(kept))) validateHeaderValue(name, String(value));
        if (kept.etag !== undefined) assert.equal(kept.etag, etag.trim());
        if (kept.lastModified !== undefined) assert.equal(kept.lastModified, lastModified.trim());
      }),
    );
  });
});

describe('conditionalHeaders', () => {
  it('sends both validators when both are known, none without', () => {
    assert.deepEqual(conditionalHeaders({ etag: '"v1"', lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT' }), {
      'if-none-match': '"v1"',
      'if-modified-since': 'Tue, 24 Nov 2026 10:00:00 GMT',
    });
    assert.deepEqual(conditionalHeaders(undefined), {});
  });

  it("takes a 304's validators over those sent, and keeps those it does not repeat", () => {
    assert.deepEqual(refreshedValidators({ etag: '"v1"', lastModified: 'x' }, { etag: '"v2"' }), { etag: '"v2"', lastModified: 'x' });
  });
});
