import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseSearchFilter } from '../../../src/wire/rest/search-filter.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

const TYPES = ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'];

describe('the v5alpha1 search filter', () => {
  it('keeps the threat types its comparisons name; an empty filter keeps everything', () => {
    assert.equal(parseSearchFilter(''), undefined);
    assert.equal(parseSearchFilter('  '), undefined);
    assert.deepEqual(parseSearchFilter('threat_type == ThreatType.SOCIAL_ENGINEERING'), new Set(['SOCIAL_ENGINEERING']));
    assert.deepEqual(
      parseSearchFilter('(threat_type==ThreatType.MALWARE) || threat_type == ThreatType.UNWANTED_SOFTWARE'),
      new Set(['MALWARE', 'UNWANTED_SOFTWARE']),
    );
  });

  it('refuses what it cannot apply, with a 400 that shows the form it understands', () => {
    for (const filter of [
      'threat_type != ThreatType.MALWARE',
      'threat_type == ThreatType.MALWARE && true',
      'threat_type == 2',
      'threat_type == ThreatType.NOPE',
      'threat_type == ThreatType.THREAT_TYPE_UNSPECIFIED',
      '(threat_type == ThreatType.MALWARE',
      'threat_type == ThreatType.MALWARE)',
      'x'.repeat(2000),
    ]) {
      assert.throws(
        () => parseSearchFilter(filter),
        (error: unknown) =>
          error instanceof WireError && error.status === 'INVALID_ARGUMENT' && /sbkit understands filters such as/.test(error.message),
        filter.slice(0, 60),
      );
    }
  });

  it('reads any disjunction of known types back as exactly those types, and throws nothing but WireError on any text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1 }), fc.constantFrom(' ', '', '  '), (types, space) => {
        const filter = types.map((type) => `threat_type${space}==${space}ThreatType.${type}`).join(`${space}||${space}`);
        assert.deepEqual(parseSearchFilter(filter), new Set(types));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        try {
          parseSearchFilter(text);
        } catch (error) {
          assert.ok(error instanceof WireError, String(error));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
