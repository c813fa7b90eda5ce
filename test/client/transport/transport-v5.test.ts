import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { hashListUpdate } from '../../../src/client/transport/transport-v5.ts';
import { encodeRice32 } from '../../../src/codec/index.ts';
import { HashListSchema } from '../../../src/proto/v5.ts';
import { checksumOf, HashList, hashCount } from '../../../src/store/hash-list.ts';
import { nodeSha256 } from '../../../src/url/hash.ts';
import { ListTooLargeError } from '../../../src/client/client-errors.ts';

const MAX = 1000;
const four = (...values: number[]) => ({ width: 4 as const, values: Uint32Array.from(values) });
const listed = HashList.empty('se-4b', 4).applyUpdate(
  {
    partial: false,
    version: Buffer.from('v1'),
    removals: new Uint32Array(0),
    additions: four(7, 9),
    checksum: checksumOf(four(7, 9), nodeSha256),
  },
  nodeSha256,
);

describe("a v5 HashList as the store's update", () => {
  it('reads a list answered with nothing but a new version as no change, though proto3 gives its partial_update as false (docs/api.md)', () => {
    const update = hashListUpdate(create(HashListSchema, { name: 'se-4b', version: Buffer.from('v2') }), 4, 'se-4b', MAX);
    assert.equal(update.partial, true);
    const next = listed.applyUpdate(update, nodeSha256);
    assert.deepEqual(next.sortedHashes(), four(7, 9), 'the list is kept');
    assert.equal(Buffer.from(next.version).toString(), 'v2');
  });

  it('reads a full update as a replacement, an empty one with the checksum of nothing as the empty list', () => {
    const full = hashListUpdate(
      create(HashListSchema, {
        name: 'se-4b',
        version: Buffer.from('v3'),
        compressedAdditions: { case: 'additionsFourBytes', value: encodeRice32(Uint32Array.of(1, 2))! },
        sha256Checksum: checksumOf(four(1, 2), nodeSha256),
      }),
      4,
      'se-4b',
      MAX,
    );
    assert.equal(full.partial, false);
    assert.deepEqual(listed.applyUpdate(full, nodeSha256).sortedHashes(), four(1, 2));
    const emptied = hashListUpdate(
      create(HashListSchema, { name: 'se-4b', version: Buffer.from('v4'), sha256Checksum: checksumOf(four(), nodeSha256) }),
      4,
      'se-4b',
      MAX,
    );
    assert.equal(emptied.partial, false);
    assert.equal(listed.applyUpdate(emptied, nodeSha256).size, 0);
  });

  it('refuses, from the header alone, additions or removals announcing more than maxEntries (ListTooLargeError)', () => {
    // 30 bytes that announce 60 entries: nothing is decoded, so the data need not hold them.
    const claim = { firstValue: 0, riceParameter: 3, entriesCount: 59, encodedData: new Uint8Array(30) };
    const additions = create(HashListSchema, { name: 'se-4b', compressedAdditions: { case: 'additionsFourBytes', value: claim } });
    const removals = create(HashListSchema, { name: 'se-4b', partialUpdate: true, compressedRemovals: claim });
    for (const message of [additions, removals]) {
      assert.throws(
        () => hashListUpdate(message, 4, 'se-4b', 59),
        (err: unknown) => err instanceof ListTooLargeError && err.entries === 60 && err.maxEntries === 59 && err.listName === 'se-4b',
      );
    }
    const fits = create(HashListSchema, {
      name: 'se-4b',
      compressedAdditions: { case: 'additionsFourBytes', value: encodeRice32(Uint32Array.of(1, 2, 3))! },
      sha256Checksum: checksumOf(four(1, 2, 3), nodeSha256),
    });
    assert.equal(hashCount(hashListUpdate(fits, 4, 'se-4b', 3).additions), 3);
    assert.throws(() => hashListUpdate(fits, 4, 'se-4b', 2), ListTooLargeError);
  });
});
