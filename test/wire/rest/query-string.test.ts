import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatQueryString, parseQueryString } from '../../../src/wire/rest/query-string.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

describe('parseQueryString', () => {
  it('keeps parameters in order, repeated names and empty values included (Firefox positional versions)', () => {
    assert.deepEqual(parseQueryString('key=K&names=se-4b&names=mw-4b&version=&version=djE%3D'), [
      { name: 'key', value: 'K' },
      { name: 'names', value: 'se-4b' },
      { name: 'names', value: 'mw-4b' },
      { name: 'version', value: '' },
      { name: 'version', value: 'djE=' },
    ]);
  });

  it('decodes percent-escapes in names and values, + as space, and skips empty segments', () => {
    assert.deepEqual(parseQueryString('%24req=a%2Bb&&x+y=1+2&flag'), [
      { name: '$req', value: 'a+b' },
      { name: 'x y', value: '1 2' },
      { name: 'flag', value: '' },
    ]);
    assert.deepEqual(parseQueryString(''), []);
  });

  it('splits on the first = only', () => {
    assert.deepEqual(parseQueryString('hashPrefixes=v9APjg=='), [{ name: 'hashPrefixes', value: 'v9APjg==' }]);
  });

  it('rejects malformed percent-escapes with INVALID_ARGUMENT', () => {
    for (const query of ['a=%', 'a=%G1', '%zz=1', 'a=%FF', 'a=%C3']) {
      assert.throws(
        () => parseQueryString(query),
        (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT',
        query,
      );
    }
  });

  it('property: arbitrary text parses or raises INVALID_ARGUMENT', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '=', '&', '%', '2', 'F', '+', 'é', '\uD800') }), (query) => {
        try {
          parseQueryString(query);
        } catch (error) {
          assert.ok(error instanceof WireError && error.status === 'INVALID_ARGUMENT');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formatQueryString', () => {
  it('percent-encodes what needs it', () => {
    assert.equal(
      formatQueryString([
        { name: 'sizeConstraints.maxUpdateEntries', value: '1024' },
        { name: 'version', value: 'a+b/=' },
        { name: 'urls', value: 'http://x/?a=1&b' },
      ]),
      'sizeConstraints.maxUpdateEntries=1024&version=a%2Bb%2F%3D&urls=http%3A%2F%2Fx%2F%3Fa%3D1%26b',
    );
  });

  it('property: parseQueryString inverts it', () => {
    const text = (minLength: number) => fc.string({ unit: 'grapheme', minLength });
    const parameter = fc.record({ name: text(1), value: text(0) });
    fc.assert(
      fc.property(fc.array(parameter, { maxLength: 8 }), (parameters) => {
        // fast-check's records have no prototype; ours do.
        const plain = parameters.map(({ name, value }) => ({ name, value }));
        assert.deepEqual(parseQueryString(formatQueryString(plain)), plain);
      }),
      { numRuns: 1000 },
    );
  });
});
