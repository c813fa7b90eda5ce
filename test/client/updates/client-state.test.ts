import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseClientState } from '../../../src/client/updates/client-state.ts';
import { DatabaseFileError } from '../../../src/store/database.ts';

const FILE = '/data/client-state.json';
const requests = { notBefore: 1_700_000_000_000, failures: 2 };

describe('parseClientState', () => {
  it('takes the schedules as the client writes them, and no file as no state', () => {
    const state = { updates: { waits: { 'se-4b': 5, 'mw-4b': 6.5 }, requests }, search: { notBefore: 7, failures: 0 } };
    assert.deepEqual(parseClientState(JSON.parse(JSON.stringify(state)), FILE), state);
    const withCurrency = { updates: { waits: { 'se-4b': 5 }, current: { 'se-4b': 3_600_005 }, requests } };
    assert.deepEqual(parseClientState(JSON.parse(JSON.stringify(withCurrency)), FILE), withCurrency);
    assert.deepEqual(parseClientState({}, FILE), {});
    assert.deepEqual(parseClientState(undefined, FILE), {});
  });

  it('takes the per-list schedules of earlier versions without losing a wait or a back-off (RF-3, RF-4)', () => {
    const earlier = {
      updates: {
        'se-4b': { notBefore: 100, failures: 0 },
        'mw-4b': { notBefore: 900, failures: 2 },
        'uws-4b': { notBefore: 700, failures: 1 },
      },
      search: { notBefore: 7, failures: 0 },
    };
    assert.deepEqual(parseClientState(earlier, FILE), {
      updates: { waits: { 'se-4b': 100, 'mw-4b': 900, 'uws-4b': 700 }, requests: { notBefore: 900, failures: 2 } },
      search: { notBefore: 7, failures: 0 },
    });
    assert.deepEqual(
      parseClientState({ updates: { 'se-4b': { notBefore: 100, failures: 0 } } }, FILE).updates?.requests,
      { notBefore: 0, failures: 0 },
      'no back-off where none was',
    );
  });

  it('refuses, naming the field, anything that is not a usable schedule', () => {
    const cases: [unknown, RegExp][] = [
      [{ notBefore: 'soon' }, /unknown field "notBefore"/],
      [{ updates: { waits: {}, current: { 'se-4b': 'later' }, requests } }, /"updates\.current\.se-4b" is "later", not a moment in ms/],
      [[], /not a JSON object/],
      [null, /not a JSON object/],
      [{ search: { notBefore: 'soon', failures: 0 } }, /"search" is \{"notBefore":"soon","failures":0\}/],
      [{ search: { notBefore: 5, failures: -1 } }, /"search"/],
      [{ search: { notBefore: 5, failures: 1.5 } }, /"search"/],
      [{ search: { notBefore: 5 } }, /"search"/],
      [{ updates: { waits: { 'se-4b': null }, requests } }, /"updates\.waits\.se-4b" is null/],
      [{ updates: { waits: { 'se-4b': '5' }, requests } }, /"updates\.waits\.se-4b" is "5"/],
      [{ updates: { waits: {}, requests: { notBefore: null, failures: 0 } } }, /"updates\.requests"/],
      [{ updates: { 'se-4b': { notBefore: 'soon', failures: 0 } } }, /"updates" is not/],
      [{ updates: { waits: {}, requests, extra: 1 } }, /"updates" is not/],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => parseClientState(value, FILE),
        (err) =>
          err instanceof DatabaseFileError &&
          err.file === FILE &&
          message.test(err.message) &&
          /it is ignored, and written anew at the next save/.test(err.message),
        JSON.stringify(value),
      );
    }
  });
});
