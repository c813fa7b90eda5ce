import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pairedVersions, sizeConstraintsOf } from '../../../../src/server/api/answers/list-requests.ts';
import { ListHistory } from '../../../../src/server/lists/list-history.ts';
import { definition, poolHashes } from '../../lists/fixtures.ts';

function published(name: string): { history: ListHistory; version: Uint8Array } {
  const history = new ListHistory(definition(4, name), { keep: 2 });
  history.publish(poolHashes([1, 2, 3]));
  return { history, version: history.updateFor(new Uint8Array(0), { maxUpdateEntries: 0, maxDatabaseEntries: 0 }).version };
}

describe('list requests as the answers read them', () => {
  it('reads absent and negative size constraints as no limit', () => {
    assert.deepEqual(sizeConstraintsOf(undefined), { maxUpdateEntries: 0, maxDatabaseEntries: 0 });
    assert.deepEqual(sizeConstraintsOf({ maxUpdateEntries: -5, maxDatabaseEntries: 7 }), { maxUpdateEntries: 0, maxDatabaseEntries: 7 });
  });

  it('pairs batch versions with the lists that recognize them, by position when several could, none for the rest', () => {
    const a = published('a-4b');
    const b = published('b-4b');
    const madeUp = Uint8Array.of(9, 9, 9);
    // Out of order, with a made-up one and a list this server does not publish.
    const paired = pairedVersions([a.history, undefined, b.history], [b.version, madeUp, a.version]);
    assert.deepEqual(paired, [a.version, new Uint8Array(0), b.version]);
    // An empty placeholder in a list's place is that list's (Firefox sends them by position).
    assert.deepEqual(pairedVersions([a.history, b.history], [new Uint8Array(0), b.version]), [new Uint8Array(0), b.version]);
  });
});
