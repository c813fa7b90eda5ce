import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ListError } from '../../../src/server/lists/list-error.ts';
import { randomBytes } from 'node:crypto';
import { sortFullHashes } from '../../../src/server/lists/full-hashes.ts';
import { ListHistory, type ServedUpdate, type SizeConstraints } from '../../../src/server/lists/list-history.ts';
import { Snapshot } from '../../../src/server/lists/snapshot.ts';
import { encodeVersion } from '../../../src/server/lists/list-version.ts';
import { hashCount as count, emptyHashes, checksumOf, HashList } from '../../../src/store/hash-list.ts';
import { nodeSha256 } from '../../../src/url/hash.ts';
import type { HashWidth } from '../../../src/lists/list-name.ts';
import { definition, hexList, POOL_SIZE, poolHashes, poolKeys } from './fixtures.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const NO_LIMITS: SizeConstraints = { maxUpdateEntries: 0, maxDatabaseEntries: 0 };
const EMPTY = new Uint8Array(0);

/** What a client does with a served update: HashList.applyUpdate, which verifies the checksum (SB-9). */
function apply(list: HashList, update: ServedUpdate): HashList {
  return list.applyUpdate({ ...update }, nodeSha256);
}

/** A history of a test list with a fixed clock. */
function history(keep = 3, width: HashWidth = 4) {
  return new ListHistory(definition(width), { keep, clock: new FakeClock(42) });
}

