import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checksumOf,
  hashBytes,
  hashesFromBytes,
  HashList,
  type HashListUpdate,
  HashListUpdateError,
  type SortedHashes,
} from '../../src/store/hash-list.ts';
import { expressionHashString, nodeSha256 } from '../../src/url/hash.ts';

const four = (...values: number[]): SortedHashes => ({ width: 4, values: Uint32Array.from(values) });

function update(partial: boolean, removals: number[], additions: SortedHashes, checksum?: Uint8Array): HashListUpdate {
  return { partial, version: Buffer.from('v2'), removals: Uint32Array.from(removals), additions, checksum };
}

function failsWith(reason: string) {
  return (err: unknown) => err instanceof HashListUpdateError && err.reason === reason && err.message.includes('fetched again in full');
}

describe('checksumOf (SB-9)', () => {
  it('is the SHA-256 of the sorted hashes, concatenated big-endian', () => {
    const expected = createHash('sha256').update(Buffer.from('0000000100000002ffffffff', 'hex')).digest();
    assert.deepEqual(Buffer.from(checksumOf(four(1, 2, 0xffffffff), nodeSha256)), expected);
  });

  it('of an empty list is the SHA-256 of nothing', () => {
    assert.equal(
      Buffer.from(checksumOf(four(), nodeSha256)).toString('hex'),
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('hashBytes and hashesFromBytes are inverse', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 0xffffffff })), (values) => {
        const hashes = four(...values.sort((a, b) => a - b));
        assert.deepEqual(hashesFromBytes(4, hashBytes(hashes)), hashes);
      }),
    );
  });
});

