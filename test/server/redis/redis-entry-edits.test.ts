import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
});