describe('ListHistory', () => {
  it('serves an empty list before the first publish, with a version and the checksum of nothing', () => {
    const h = history();
    const update = h.updateFor(EMPTY, NO_LIMITS);
    assert.equal(update.partial, false);
    assert.ok(update.version.length > 0);
    assert.equal(count(update.additions), 0);
    assert.equal(Buffer.from(update.checksum).toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.ok(update.complete);
    assert.equal(h.current().fullHashCount, 0);
  });

  it('publishes in turns: the current snapshot is served whole meanwhile, then the new one at once', async () => {
    const h = history();
    const old = h.publish(poolHashes([1, 2]));
    // Half a million hashes take the event loop tens of milliseconds to check and name: several turns.
    const fullHashes = sortFullHashes(randomBytes(500_000 * 32)).bytes;
    const seen: string[] = [];
    let done = false;
    const publishing = h.publishInTurns(fullHashes).finally(() => (done = true));
    while (!done) {
      seen.push(h.current().id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const published = await publishing;
    assert.ok(seen.length > 1, 'requests had turns while the snapshot was made');
    assert.ok(
      seen.every((id) => id === old.id),
      'nothing but the old snapshot is served before the new one is whole',
    );
    assert.equal(h.current(), published);
    assert.equal(published.fullHashCount, 500_000);
    assert.equal(published.id, Snapshot.of(published.definition, fullHashes, 0).id);
  });

  it('gives a new client a full update of the current snapshot', () => {
    const h = history();
    const snapshot = h.publish(poolHashes([3, 1, 2, 1]));
    assert.equal(snapshot.createdAt, 42);
    const update = h.updateFor(EMPTY, NO_LIMITS);
    assert.equal(update.partial, false);
    assert.equal(update.removals.length, 0);
    assert.deepEqual(hexList(update.additions), hexList(snapshot.served()));
    assert.deepEqual(Buffer.from(update.checksum), Buffer.from(snapshot.checksum));
    assert.ok(update.complete);
    assert.deepEqual(hexList(apply(HashList.empty('x', 4), update).sortedHashes()), hexList(snapshot.served()));
  });

  it('gives a client at the current version an empty update with the same version and checksum', () => {
    const h = history();
    h.publish(poolHashes([1, 2, 3]));
    const first = h.updateFor(EMPTY, NO_LIMITS);
    const again = h.updateFor(first.version, NO_LIMITS);
    assert.equal(again.partial, true);
    assert.equal(again.removals.length, 0);
    assert.equal(count(again.additions), 0);
    assert.deepEqual(Buffer.from(again.version), Buffer.from(first.version));
    assert.deepEqual(Buffer.from(again.checksum), Buffer.from(first.checksum));
    assert.ok(again.complete);
  });

  it('gives a client at an older kept version removal indices into its list and additions', () => {
    const h = history();
    h.publish(poolHashes([1, 2, 3, 4]));
    const first = h.updateFor(EMPTY, NO_LIMITS);
    const client = apply(HashList.empty('x', 4), first);
    const next = h.publish(poolHashes([2, 4, 5]));
    const update = h.updateFor(first.version, NO_LIMITS);
    assert.equal(update.partial, true);
    const old = hexList(client.sortedHashes());
    const now = hexList(next.served());
    assert.deepEqual(
      [...update.removals],
      old.flatMap((hash, i) => (now.includes(hash) ? [] : [i])),
    );
    assert.deepEqual(
      hexList(update.additions),
      now.filter((hash) => !old.includes(hash)),
    );
    assert.deepEqual(hexList(apply(client, update).sortedHashes()), now);
    assert.ok(update.complete);
  });

  it('gives a client whose version was evicted, or was never ours, a full update', () => {
    const h = history(2);
    h.publish(poolHashes([1]));
    const old = h.updateFor(EMPTY, NO_LIMITS).version;
    assert.ok(h.recognizes(old));
    h.publish(poolHashes([2]));
    h.publish(poolHashes([3]));
    assert.ok(!h.recognizes(old));
    for (const version of [old, Buffer.from('v1'), old.subarray(1), Buffer.concat([old, Buffer.of(0)]), new Uint8Array(200)]) {
      const update = h.updateFor(version, NO_LIMITS);
      assert.equal(update.partial, false);
      assert.deepEqual(hexList(update.additions), hexList(h.current().served()));
    }
  });

  it('gives a full update for a forged transfer whose progress is not inside its diff', () => {
    const h = history();
    const from = { snapshotId: h.current().id, limit: 0 };
    const to = { snapshotId: h.publish(poolHashes([1, 2, 3])).id, limit: 0 };
    for (const progress of [0, 3, 4, 0xffffffff]) {
      for (const version of [
        encodeVersion({ kind: 'transfer', from, to, progress }),
        encodeVersion({ kind: 'transfer', from: undefined, to, progress }),
      ]) {
        assert.ok(h.recognizes(version));
        const update = h.updateFor(version, NO_LIMITS);
        assert.equal(update.partial, false, `progress ${progress}`);
        assert.equal(count(update.additions), 3);
      }
    }
  });

  it('takes a forged database limit beyond the list for the whole list', () => {
    const h = history();
    const snapshot = h.publish(poolHashes([1, 2, 3]));
    const client = apply(HashList.empty('x', 4), h.updateFor(EMPTY, NO_LIMITS));
    const update = h.updateFor(encodeVersion({ kind: 'settled', at: { snapshotId: snapshot.id, limit: 0xffffffff } }), NO_LIMITS);
    assert.equal(update.partial, true);
    assert.deepEqual(Buffer.from(apply(client, update).version), Buffer.from(client.version));
  });

  it('does not recognize the versions of another list with the same content', () => {
    const a = new ListHistory(definition(4, 'a-4b'), { keep: 2 });
    const b = new ListHistory(definition(4, 'b-4b'), { keep: 2 });
    a.publish(poolHashes([1, 2]));
    b.publish(poolHashes([1, 2]));
    assert.ok(!b.recognizes(a.updateFor(EMPTY, NO_LIMITS).version));
    assert.ok(!b.recognizes(EMPTY));
  });

  it('returns the current snapshot when the same content is published again', () => {
    const h = history();
    const first = h.publish(poolHashes([1, 2]));
    assert.equal(h.publish(poolHashes([2, 1, 1])), first);
    assert.equal(h.current(), first);
  });

  it('names content published again by its earlier version, which clients at it keep', () => {
    const h = history();
    const a = h.publish(poolHashes([1, 2]));
    const atA = h.updateFor(EMPTY, NO_LIMITS);
    h.publish(poolHashes([3]));
    const again = h.publish(poolHashes([1, 2]));
    assert.notEqual(again, a);
    assert.equal(again.id, a.id);
    const update = h.updateFor(atA.version, NO_LIMITS);
    assert.equal(update.partial, true);
    assert.equal(update.removals.length + count(update.additions), 0);
  });

  it("knows when the upstream last sent a mirrored copy: the same content sent again moves it on, the content's snapshot stays", () => {
    const h = history();
    assert.equal(h.receivedAt, undefined, 'no copy yet');
    const served = (keys: number[]) => history(1).publish(poolHashes(keys)).served();
    const first = h.publishServed(served([1, 2]), 1_000);
    assert.equal(h.receivedAt, 1_000);
    assert.equal(h.publishServed(served([1, 2]), 5_000), first);
    assert.deepEqual([first.createdAt, h.receivedAt], [1_000, 5_000]);
    h.receivedAgain(4_000);
    assert.equal(h.receivedAt, 5_000, 'an earlier moment does not take it back');
    h.publishServed(served([3]), 6_000);
    assert.equal(h.receivedAt, 6_000);
    h.adopt(first, []);
    assert.equal(h.receivedAt, 1_000, 'another copy served: as old as its content, until told more');
    const own = history();
    own.publish(poolHashes([1]));
    own.receivedAgain(7_000);
    assert.equal(own.receivedAt, undefined, "a list of this server's own is no upstream's copy");
  });

  it('keeps the last K snapshots, the current one included', () => {
    const h = history(2);
    const versions: Uint8Array[] = [];
    for (const key of [1, 2, 3]) {
      h.publish(poolHashes([key]));
      versions.push(h.updateFor(EMPTY, NO_LIMITS).version);
    }
    assert.deepEqual(
      versions.map((v) => h.recognizes(v)),
      [false, true, true],
    );
  });

  it('cuts an update at max_update_entries, removals first, and resumes it from the version it sent', () => {
    const h = history(3, 32);
    const keys = Array.from({ length: 30 }, (_, i) => i);
    h.publish(poolHashes(keys.slice(0, 20)));
    let client = apply(HashList.empty('x', 32), h.updateFor(EMPTY, NO_LIMITS));
    h.publish(poolHashes(keys.slice(10, 30))); // 10 removals, then 10 additions
    const limits = { maxUpdateEntries: 4, maxDatabaseEntries: 0 };
    const sizes: [number, number][] = [];
    let update: ServedUpdate;
    do {
      update = h.updateFor(client.version, limits);
      sizes.push([update.removals.length, count(update.additions)]);
      client = apply(client, update);
    } while (!update.complete);
    assert.deepEqual(sizes, [
      [4, 0],
      [4, 0],
      [2, 2],
      [0, 4],
      [0, 4],
    ]);
    assert.deepEqual(hexList(client.sortedHashes()), hexList(h.current().served()));
  });

  it('cuts a full update the same way', () => {
    const h = history(3, 8);
    h.publish(poolHashes(Array.from({ length: 50 }, (_, i) => i)));
    const limits = { maxUpdateEntries: 10, maxDatabaseEntries: 0 };
    const first = h.updateFor(EMPTY, limits);
    assert.equal(first.partial, false);
    assert.equal(count(first.additions), 10);
    assert.ok(!first.complete);
    let client = apply(HashList.empty('x', 8), first);
    const second = h.updateFor(client.version, limits);
    assert.equal(second.partial, true);
    client = apply(client, second);
    assert.equal(client.size, 20);
  });

  it('serves the first N entries of the sorted list under max_database_entries, and diffs between such subsets', () => {
    const h = history();
    const snapshot = h.publish(poolHashes([0, 1, 2, 3, 4, 5, 6, 7]));
    const limits = { maxUpdateEntries: 0, maxDatabaseEntries: 3 };
    let client = apply(HashList.empty('x', 4), h.updateFor(EMPTY, limits));
    assert.deepEqual(hexList(client.sortedHashes()), hexList(snapshot.served()).slice(0, 3));
    // A new entry below the cut pushes the last one out; the client with no limit any more gets the rest.
    const next = h.publish(poolHashes([0, 1, 2, 3, 4, 5, 6, 7, 10]));
    client = apply(client, h.updateFor(client.version, limits));
    assert.deepEqual(hexList(client.sortedHashes()), hexList(next.served()).slice(0, 3));
    client = apply(client, h.updateFor(client.version, NO_LIMITS));
    assert.deepEqual(hexList(client.sortedHashes()), hexList(next.served()));
    // A limit the list does not reach is the whole list, with the same version.
    const whole = h.updateFor(client.version, { maxUpdateEntries: 0, maxDatabaseEntries: 1000 });
    assert.deepEqual(Buffer.from(whole.version), Buffer.from(client.version));
  });

  it('finishes a cut transfer when a newer snapshot comes meanwhile, then goes on to it', () => {
    const h = history(3, 16);
    h.publish(poolHashes(Array.from({ length: 20 }, (_, i) => i)));
    const limits = { maxUpdateEntries: 8, maxDatabaseEntries: 0 };
    let client = apply(HashList.empty('x', 16), h.updateFor(EMPTY, limits));
    h.publish(poolHashes([100, 101]));
    const rounds: boolean[] = [];
    let update: ServedUpdate;
    do {
      update = h.updateFor(client.version, limits);
      rounds.push(update.partial);
      client = apply(client, update);
    } while (!update.complete);
    assert.equal(rounds.length, 2 + 3); // 12 more additions in 2 rounds; then 20 removals and 2 additions in 3
    assert.deepEqual(hexList(client.sortedHashes()), hexList(h.current().served()));
  });

  it('gives a full update when a cut transfer lost one of its snapshots', () => {
    const h = history(2);
    h.publish(poolHashes([0, 1, 2, 3, 4]));
    const cut = h.updateFor(EMPTY, { maxUpdateEntries: 2, maxDatabaseEntries: 0 });
    assert.ok(h.recognizes(cut.version));
    h.publish(poolHashes([5]));
    h.publish(poolHashes([6]));
    assert.ok(!h.recognizes(cut.version));
    assert.equal(h.updateFor(cut.version, NO_LIMITS).partial, false);
  });

  it('refuses a keep below 1 and constraints that are not whole numbers', () => {
    const isListError = (reason: string) => (err: unknown) => err instanceof ListError && err.reason === reason;
    assert.throws(() => new ListHistory(definition(4), { keep: 0 }), isListError('invalid-keep'));
    assert.throws(() => new ListHistory(definition(4), { keep: 1.5 }), isListError('invalid-keep'));
    assert.throws(() => history().updateFor(EMPTY, { maxUpdateEntries: -1, maxDatabaseEntries: 0 }), isListError('invalid-constraint'));
    assert.throws(
      () => history().updateFor(EMPTY, { maxUpdateEntries: 0, maxDatabaseEntries: Number.NaN }),
      isListError('invalid-constraint'),
    );
    assert.throws(() => history().publish(new Uint8Array(31)), isListError('ragged-full-hashes'));
  });

  it('hands its kept snapshots over, and takes them back as id and served list: a second history diffs alike', () => {
    const a = history(3);
    a.publish(poolHashes([1, 2, 3]));
    const first = a.updateFor(EMPTY, NO_LIMITS).version;
    a.publish(poolHashes([2, 3, 4]));
    const current = a.publish(poolHashes([3, 4, 5, 6]));
    const kept = a.keptSnapshots();
    assert.deepEqual(
      kept.map((snapshot) => snapshot.id),
      a.keptIds(),
    );
    assert.equal(kept.at(-1), current, 'the current one is the Snapshot itself, with its full hashes');
    const b = history(3);
    b.adopt(
      current,
      kept.slice(0, -1).map((snapshot) => ({ id: snapshot.id, served: () => snapshot.served() })),
    );
    assert.deepEqual(b.keptIds(), a.keptIds());
    assert.deepEqual(b.updateFor(first, NO_LIMITS), a.updateFor(first, NO_LIMITS));
    assert.equal(b.updateFor(first, NO_LIMITS).partial, true);
  });
});

/*
 * The property: whatever was published, whatever version a client starts from (one we gave it earlier,
 * evicted or not, or bytes that are no version of ours) and whatever constraints it sends, applying our
 * updates with the client's own HashList.applyUpdate always verifies (it throws on a checksum mismatch
 * or a bad index), and repeated requests reach the current served list, or its first N entries, in a
 * bounded number of rounds.
 */
type Step =
  | { kind: 'publish'; keys: number[] }
  | { kind: 'request'; client: number; constraints: SizeConstraints }
  | { kind: 'forge'; client: number; bytes: Uint8Array; keepList: boolean };

const constraintsArb = fc.record(
  { maxUpdateEntries: fc.constantFrom(0, 0, 1, 2, 3, 7, 1024), maxDatabaseEntries: fc.constantFrom(0, 0, 1, 2, 5, 13, 1024) },
  { noNullPrototype: true },
);
const CLIENTS = 3;
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: poolKeys(50).map((keys): Step => ({ kind: 'publish', keys })) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('request' as const), client: fc.nat({ max: CLIENTS - 1 }), constraints: constraintsArb }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('forge' as const),
      client: fc.nat({ max: CLIENTS - 1 }),
      bytes: fc.uint8Array({ maxLength: 50 }),
      keepList: fc.boolean(),
    }),
  },
);

