import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { listNameProblem, listNameReason, MAX_LIST_NAME_LENGTH, widthOfListName } from '../../src/lists/list-name.ts';
import { checkListName } from '../../src/wire/list-name.ts';
import { WireError } from '../../src/wire/wire-error.ts';

const invalidArgument = (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT';

describe('the list-name grammar', () => {
  it('accepts the names real clients use and the short aliases (docs/api.md §3)', () => {
    for (const name of [
      'se-4b',
      'mw-4b',
      'uws-4b',
      'uwsa-4b',
      'pha-4b',
      'mwb-4b',
      'csdda-32b',
      'gc-32b',
      'test-4b',
      'test-32b',
      'se',
      'mw',
      'my_list.v2',
    ]) {
      assert.equal(listNameProblem(name), undefined, name);
    }
    assert.equal(listNameProblem('a'.repeat(MAX_LIST_NAME_LENGTH)), undefined);
  });

  it('rejects what is not a list name: custom methods, paths, escapes, non-ASCII, empty, too long', () => {
    for (const name of [
      ':batchGet',
      'se:batchGet',
      'se/4b',
      '../etc',
      'se 4b',
      'se%2F4b',
      'sé-4b',
      '-se',
      '.se',
      '',
      'a'.repeat(MAX_LIST_NAME_LENGTH + 1),
    ]) {
      assert.notEqual(listNameProblem(name), undefined, JSON.stringify(name));
    }
    assert.equal(listNameProblem(''), 'empty');
    assert.equal(listNameProblem('a'.repeat(MAX_LIST_NAME_LENGTH + 1)), 'too-long');
    assert.equal(listNameProblem('se/4b'), 'characters');
  });

  it('says what is wrong in words a person can act on', () => {
    assert.equal(listNameReason('', 'empty'), 'a list name is empty; name a hash list such as se-4b');
    assert.match(listNameReason('a'.repeat(65), 'too-long'), /65 characters is too long; list names have at most 64/);
    assert.match(listNameReason('a/b', 'characters'), /^"a\/b" is not a list name: use ASCII letters/);
  });

  it('reads the width a name states', () => {
    assert.equal(widthOfListName('se-4b'), 4);
    assert.equal(widthOfListName('gc-32b'), 32);
    assert.equal(widthOfListName('x-16b'), 16);
    assert.equal(widthOfListName('se'), undefined);
    assert.equal(widthOfListName('x-12b'), undefined);
  });
});

describe('checkListName (list names in requests)', () => {
  it('says where in the request the bad name came from', () => {
    assert.throws(() => checkListName('a/b', 'names[3]'), /^WireError: names\[3\]: "a\/b" is not a list name/);
    assert.throws(() => checkListName('', 'the list name in the path'), /the list name in the path: a list name is empty/);
  });

  it('property: any string is accepted or refused with INVALID_ARGUMENT', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (name) => {
        try {
          checkListName(name, 'name');
          assert.match(name, /^[A-Za-z0-9][A-Za-z0-9._-]*$/);
        } catch (error) {
          assert.ok(invalidArgument(error));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
