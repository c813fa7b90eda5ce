import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { MAX_EDITS_PER_LIST } from '../../../src/server/feeds/entry-edits.ts';
import { RedisEntryEdits } from '../../../src/server/redis/redis-entry-edits.ts';
import { deleteKeys, ensureRedis, keysUnder, REDIS_URL, RedisRelay, uniqueKeyPrefix } from '../redis-fixture.ts';

const keyPrefix = uniqueKeyPrefix();
before(ensureRedis);
after(() => deleteKeys(keyPrefix));

describe('RedisEntryEdits', () => {
  it('applies additions and removals as one step, shared by every connection', async () => {
    const one = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix });
    const two = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix });
    try {
      await Promise.all([one.update('se-4b', ['a.example/', 'b.example/'], []), two.update('se-4b', ['c.example/'], ['a.example/'])]);
      const edits = await two.read('se-4b');
      // Whatever order the two ran in, both count: c added, b added, a added then removed or removed then added.
      assert.ok(edits.added.includes('b.example/') && edits.added.includes('c.example/'));
      assert.equal(edits.added.includes('a.example/'), !edits.removed.includes('a.example/'));
      assert.deepEqual(await one.read('mw-4b'), { added: [], removed: [] });
      // Redis drops an emptied set: when the removal of a ran first and its addition second, nothing is removed.
      assert.deepEqual(await keysUnder(`${keyPrefix}list:{se-4b}`), [
        `${keyPrefix}list:{se-4b}:entries-added`,
        ...(edits.removed.length > 0 ? [`${keyPrefix}list:{se-4b}:entries-removed`] : []),
      ]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('checks the cap in the same script as the write: updates from two instances near it cannot both pass', async () => {
    const one = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: `${keyPrefix}cap:` });
    const two = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: `${keyPrefix}cap:` });
    try {
      await one.update('se-4b', ['a.example/'], ['b.example/'], 4);
      const answers = await Promise.all([
        one.update('se-4b', ['c.example/', 'd.example/'], [], 4),
        two.update('se-4b', ['e.example/'], ['f.example/'], 4),
        // Moves a from added to removed and names b again: no new edit.
        two.update('se-4b', ['b.example/'], ['a.example/', 'a.example/'], 4),
      ]);
      assert.equal(answers.filter((answer) => answer === 'too-many').length, 1);
      const edits = await one.read('se-4b');
      assert.equal(edits.added.length + edits.removed.length, 4);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('loads with the edits last read while Redis is away, says so once, and refuses updates', async () => {
    const relay = await RedisRelay.start();
    const log: string[] = [];
    const edits = await RedisEntryEdits.connect({
      url: relay.url,
      keyPrefix: `${keyPrefix}away:`,
      log: (line) => log.push(line),
      timeoutMs: 300,
    });
    try {
      await edits.update('se-4b', ['kept.example/'], []);
      await relay.cut();
      assert.deepEqual(await edits.read('se-4b'), { added: ['kept.example/'], removed: [] });
      assert.deepEqual(await edits.read('se-4b'), { added: ['kept.example/'], removed: [] });
      assert.deepEqual(await edits.read('mw-4b'), { added: [], removed: [] });
      assert.equal(log.filter((line) => line.includes('list se-4b: the entry edits in Redis')).length, 1);
      await assert.rejects(edits.update('se-4b', ['new.example/'], []));
    } finally {
      // Back first: a client asked to quit while Redis is away waits for it.
      await relay.restore();
      await edits.close();
      await relay.cut();
    }
  });

  it('takes sets holding more edits than a list may for unreadable: the edits last read, said once; updates refused', async () => {
    const prefix = `${keyPrefix}over:`;
    const log: string[] = [];
    const edits = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: prefix, log: (line) => log.push(line) });
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    const added = `${prefix}list:{se-4b}:entries-added`;
    try {
      await edits.update('se-4b', ['kept.example/'], []);
      // What no update writes: a hand in Redis, or a bug.
      await client.sAdd(
        added,
        Array.from({ length: MAX_EDITS_PER_LIST }, (_, i) => `h${i}.example/`),
      );
      assert.deepEqual(await edits.read('se-4b'), { added: ['kept.example/'], removed: [] });
      assert.deepEqual(await edits.read('se-4b'), { added: ['kept.example/'], removed: [] });
      const said = log.filter((line) => line.startsWith('list se-4b: the entry edits in Redis'));
      assert.equal(said.length, 1, log.join('\n'));
      assert.match(
        said[0]!,
        /cannot be read \(they hold 100001 edits, more than the 100000 a list may hold; .*correct or delete \S+entries-added/,
      );
      await assert.rejects(edits.update('se-4b', ['new.example/'], []), /100001 edits.*nothing was changed/);
      assert.equal(await client.sCard(added), MAX_EDITS_PER_LIST + 1);
      await client.del(added);
      assert.deepEqual(await edits.read('se-4b'), { added: [], removed: [] });
      assert.match(log.at(-1)!, /list se-4b: the entry edits in Redis can be read again/);
    } finally {
      await client.close();
      await edits.close();
    }
  });

  it('fails a first read of sets whose members sbkit does not write, as a data folder fails a file of edits it cannot read', async () => {
    const prefix = `${keyPrefix}malformed:`;
    const edits = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: prefix });
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      for (const [list, add, remove, problem] of [
        ['a', ['not an expression'], [], /"not an expression", which is no canonical expression/],
        ['b', ['b.example/#top'], [], /"b\.example\/#top", which is no canonical expression/],
        ['c', ['c.example'], [], /"c\.example", which is no canonical expression/],
        ['d', ['d.example/'], ['d.example/'], /"d\.example\/" both added and removed/],
      ] as const) {
        if (add.length > 0) await client.sAdd(`${prefix}list:{${list}}:entries-added`, [...add]);
        if (remove.length > 0) await client.sAdd(`${prefix}list:{${list}}:entries-removed`, [...remove]);
        await assert.rejects(edits.read(list), (error: Error) => problem.test(error.message) && error.message.includes(`list ${list}:`));
      }
    } finally {
      await client.close();
      await edits.close();
    }
  });
});
