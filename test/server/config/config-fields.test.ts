import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import {
  expectArrayOf,
  expectString,
  optionalBoolean,
  optionalNumber,
  wholeNumberFieldNames,
  wholeNumberSettings,
} from '../../../src/server/config/config-fields.ts';

function configError(field: string, problem: RegExp) {
  return (error: unknown) => error instanceof ConfigError && error.field === field && problem.test(error.problem);
}

describe('optionalNumber', () => {
  it('reads a member within its bounds, and nothing of an absent one', () => {
    assert.equal(optionalNumber({ wait: 30 }, 'wait', 'section', { min: 1, max: 60 }), 30);
    assert.equal(optionalNumber({}, 'wait', 'section', { min: 1, max: 60 }), undefined);
  });

  it('names the member where it stands when it is out of bounds', () => {
    assert.throws(() => optionalNumber({ wait: 61 }, 'wait', 'section', { min: 1, max: 60 }), configError('section.wait', /from 1 to 60/));
    assert.throws(() => optionalNumber({ wait: 0 }, 'wait', '', { min: 1 }), configError('wait', /at least 1/));
  });
});

describe('optionalBoolean', () => {
  it('reads true and false, and nothing of an absent member', () => {
    assert.equal(optionalBoolean({ on: false }, 'on', 'section'), false);
    assert.equal(optionalBoolean({ on: true }, 'on', 'section'), true);
    assert.equal(optionalBoolean({}, 'on', 'section'), undefined);
  });

  it('names the member and what it holds when it is no boolean', () => {
    assert.throws(() => optionalBoolean({ on: 'yes' }, 'on', 'section'), configError('section.on', /true or false, not the string "yes"/));
  });
});

describe('wholeNumberSettings', () => {
  const fields = {
    waitMs: { name: 'waitSeconds', min: 1, max: 60, scale: 1000 },
    count: { min: 0, max: 10 },
  };

  it('names each field as the file does: by its own name, or by the setting', () => {
    assert.deepEqual(wholeNumberFieldNames(fields), ['waitSeconds', 'count']);
  });

  it('gives each field present under its setting, scaled, and leaves the absent ones out', () => {
    assert.deepEqual(wholeNumberSettings({ waitSeconds: 2, count: 0 }, 'section', fields), { waitMs: 2000, count: 0 });
    assert.deepEqual(wholeNumberSettings({ count: 3 }, 'section', fields), { count: 3 });
  });

  it('refuses a fraction, naming the field by its name in the file', () => {
    assert.throws(() => wholeNumberSettings({ waitSeconds: 1.5 }, 'section', fields), configError('section.waitSeconds', /whole number/));
  });
});

describe('expectArrayOf', () => {
  it('reads each element, telling the reader where it stands', () => {
    const seen: string[] = [];
    const read = expectArrayOf(['a', 'b'], 'names', (element, at) => {
      seen.push(at);
      return expectString(element, at);
    });
    assert.deepEqual(read, ['a', 'b']);
    assert.deepEqual(seen, ['names[0]', 'names[1]']);
  });

  it('names the element that fails, and refuses what is no array', () => {
    assert.throws(() => expectArrayOf(['a', 7], 'names', expectString), configError('names[1]', /non-empty string/));
    assert.throws(() => expectArrayOf('a', 'names', expectString), configError('names', /must be an array/));
  });
});
