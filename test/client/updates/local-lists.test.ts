// The lists a client holds: taken from its database unless a file has the wrong width, replaced only once
// the database holds the new version, and dropped whole (SB-9) with an event.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashList } from '../../../src/store/hash-list.ts';
import { DatabaseFileError, DatabaseStorageError, type ListStore, type StoredList } from '../../../src/store/list-store.ts';
import type { ClientEvent } from '../../../src/client/options.ts';
import { LocalLists } from '../../../src/client/updates/local-lists.ts';

/** A list of `name` holding the 4-byte prefixes given, at version `version`. */
function listOf(name: string, version: string, prefixes: number[]): HashList {
  return HashList.fromSorted(name, new TextEncoder().encode(version), { width: 4, values: Uint32Array.from(prefixes) }, new Uint8Array(32));
}

/** A database holding `stored`, whose writes fail while `failing` is set; the writes made are in `saved`. */
function database(stored: StoredList[]): ListStore & { failing: boolean; saved: string[] } {
  const lists = new Map(stored.map((entry) => [entry.list.name, entry]));
  const store = {
    failing: false,
    saved: [] as string[],
    get: (name: string) => lists.get(name),
    fileOf: (name: string) => `/db/${name}.sbl`,
    save: async (list: HashList, updatedAt: number) => {
      if (store.failing) throw new DatabaseStorageError('/db', 'write the folder', new Error('ENOSPC'));
      store.saved.push(list.name);
      lists.set(list.name, { list, updatedAt });
    },
    drop: async (name: string) => {
      if (store.failing) throw new DatabaseStorageError('/db', 'write the folder', new Error('EACCES'));
      lists.delete(name);
    },
  };
  return store as unknown as ListStore & typeof store;
}

describe('LocalLists', () => {
  it('takes the lists the database holds at their width, and reports a file of another width, which stays unloaded', () => {
    const events: ClientEvent[] = [];
    const local = new LocalLists(['se-4b', 'gc-32b', 'mw-4b'], (event) => events.push(event));
    const taken = local.load(
      database([
        { list: listOf('se-4b', 'v1', [1, 2, 3]), updatedAt: 1000 },
        { list: listOf('gc-32b', 'v1', [1]), updatedAt: 2000 },
      ]),
    );
    assert.deepEqual(taken, ['se-4b']);
    assert.equal(local.list('se-4b')?.size, 3);
    assert.equal(local.list('gc-32b')?.width, 32, 'the 4-byte file was not taken for a 32-byte list');
    assert.deepEqual(
      events.map((event) => (event.type === 'damaged-file' && event.error instanceof DatabaseFileError ? event.error.file : event.type)),
      ['/db/gc-32b.sbl'],
    );
    assert.deepEqual(
      local.listInfo().map((info) => [info.name, info.entries, info.updatedAt]),
      [
        ['se-4b', 3, 1000],
        ['gc-32b', 0, undefined],
        ['mw-4b', 0, undefined],
      ],
    );
    assert.equal(local.updateLagMs(5000), undefined, 'not while a list was never stored');
  });

  it('keeps a new version only once the database holds it: a write that fails leaves the old one, in memory as on disk', async () => {
    const local = new LocalLists(['se-4b'], () => {});
    const db = database([{ list: listOf('se-4b', 'v1', [1]), updatedAt: 1000 }]);
    local.load(db);
    db.failing = true;
    await assert.rejects(local.store(listOf('se-4b', 'v2', [1, 2]), 2000), DatabaseStorageError);
    assert.deepEqual([local.list('se-4b')?.size, local.storedAt('se-4b')], [1, 1000]);
    assert.deepEqual(local.listStates(['se-4b']), [{ name: 'se-4b', version: new TextEncoder().encode('v1'), width: 4 }]);
    db.failing = false;
    await local.store(listOf('se-4b', 'v2', [1, 2]), 2000);
    assert.deepEqual([local.list('se-4b')?.size, local.storedAt('se-4b'), db.saved], [2, 2000, ['se-4b']]);
    assert.equal(local.updateLagMs(5000), 3000);
  });

  it('drops a list whole (SB-9), says so, and resolves to the error when its file could not be removed', async () => {
    const events: ClientEvent[] = [];
    const local = new LocalLists(['se-4b'], (event) => events.push(event));
    const db = database([{ list: listOf('se-4b', 'v1', [1, 2]), updatedAt: 1000 }]);
    local.load(db);
    const cause = new Error('checksum mismatch');
    db.failing = true;
    const error = await local.drop('se-4b', cause);
    assert.ok(error instanceof DatabaseStorageError);
    assert.deepEqual([local.list('se-4b')?.size, local.list('se-4b')?.version.length, local.storedAt('se-4b')], [0, 0, undefined]);
    assert.deepEqual(events, [{ type: 'list-dropped', list: 'se-4b', error: cause }]);
    db.failing = false;
    assert.equal(await local.drop('se-4b', cause), undefined);
  });
});
