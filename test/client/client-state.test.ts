import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseClientState } from '../../src/client/client-state.ts';
import { DatabaseFileError } from '../../src/store/database.ts';

const FILE = '/data/client-state.json';
const requests = { notBefore: 1_700_000_000_000, failures: 2 };

describe('parseClientState', () => {
  it('takes the schedules as the client writes them, and no file as no state', () => {
    const state = { updates: { waits: { 'se-4b': 5, 'mw-4b': 6.5 }, requests }, search: { notBefore: 7, failures: 0 } };
    assert.deepEqual(parseClientState(JSON.parse(JSON.stringify(state)), FILE), state);
    assert.deepEqual(parseClientState({}, FILE), {});
    assert.deepEqual(parseClientState(undefined, FILE), {});
  });

  it('refuses, naming the field, anything that is not a usable schedule', () => {
    const cases: [unknown, RegExp][] = [
      [{ notBefore: 'soon' }, /unknown field "notBefore"/],
      [[], /not a JSON object/],
      [null, /not a JSON object/],
      [{ search: { notBefore: 'soon', failures: 0 } }, /"search" is \{"notBefore":"soon","failures":0\}/],
      [{ search: { notBefore: 5, failures: -1 } }, /"search"/],
      [{ search: { notBefore: 5, failures: 1.5 } }, /"search"/],
      [{ search: { notBefore: 5 } }, /"search"/],
      [{ updates: { waits: { 'se-4b': null }, requests } }, /"updates\.waits\.se-4b" is null/],
      [{ updates: { waits: { 'se-4b': '5' }, requests } }, /"updates\.waits\.se-4b" is "5"/],
      [{ updates: { waits: {}, requests: { notBefore: null, failures: 0 } } }, /"updates\.requests"/],
      [{ updates: { 'se-4b': requests } }, /"updates" is not/],
      [{ updates: { waits: {}, requests, extra: 1 } }, /"updates" is not/],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => parseClientState(value, FILE),
        (err) => err instanceof DatabaseFileError && err.file === FILE && message.test(err.message) && /it is ignored, and written anew at the next save/.test(err.message),
        JSON.stringify(value),
      );
    }
  });
});
