import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { ListHistory, type ServedUpdate, type SizeConstraints } from '../../../src/server/lists/list-history.ts';
import { RedisSnapshotStore, type RedisSnapshotStoreOptions } from '../../../src/server/redis/redis-snapshot-store.ts';
import { SnapshotStoreError } from '../../../src/server/lists/snapshot-store-error.ts';
import { hashCount } from '../../../src/store/hash-list.ts';
import type { RedisWatch } from '../../../src/server/redis/redis-connection.ts';
import { definition, poolHashes } from '../lists/fixtures.ts';
import { deleteKeys, ensureRedis, keysUnder, REDIS_URL, RedisRelay, uniqueKeyPrefix } from '../redis-fixture.ts';
import { until } from '../../support/waiting.ts';

const NO_LIMITS: SizeConstraints = { maxUpdateEntries: 0, maxDatabaseEntries: 0 };
const X = poolHashes([1, 2, 3, 4]);
const Y = poolHashes([2, 3, 4, 5, 6]);
const Z = poolHashes([6, 7]);
const W = poolHashes([7, 8, 9]);
const TEST_TIMEOUT = { timeout: 20_000 };

const keyPrefix = uniqueKeyPrefix();
const stores: RedisSnapshotStore[] = [];
const relays: RedisRelay[] = [];

/** A store in this run's namespace that only looks when told to (refreshMs 0), unless asked otherwise. */
async function store(options: Partial<RedisSnapshotStoreOptions> = {}): Promise<RedisSnapshotStore> {
  const opened = await RedisSnapshotStore.connect({ url: REDIS_URL, keyPrefix, refreshMs: 0, timeoutMs: 2000, ...options });
  stores.push(opened);
  return opened;
}

/** An instance's history of a list (one name per test, so tests do not share lists). */
function history(name: string, keep = 3): ListHistory {
  return new ListHistory(definition(4, name), { keep });
}

/** An update as bytes, to compare what two instances answer. */
function wire(update: ServedUpdate): string {
  const additions =
    update.additions.width === 4
      ? Buffer.from(update.additions.values.buffer, update.additions.values.byteOffset, update.additions.values.byteLength)
      : update.additions.bytes;
  return [
    update.partial,
    update.complete,
    Buffer.from(update.version).toString('hex'),
    Buffer.from(update.removals.buffer, update.removals.byteOffset, update.removals.byteLength).toString('hex'),
    Buffer.from(additions).toString('hex'),
    Buffer.from(update.checksum).toString('hex'),
  ].join('|');
}

function settledVersion(h: ListHistory): Uint8Array {
  return h.updateFor(new Uint8Array(0), NO_LIMITS).version;
}

/** Redis loses a list: every key of it gone, as after a restart without persistence or a flush. */
async function lose(name: string): Promise<void> {
  await deleteKeys(`${keyPrefix}list:{${name}}:`);
}

async function sharedHistory(name: string): Promise<string[]> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    return await client.lRange(`${keyPrefix}list:{${name}}:history`, 0, -1);
  } finally {
    await client.close();
  }
}

/** A watch that starts without Redis, retrying every few milliseconds, and notes write-backs. */
function patient(restored: string[] = []): RedisWatch {
  return {
    retry: { firstMs: 20, maxMs: 100 },
    opened: () => {},
    reconnected: () => {},
    restored: (list, versions) => restored.push(`${list}: ${versions}`),
  };
}

before(async () => {
  await ensureRedis();
});
after(async () => {
  for (const opened of stores) await opened.close();
  for (const relay of relays) await relay.cut();
  await deleteKeys(keyPrefix);
});