describe('HashList.applyUpdate (SB-9)', () => {
  const base = HashList.fromSorted('se-4b', Buffer.from('v1'), four(10, 20, 30, 40), checksumOf(four(10, 20, 30, 40), nodeSha256));

  it('a full update replaces the list', () => {
    const next = base.applyUpdate(update(false, [], four(5, 6), checksumOf(four(5, 6), nodeSha256)), nodeSha256);
    assert.deepEqual(next.sortedHashes(), four(5, 6));
    assert.equal(Buffer.from(next.version).toString(), 'v2');
  });

  it('a partial update removes at the indices first, then adds', () => {
    const next = base.applyUpdate(update(true, [0, 2], four(15, 45), checksumOf(four(15, 20, 40, 45), nodeSha256)), nodeSha256);
    assert.deepEqual(next.sortedHashes(), four(15, 20, 40, 45));
    // Removal before addition: index 0 is the old 10, not the added 15.
  });

  it('removes and re-adds the same hash in one update', () => {
    const next = base.applyUpdate(update(true, [1], four(20), base.checksum), nodeSha256);
    assert.deepEqual(next.sortedHashes(), four(10, 20, 30, 40));
  });

  it('matches full hashes by their first four bytes', () => {
    const hash = expressionHashString('malware.sbtest.example/');
    const prefix = Buffer.from(hash, 'latin1').readUInt32BE(0);
    const list = HashList.empty('mw-4b', 4).applyUpdate(update(false, [], four(prefix), checksumOf(four(prefix), nodeSha256)), nodeSha256);
    assert.ok(list.matches(hash));
    assert.ok(list.hasPrefix(prefix));
    assert.ok(!list.matches(expressionHashString('safe.example/')));
  });

  it('rejects every kind of bad update and leaves the list as it was', () => {
    const anyChecksum = new Uint8Array(32);
    const cases: [HashListUpdate, string][] = [
      [update(true, [4], four(), anyChecksum), 'removal-index-out-of-range'],
      [update(true, [2, 1], four(), anyChecksum), 'removals-not-ascending'],
      [update(true, [1, 1], four(), anyChecksum), 'removals-not-ascending'],
      [update(true, [], four(20), anyChecksum), 'duplicate-addition'],
      [update(true, [], four(50, 50), anyChecksum), 'duplicate-addition'],
      [update(true, [], four(50, 45), anyChecksum), 'additions-not-ascending'],
      [update(false, [], four(7, 7), anyChecksum), 'duplicate-addition'],
      [update(false, [0], four(1), anyChecksum), 'removals-in-full-update'],
      [update(true, [], { width: 32, bytes: new Uint8Array(32) }, anyChecksum), 'width-mismatch'],
      [update(true, [0], four()), 'checksum-missing'],
      [update(true, [0], four(), new Uint8Array(32)), 'checksum-mismatch'],
      [update(false, [], four(1), checksumOf(four(2), nodeSha256)), 'checksum-mismatch'],
    ];
    for (const [bad, reason] of cases) {
      assert.throws(() => base.applyUpdate(bad, nodeSha256), failsWith(reason), reason);
      assert.deepEqual(base.sortedHashes(), four(10, 20, 30, 40));
      assert.equal(Buffer.from(base.version).toString(), 'v1');
    }
  });

  it("takes a partial update without checksum and without changes, or any answer confirming the list's own checksum, as a new version only (docs/api.md)", () => {
    for (const unchanged of [update(true, [], four()), update(false, [], four(), base.checksum), update(true, [], four(), base.checksum)]) {
      const next = base.applyUpdate(unchanged, nodeSha256);
      assert.deepEqual(next.sortedHashes(), four(10, 20, 30, 40));
      assert.deepEqual(Buffer.from(next.checksum), Buffer.from(base.checksum));
      assert.equal(Buffer.from(next.version).toString(), 'v2');
    }
  });

  it('empties the list on a full update without additions (a v4 FULL_UPDATE of nothing), with the checksum of nothing or none', () => {
    for (const checksum of [undefined, checksumOf(four(), nodeSha256)]) {
      const next = base.applyUpdate(update(false, [], four(), checksum), nodeSha256);
      assert.equal(next.size, 0);
      assert.deepEqual(Buffer.from(next.checksum), Buffer.from(checksumOf(four(), nodeSha256)));
      assert.equal(Buffer.from(next.version).toString(), 'v2');
    }
    assert.throws(
      () => base.applyUpdate(update(false, [], four(), checksumOf(four(10), nodeSha256)), nodeSha256),
      failsWith('checksum-mismatch'),
    );
  });

  it('refuses a change it cannot verify for want of a checksum', () => {
    assert.throws(() => base.applyUpdate(update(true, [3], four()), nodeSha256), failsWith('checksum-missing'));
    assert.throws(() => base.applyUpdate(update(false, [], four(1)), nodeSha256), failsWith('checksum-missing'));
  });

  it("refuses hashes of another width than the list's, in full updates as in partial ones", () => {
    const wideHashes = { width: 8 as const, bytes: Buffer.alloc(8, 1) };
    for (const partial of [false, true]) {
      assert.throws(
        () => base.applyUpdate(update(partial, [], wideHashes, checksumOf(wideHashes, nodeSha256)), nodeSha256),
        failsWith('width-mismatch'),
      );
    }
    const global = HashList.empty('gc-32b', 32);
    assert.throws(
      () => global.applyUpdate(update(false, [], four(1), checksumOf(four(1), nodeSha256)), nodeSha256),
      failsWith('width-mismatch'),
    );
    assert.equal(global.width, 32);
  });

  it('agrees with a model for any partial update of any width', () => {
    const arbitraryCase = fc
      .tuple(
        fc.constantFrom<4 | 8 | 32>(4, 8, 32),
        fc.uniqueArray(fc.nat({ max: 0xffff }), { maxLength: 80 }),
        fc.uniqueArray(fc.nat({ max: 0xffff }), { maxLength: 40 }),
        fc.array(fc.nat({ max: 90 }), { maxLength: 30 }),
      )
      .map(([width, oldKeys, newKeys, removalPicks]) => ({ width, oldKeys, newKeys, removalPicks }));
    fc.assert(
      fc.property(arbitraryCase, fc.boolean(), ({ width, oldKeys, newKeys, removalPicks }, sendChecksum) => {
        const toHashes = (keys: number[]): SortedHashes => {
          const sorted = [...keys].sort((a, b) => a - b);
          if (width === 4) return { width, values: Uint32Array.from(sorted, (k) => k * 65537) };
          return {
            width,
            bytes: Buffer.concat(sorted.map((k) => Buffer.concat([Buffer.from([k >> 8, k & 0xff]), Buffer.alloc(width - 2, k % 7)]))),
          };
        };
        const oldSorted = [...oldKeys].sort((a, b) => a - b);
        const list = HashList.fromSorted('x', Buffer.from('old'), toHashes(oldSorted), checksumOf(toHashes(oldSorted), nodeSha256));
        const removals = [...new Set(removalPicks)].sort((a, b) => a - b);
        const kept = oldSorted.filter((_, i) => !removals.includes(i));
        const expectedKeys = [...kept, ...newKeys];
        const valid = removals.every((r) => r < oldSorted.length) && new Set(expectedKeys).size === expectedKeys.length;
        const changes = removals.length > 0 || newKeys.length > 0;
        const checksum =
          valid && (sendChecksum || changes)
            ? checksumOf(toHashes(expectedKeys), nodeSha256)
            : sendChecksum
              ? new Uint8Array(32)
              : undefined;
        const attempt = () => list.applyUpdate(update(true, removals, toHashes(newKeys), checksum), nodeSha256);
        if (!valid || (checksum === undefined && changes)) {
          assert.throws(attempt, HashListUpdateError);
          return;
        }
        assert.deepEqual(Buffer.from(hashBytes(attempt().sortedHashes())), Buffer.from(hashBytes(toHashes(expectedKeys))));
      }),
      { numRuns: 1000 },
    );
  });
});
