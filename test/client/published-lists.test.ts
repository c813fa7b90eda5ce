import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PublishedLists } from '../../src/client/published-lists.ts';
import { UnknownListError } from '../../src/lists/unknown-list-error.ts';

const THREAT_LISTS = ['se-4b', 'mw-4b'];

describe('PublishedLists', () => {
  it('knows a list published once the server names it or a copy is stored, by alias too', () => {
    const lists = new PublishedLists(new Set(), THREAT_LISTS);
    assert.equal(lists.has('se-4b'), false);
    assert.deepEqual(lists.learn(['se-4b', 'mw-4b'], ['se', 'gc-32b']), ['mw-4b']);
    assert.deepEqual([lists.has('se-4b'), lists.has('mw-4b')], [true, false]);
    lists.stored('mw-4b');
    assert.equal(lists.has('mw-4b'), true);
  });

  it('takes a server that cannot say at its word', () => {
    const lists = new PublishedLists(new Set(), THREAT_LISTS);
    assert.deepEqual(lists.learn(THREAT_LISTS, undefined), []);
    assert.ok(THREAT_LISTS.every((name) => lists.has(name)));
    assert.equal(lists.unknownLists(), undefined);
  });

  it('leaves out optional lists the server lacks, and names the others with what it has', () => {
    const lists = new PublishedLists(new Set(['gc-32b', 'mw-4b']), THREAT_LISTS);
    lists.learn(['se-4b', 'mw-4b', 'gc-32b'], ['se-4b']);
    assert.deepEqual(lists.notServed, ['mw-4b', 'gc-32b']);
    assert.equal(lists.unknownLists(), undefined);
    assert.deepEqual(lists.counted(THREAT_LISTS), { lists: ['se-4b'] });
    const gc = lists.counted(['gc-32b']);
    assert.ok('error' in gc && gc.error instanceof UnknownListError, 'no list left to count');

    const named = new PublishedLists(new Set(), THREAT_LISTS);
    named.learn(THREAT_LISTS, ['se-4b']);
    const counted = named.counted(THREAT_LISTS);
    assert.ok('error' in counted);
    assert.deepEqual([counted.error.lists, counted.error.available], [['mw-4b'], ['se-4b']]);
    assert.deepEqual(named.unknownLists()?.lists, ['mw-4b']);
  });

  it('counts a server with none of the threat lists as an error, even when all are optional', () => {
    const lists = new PublishedLists(new Set(THREAT_LISTS), THREAT_LISTS);
    lists.learn(THREAT_LISTS, ['csda-32b']);
    assert.deepEqual(lists.unknownLists()?.lists, THREAT_LISTS);
  });
});
