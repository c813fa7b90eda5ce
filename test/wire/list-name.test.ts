import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_LIST_NAME_LENGTH, checkListName } from '../../src/wire/list-name.ts';
import { WireError } from '../../src/wire/wire-error.ts';

const invalidArgument = (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT';

describe('checkListName', () => {
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
      assert.doesNotThrow(() => checkListName(name, 'name'), name);
    }
    assert.doesNotThrow(() => checkListName('a'.repeat(MAX_LIST_NAME_LENGTH), 'name'));
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
      assert.throws(() => checkListName(name, 'names[0]'), invalidArgument, JSON.stringify(name));
    }
  });

  it('says where the bad name came from', () => {
    assert.throws(() => checkListName('a/b', 'names[3]'), /^WireError: names\[3\] "a\/b" is not a list name/);
    assert.throws(() => checkListName('', 'the list name in the path'), /the list name in the path is empty/);
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