describe('ListHistory with its clients (property)', () => {
  it('always verifies and always converges to the current list or its first N entries', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<HashWidth>(4, 8, 16, 32),
        fc.integer({ min: 1, max: 4 }),
        fc.array(stepArb, { maxLength: 30 }),
        fc.array(constraintsArb, { minLength: CLIENTS, maxLength: CLIENTS }),
        (width, keep, steps, finalConstraints) => {
          const h = new ListHistory(definition(width), { keep });
          let clients = Array.from({ length: CLIENTS }, () => HashList.empty('x', width));
          const served = (constraints: SizeConstraints) => {
            const all = hexList(h.current().served());
            return constraints.maxDatabaseEntries > 0 ? all.slice(0, constraints.maxDatabaseEntries) : all;
          };
          const request = (i: number, constraints: SizeConstraints): ServedUpdate => {
            const update = h.updateFor(clients[i]!.version, constraints);
            assert.ok(update.version.length > 0);
            assert.deepEqual(Buffer.from(update.checksum).length, 32);
            if (constraints.maxUpdateEntries > 0)
              assert.ok(update.removals.length + count(update.additions) <= constraints.maxUpdateEntries);
            if (!update.partial) assert.equal(update.removals.length, 0);
            clients[i] = apply(clients[i]!, update);
            if (update.complete) assert.deepEqual(hexList(clients[i].sortedHashes()), served(constraints));
            return update;
          };
          for (const step of steps) {
            if (step.kind === 'publish') h.publish(poolHashes(step.keys));
            else if (step.kind === 'request') request(step.client, step.constraints);
            else {
              // A client whose version is no longer one we made, with its list or without.
              const old = clients[step.client]!;
              const list = step.keepList ? old.sortedHashes() : emptyHashes(width);
              clients = clients.map((c, i) =>
                i === step.client ? HashList.fromSorted('x', step.bytes, list, checksumOf(list, nodeSha256)) : c,
              );
            }
          }
          finalConstraints.forEach((constraints, i) => {
            // A transfer to finish, then one to the current list: each at most 2 × POOL_SIZE steps.
            const perRound = constraints.maxUpdateEntries || Number.POSITIVE_INFINITY;
            const bound = 2 * (Math.ceil((2 * POOL_SIZE) / perRound) + 1);
            let rounds = 0;
            while (!request(i, constraints).complete) assert.ok(++rounds < bound, `converges within ${bound} rounds`);
            assert.deepEqual(hexList(clients[i]!.sortedHashes()), served(constraints));
            const again = h.updateFor(clients[i]!.version, constraints);
            assert.ok(again.partial && again.complete && again.removals.length === 0 && count(again.additions) === 0);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads a request in one form that it answers alike: made-up versions as none, constraints that cut nothing as none (S10)', () => {
    const constraint = fc.oneof(fc.constant(0), fc.nat({ max: 60 }), fc.constant(2_147_483_647));
    fc.assert(
      fc.property(
        fc.array(poolKeys(), { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ maxUpdateEntries: constraint, maxDatabaseEntries: constraint }), { minLength: 1, maxLength: 3 }),
        fc.uint8Array({ maxLength: 46 }),
        fc.record({ maxUpdateEntries: constraint, maxDatabaseEntries: constraint }),
        (publishes, earlier, madeUp, constraints) => {
          const h = history(2);
          // Versions real clients hold: each publish's full update and diffs, within earlier constraints.
          const versions: Uint8Array[] = [EMPTY, madeUp, Uint8Array.of(1, ...madeUp.subarray(0, 20))];
          for (const keys of publishes) {
            h.publish(poolHashes(keys));
            for (const sent of earlier) for (const version of [...versions]) versions.push(h.updateFor(version, sent).version);
          }
          for (const version of versions) {
            const canonical = h.canonicalRequest(version, constraints);
            assert.deepEqual(h.updateFor(canonical.version, canonical.constraints), h.updateFor(version, constraints));
            assert.deepEqual(h.canonicalRequest(canonical.version, canonical.constraints), canonical);
            if (!h.recognizes(version)) assert.equal(canonical.version.length, 0, 'a version it does not know is none');
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses constraints that are not whole numbers when reading a request', () => {
    assert.throws(() => history().canonicalRequest(EMPTY, { maxUpdateEntries: 1.5, maxDatabaseEntries: 0 }), ListError);
  });
});