describe('RedisSnapshotStore', () => {
  it(
    'publishes the content and the history together: ids oldest first, at most keep, the dropped content deleted',
    TEST_TIMEOUT,
    async () => {
      const s = await store();
      const h = history('publish-4b', 2);
      await s.follow([h]);
      const x = await s.publish(h, X);
      const y = await s.publish(h, Y);
      const z = await s.publish(h, Z);
      assert.deepEqual(h.keptIds(), [y.id, z.id]);
      const base = `${keyPrefix}list:{publish-4b}:`;
      assert.deepEqual(
        await keysUnder(base),
        [`${base}history`, `${base}snapshot:${y.id}`, `${base}snapshot:${z.id}`, `${base}state`].sort(),
      );
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      try {
        assert.deepEqual(await client.lRange(`${base}history`, 0, -1), [y.id, z.id]);
        assert.equal(await client.exists(`${base}snapshot:${x.id}`), 0);
        const stored = await client.withTypeMapping({ 36: Buffer }).hGet(`${base}snapshot:${z.id}`, 'fullHashes');
        assert.deepEqual(stored, Buffer.from(z.fullHashBytes()), 'the full hashes, sorted');
      } finally {
        await client.close();
      }
    },
  );

  it(
    'serves an instance that published nothing the shared current version, and the same diffs from every kept version',
    TEST_TIMEOUT,
    async () => {
      const [sa, sb] = [await store(), await store()];
      const [a, b] = [history('late-4b'), history('late-4b')];
      assert.deepEqual(await sa.follow([a]), []);
      await sa.publish(a, X);
      const versionX = settledVersion(a);
      await sa.publish(a, Y);
      assert.deepEqual(await sb.follow([b]), ['late-4b'], 'the list counts as published already');
      assert.deepEqual(b.keptIds(), a.keptIds());
      assert.equal(b.current().id, a.current().id);
      assert.equal(b.current().fullHashCount, 5, 'the current snapshot comes with its full hashes, for searches');
      for (const version of [new Uint8Array(0), versionX, settledVersion(a), Uint8Array.of(9, 9)]) {
        assert.equal(wire(b.updateFor(version, NO_LIMITS)), wire(a.updateFor(version, NO_LIMITS)));
      }
      assert.equal(a.updateFor(versionX, NO_LIMITS).partial, true, 'a kept version gets a diff');
      assert.equal(
        wire(b.updateFor(versionX, { maxUpdateEntries: 1, maxDatabaseEntries: 0 })),
        wire(a.updateFor(versionX, { maxUpdateEntries: 1, maxDatabaseEntries: 0 })),
      );
    },
  );

  it(
    'orders the history as publications reach Redis: content published again by another instance becomes current everywhere',
    TEST_TIMEOUT,
    async () => {
      const [sa, sb] = [await store(), await store()];
      const [a, b] = [history('order-4b'), history('order-4b')];
      await sa.follow([a]);
      await sb.follow([b]);
      const x = await sa.publish(a, X);
      const y = await sa.publish(a, Y);
      const again = await sb.publish(b, poolHashes([4, 3, 2, 1, 1]));
      assert.equal(again.id, x.id, 'the same content is the same snapshot, wherever it is published');
      assert.deepEqual(b.keptIds(), [y.id, x.id]);
      assert.equal(a.current().id, y.id, 'A learns of it when it looks');
      await sa.refresh();
      assert.deepEqual(a.keptIds(), [y.id, x.id]);
      assert.equal(a.current().id, x.id);
    },
  );

  it('shares mirrored lists (served hashes only), and an older mirror copy never displaces a newer one', TEST_TIMEOUT, async () => {
    const [sa, sb] = [await store(), await store()];
    const [a, b] = [history('mirror-4b'), history('mirror-4b')];
    await sa.follow([a]);
    await sb.follow([b]);
    const served = (keys: number[]) => new ListHistory(definition(4, 'scratch-4b'), { keep: 1 }).publish(poolHashes(keys)).served();
    const older = await sa.publishServed(a, served([1, 2]), 1_000);
    const newer = await sa.publishServed(a, served([1, 2, 3]), 2_000);
    assert.equal(newer.fullHashCount, 0, 'a mirrored snapshot knows no full hash');
    // B restarts with the older copy it kept: publishing it leaves the newer one current, and B serves that.
    const current = await sb.publishServed(b, served([1, 2]), 1_500);
    assert.equal(current.id, newer.id);
    assert.equal(b.current().id, newer.id);
    assert.deepEqual(b.keptIds(), [older.id, newer.id]);
    assert.equal(wire(b.updateFor(new Uint8Array(0), NO_LIMITS)), wire(a.updateFor(new Uint8Array(0), NO_LIMITS)));
    // A newer answer from B's upstream does become current, on A too once it looks.
    const newest = await sb.publishServed(b, served([4]), 3_000);
    await sa.refresh();
    assert.equal(a.current().id, newest.id);
    assert.equal(hashCount(a.current().served()), 1);
    // Content that comes back is as new as its latest publication: the copy stamped 2 s earlier stays out.
    const back = await sa.publishServed(a, served([1, 2]), 4_000);
    assert.equal(back.id, older.id);
    assert.equal((await sb.publishServed(b, served([4]), 3_500)).id, older.id);
  });

  it('tells every instance when the upstream last sent a mirrored copy, though the content did not change', TEST_TIMEOUT, async () => {
    const [sa, sb] = [await store(), await store()];
    const [a, b] = [history('received-4b'), history('received-4b')];
    await sa.follow([a]);
    await sb.follow([b]);
    const served = new ListHistory(definition(4, 'scratch-4b'), { keep: 1 }).publish(poolHashes([1, 2])).served();
    const copy = await sa.publishServed(a, served, 1_000);
    await sb.refresh();
    assert.deepEqual([b.current().id, b.receivedAt], [copy.id, 1_000]);
    // The same content again: the same snapshot, created at 1 000, but sent again at 9 000.
    await sa.publishServed(a, served, 9_000);
    await sb.refresh();
    assert.deepEqual([b.current().createdAt, b.receivedAt], [1_000, 9_000]);
    // An instance that joins, and publishes the copy it received earlier, learns the later moment.
    const [sc, c] = [await store(), history('received-4b')];
    await sc.follow([c]);
    await sc.publishServed(c, served, 2_000);
    assert.equal(c.receivedAt, 9_000);
  });

  it('looks for publications every refreshMs on its own', TEST_TIMEOUT, async () => {
    const [sa, sb] = [await store(), await store({ refreshMs: 20 })];
    const [a, b] = [history('timer-4b'), history('timer-4b')];
    await sa.follow([a]);
    await sb.follow([b]);
    const y = await sa.publish(a, Y);
    await until(5000, 'B serves what A published', () => b.current().id === y.id);
    assert.deepEqual(b.keptIds(), a.keptIds());
  });

  it('leaves out, and reports once, a snapshot whose content in Redis is not what its id says', TEST_TIMEOUT, async () => {
    const messages: string[] = [];
    const [sa, sb] = [await store(), await store({ log: (m) => messages.push(m) })];
    const [a, b] = [history('forged-4b'), history('forged-4b')];
    await sa.follow([a]);
    const x = await sa.publish(a, X);
    const y = await sa.publish(a, Y);
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    await client.hSet(`${keyPrefix}list:{forged-4b}:snapshot:${x.id}`, 'fullHashes', Buffer.from(Z));
    await client.close();
    await sb.follow([b]);
    await sb.refresh();
    assert.deepEqual(b.keptIds(), [y.id], 'the current snapshot is served, the forged one left out');
    assert.equal(messages.length, 1);
    assert.match(
      messages[0]!,
      new RegExp(`list forged-4b: snapshot ${x.id} in Redis cannot be used: its content is snapshot [0-9a-f]{32} here`),
    );
  });

  it('keeps serving what it holds while Redis is away, refuses publications, and catches up when it is back', TEST_TIMEOUT, async () => {
    const relay = await RedisRelay.start();
    relays.push(relay);
    const messages: string[] = [];
    const [sa, sb] = [await store(), await store({ url: relay.url, log: (m) => messages.push(m) })];
    const [a, b] = [history('outage-4b'), history('outage-4b')];
    await sa.follow([a]);
    await sb.follow([b]);
    const x = await sb.publish(b, X);

    await relay.cut();
    await assert.rejects(sb.publish(b, Y), (error: unknown) => error instanceof SnapshotStoreError && error.reason === 'unavailable');
    await assert.rejects(sb.refresh(), SnapshotStoreError);
    assert.equal(b.current().id, x.id);
    assert.equal(hashCount(b.current().served()), 4);
    assert.match(
      messages.join('\n'),
      /Redis at redis:\/\/127\.0\.0\.1:\d+ failed \(.*\): serving the lists this instance holds until Redis answers again/,
    );
    assert.equal(messages.length, 1, `said once, not at every attempt: ${messages.join(' / ')}`);

    const z = await sa.publish(a, Z);
    await relay.restore();
    await until(10_000, 'B reaches Redis again', async () => {
      try {
        await sb.refresh();
        return true;
      } catch {
        return false;
      }
    });
    assert.equal(b.current().id, z.id);
    assert.deepEqual(b.keptIds(), a.keptIds());
    assert.match(messages.at(-1)!, /answers again$/);
  });

  it(
    'writes back the history it holds when Redis lost it: every kept version still gets a diff, on every instance',
    TEST_TIMEOUT,
    async () => {
      const restored: string[] = [];
      const [sa, sb] = [await store({ watch: patient(restored) }), await store()];
      const [a, b] = [history('lost-4b', 4), history('lost-4b', 4)];
      await sa.follow([a]);
      const x = await sa.publish(a, X);
      const versionX = settledVersion(a);
      await sa.publish(a, Y);
      const versionY = settledVersion(a);
      await sb.follow([b]);

      await lose('lost-4b');
      const z = await sa.publish(a, Z);
      assert.deepEqual(restored, ['lost-4b: 2'], 'both versions written back, and counted');
      assert.deepEqual(await sharedHistory('lost-4b'), a.keptIds());
      assert.equal(a.keptIds()[0], x.id);
      assert.equal(z.id, a.current().id);
      for (const version of [versionX, versionY]) assert.equal(a.updateFor(version, NO_LIMITS).partial, true);

      // Another instance, and one that starts now and fetches the older versions (their served hashes alone).
      await sb.refresh();
      const [sc, c] = [await store(), history('lost-4b', 4)];
      await sc.follow([c]);
      for (const other of [b, c]) {
        assert.deepEqual(other.keptIds(), a.keptIds());
        for (const version of [versionX, versionY]) {
          assert.equal(wire(other.updateFor(version, NO_LIMITS)), wire(a.updateFor(version, NO_LIMITS)));
        }
      }
      assert.equal(c.current().fullHashCount, 2, 'the current snapshot comes with its full hashes');
    },
  );

  it('two instances writing back the same history at once converge on one history', TEST_TIMEOUT, async () => {
    const [sa, sb] = [await store(), await store()];
    const [a, b] = [history('race-4b'), history('race-4b')];
    await sa.follow([a]);
    await sa.publish(a, X);
    await sa.publish(a, Y);
    await sb.follow([b]);
    const held = a.keptIds();
    await lose('race-4b');
    await Promise.all([sa.refresh(), sb.refresh()]);
    assert.deepEqual(await sharedHistory('race-4b'), held);
    assert.deepEqual(a.keptIds(), held);
    assert.deepEqual(b.keptIds(), held);
    // A publication afterwards by either goes on from there.
    const z = await sb.publish(b, Z);
    await sa.refresh();
    assert.deepEqual(a.keptIds(), [...held, z.id].slice(-3));
  });

  for (const first of ['older', 'newer'] as const) {
    it(`an instance whose history is older does not take the list back (the ${first} one writes back first)`, TEST_TIMEOUT, async () => {
      const name = `older-${first}-4b`;
      const [sa, sb] = [await store(), await store()];
      const [a, b] = [history(name), history(name)];
      await sa.follow([a]);
      await sa.publish(a, X);
      await sb.follow([b]); // B holds X
      const y = await sa.publish(a, Y); // B has not looked since
      await lose(name);
      const writers = first === 'older' ? [sb, sa] : [sa, sb];
      for (const writer of writers) await writer.refresh();
      await sb.refresh();
      assert.equal(a.current().id, y.id);
      assert.equal(b.current().id, y.id);
      assert.deepEqual(await sharedHistory(name), a.keptIds());
      assert.deepEqual(b.keptIds(), a.keptIds());
    });
  }

  for (const [n, newest] of [Z, W].entries()) {
    it(
      `a lagging instance's publication into a Redis that lost the list stays newest when the other writes back (${n})`,
      TEST_TIMEOUT,
      async () => {
        const name = `tie-${n}-4b`;
        const [sa, sb] = [await store(), await store()];
        const [a, b] = [history(name), history(name)];
        await sa.follow([a]);
        await sa.publish(a, X);
        await sb.follow([b]); // B holds X
        await sa.publish(a, Y); // B has not looked since
        await lose(name);
        // B writes back X and publishes after it; A's Y, written back next, was published before B's.
        const latest = await sb.publish(b, newest);
        await sa.refresh();
        await sb.refresh();
        assert.equal(a.current().id, latest.id);
        assert.equal(b.current().id, latest.id);
        assert.equal((await sharedHistory(name)).at(-1), latest.id);
      },
    );
  }

  it('starts without Redis when told to: publishes in memory, then joins the shared history once Redis answers', TEST_TIMEOUT, async () => {
    const relay = await RedisRelay.start();
    relays.push(relay);
    await relay.cut();
    const [sa, a] = [await store(), history('join-4b', 4)];
    await sa.follow([a]);
    await sa.publish(a, X);
    const y = await sa.publish(a, Y);

    const sb = await store({ url: relay.url, watch: patient() });
    const b = history('join-4b', 4);
    assert.deepEqual(await sb.follow([b]), []);
    assert.match(sb.notReadyReason() ?? '', /have not been reached since start; serving this instance's own copies of join-4b/);
    const z = await sb.publish(b, Z);
    assert.equal(b.current().id, z.id, 'served from memory');
    const versionZ = settledVersion(b);

    await relay.restore();
    await until(5000, 'B joins the shared lists', () => sb.notReadyReason() === null);
    // Its own publication is the newest, as had it started with Redis; A's stay before it.
    assert.deepEqual(await sharedHistory('join-4b'), [a.keptIds()[0], y.id, z.id]);
    await sa.refresh();
    assert.equal(a.current().id, z.id);
    assert.equal(wire(a.updateFor(versionZ, NO_LIMITS)), wire(b.updateFor(versionZ, NO_LIMITS)));
  });

  it('refuses to start without Redis, and a URL that is none', TEST_TIMEOUT, async () => {
    const relay = await RedisRelay.start();
    const closedPort = relay.url;
    await relay.cut();
    await assert.rejects(
      RedisSnapshotStore.connect({ url: closedPort, timeoutMs: 2000 }),
      (error: unknown) =>
        error instanceof SnapshotStoreError &&
        error.reason === 'unavailable' &&
        /cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+/.test(error.message),
    );
    await assert.rejects(RedisSnapshotStore.connect({ url: 'http://user:secret@example.com' }), (error: unknown) => {
      assert.ok(error instanceof SnapshotStoreError && error.reason === 'invalid-url');
      assert.doesNotMatch(error.message, /secret/, 'credentials stay out of messages');
      return true;
    });
  });
});
