import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalizePath } from '../../src/url/path.ts';

describe('canonicalizePath', () => {
  const cases: [string, string][] = [
    ['/', '/'],
    ['/blah/..', '/'],
    ['/a/./b', '/a/b'],
    ['/a/b/../c', '/a/c'],
    ['/a/b/.', '/a/b/'],
    ['/a/b/..', '/a/'],
    ['/../a', '/a'],
    ['//a///b//', '/a/b/'],
    ['/a//../b', '/a/b'],
    ['/.hidden/..dots/...', '/.hidden/..dots/...'],
  ];
  for (const [input, expected] of cases) {
    it(`${input} → ${expected}`, () => assert.equal(canonicalizePath(input), expected));
  }

  it('is stable, keeps the leading slash and leaves no dot segment or double slash', () => {
    const segment = fc.constantFrom('', '.', '..', 'a', 'b', '...', '.x');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 12 }), (segments) => {
        const once = canonicalizePath(`/${segments.join('/')}`);
        assert.equal(canonicalizePath(once), once);
        assert.ok(once.startsWith('/'));
        assert.ok(!once.includes('//'));
        assert.ok(!once.split('/').some((s) => s === '.' || s === '..'));
      }),
      { numRuns: 2000 },
    );
  });
});
