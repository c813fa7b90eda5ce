import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ListError } from '../../../src/server/lists/list-error.ts';
import { sortFullHashes } from '../../../src/server/lists/full-hashes.ts';
import { Snapshot } from '../../../src/server/lists/snapshot.ts';
import { EventLoopTurns } from '../../../src/time/event-loop-turns.ts';
import { checksumOf } from '../../../src/store/hash-list.ts';
import { expressionHashBytes, expressionHashString, nodeSha256 } from '../../../src/url/hash.ts';
import { definition, hexList, modelServed, poolHash, poolHashes, poolKeys, POOL_SIZE } from './fixtures.ts';

describe('Snapshot', () => {
  it('serves the distinct sorted prefixes of its full hashes, with their SB-9 checksum', () => {
    fc.assert(
      fc.property(poolKeys(), fc.constantFrom<4 | 8 | 16 | 32>(4, 8, 16, 32), (keys, width) => {
        const input = poolHashes(keys);
        const snapshot = Snapshot.of(definition(width), input, 1);
        assert.deepEqual(hexList(snapshot.served()), modelServed(input, width));
        assert.equal(snapshot.served(), snapshot.served(), 'computed once');
        assert.deepEqual(Buffer.from(snapshot.checksum), Buffer.from(checksumOf(snapshot.served(), nodeSha256)));
        assert.equal(snapshot.fullHashCount, new Set(keys).size);
      }),
    );
  });

  it('gives two full hashes sharing a 4-byte prefix one entry', () => {
    // Pool keys 0 and 8 share their first 4 bytes.
    const snapshot = Snapshot.of(definition(4), poolHashes([0, 8]), 1);
    assert.equal(snapshot.fullHashCount, 2);
    assert.deepEqual(hexList(snapshot.served()), ['00000000']);
  });

  it('finds the full hashes under a prefix and each full hash, as hashes:search needs', () => {
    fc.assert(
      fc.property(poolKeys(), fc.nat({ max: POOL_SIZE - 1 }), (keys, probeKey) => {
        const snapshot = Snapshot.of(definition(4), poolHashes(keys), 1);
        const probe = poolHash(probeKey);
        const expected = [...new Set(keys)]
          .map((k) => poolHash(k))
          .filter((h) => h.readUInt32BE(0) === probe.readUInt32BE(0))
          .map((h) => h.toString('latin1'))
          .sort();
        assert.deepEqual(snapshot.fullHashesWithPrefix(probe.readUInt32BE(0)), expected);
        assert.equal(snapshot.hasFullHash(probe.toString('latin1')), keys.includes(probeKey));
      }),
    );
  });

  it('serves a full hash when it holds it, or (mirrored, served hashes only) its first hashLength bytes', () => {
    fc.assert(
      fc.property(poolKeys(), fc.nat({ max: POOL_SIZE - 1 }), fc.constantFrom<4 | 8 | 16 | 32>(4, 8, 16, 32), (keys, probeKey, width) => {
        const full = Snapshot.of(definition(width), poolHashes(keys), 1);
        const mirrored = Snapshot.ofServed(definition(width), full.served(), 1);
        const probe = poolHash(probeKey);
        assert.equal(full.serves(probe.toString('latin1')), keys.includes(probeKey));
        const listedPrefix = modelServed(poolHashes(keys), width).includes(probe.subarray(0, width).toString('hex'));
        assert.equal(mirrored.serves(probe.toString('latin1')), listedPrefix);
      }),
    );
  });

  it('answers searches with the hash strings of url/hash.ts', () => {
    const snapshot = Snapshot.of(definition(4), expressionHashBytes('malware.sbtest.example/'), 1);
    const hash = expressionHashString('malware.sbtest.example/');
    assert.deepEqual(snapshot.fullHashesWithPrefix(0xbfd00f8e), [hash]);
    assert.ok(snapshot.hasFullHash(hash));
    assert.ok(!snapshot.hasFullHash(hash.slice(0, 31)), 'not a full hash');
    assert.ok(!snapshot.hasFullHash(expressionHashString('safe.sbtest.example/')));
    assert.deepEqual(snapshot.fullHashesWithPrefix(0xbfd00f8f), []);
  });

  it('names the same list and content alike, anything else differently', () => {
    const a = Snapshot.of(definition(4), poolHashes([1, 2, 3]), 1);
    assert.equal(Snapshot.of(definition(4), poolHashes([3, 2, 1, 2]), 99).id, a.id);
    assert.notEqual(Snapshot.of(definition(4), poolHashes([1, 2]), 1).id, a.id);
    assert.notEqual(Snapshot.of(definition(4, 'other'), poolHashes([1, 2, 3]), 1).id, a.id);
    assert.notEqual(Snapshot.of(definition(8, 'test-4b'), poolHashes([1, 2, 3]), 1).id, a.id);
    assert.match(a.id, /^[0-9a-f]{32}$/);
  });

  it('keeps its publication time and definition', () => {
    const snapshot = Snapshot.of(definition(32), new Uint8Array(0), 1234);
    assert.equal(snapshot.createdAt, 1234);
    assert.equal(snapshot.definition.name, 'test-32b');
    assert.equal(snapshot.fullHashCount, 0);
  });

  it('refuses bytes that are not whole 32-byte hashes', () => {
    assert.throws(
      () => Snapshot.of(definition(4), new Uint8Array(33), 1),
      (err: unknown) =>
        err instanceof ListError &&
        err.reason === 'ragged-full-hashes' &&
        err.message.includes('test-4b') &&
        err.message.includes('33 bytes'),
    );
  });

  it('is made in turns as it is made in one go, from sorted and unsorted hashes alike', async () => {
    await fc.assert(
      fc.asyncProperty(poolKeys(), fc.constantFrom<4 | 8 | 32>(4, 8, 32), fc.boolean(), async (keys, width, sorted) => {
        const input = sorted ? sortFullHashes(poolHashes(keys)).bytes : poolHashes(keys);
        const once = Snapshot.of(definition(width), input, 1);
        // A slice of 0 ms: the work pauses at every point it can.
        const inTurns = await Snapshot.inTurns(definition(width), input, 1, new EventLoopTurns(0));
        assert.equal(inTurns.id, once.id);
        assert.deepEqual(Buffer.from(inTurns.fullHashBytes()), Buffer.from(once.fullHashBytes()));
        assert.deepEqual(hexList(inTurns.served()), hexList(once.served()));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses bytes that are not whole 32-byte hashes when made in turns too', async () => {
    await assert.rejects(Snapshot.inTurns(definition(4), new Uint8Array(33), 1, new EventLoopTurns()), ListError);
  });
});
