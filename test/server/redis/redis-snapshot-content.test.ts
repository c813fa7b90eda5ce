// A snapshot's content as the shared store writes it to Redis and reads it back: what was written reads
// back as the same version; what is gone, damaged or made by an instance configured otherwise is refused
// with the reason the log gives.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashBytes } from '../../../src/store/hash-list.ts';
import { Snapshot } from '../../../src/server/lists/snapshot.ts';
import { contentOf, offerOf, SNAPSHOT_FIELDS, snapshotOfFields } from '../../../src/server/redis/redis-snapshot-content.ts';
import { definition, fromHex, hexList, poolHashes } from '../lists/fixtures.ts';

const LIST = definition(4);
const CREATED_AT = 1_700_000_000_000;

/** The fields of a snapshot's hash in Redis, in SNAPSHOT_FIELDS' order, from those named. */
function fields(named: Partial<Record<(typeof SNAPSHOT_FIELDS)[number], Uint8Array | string>>): (Buffer | null)[] {
  return SNAPSHOT_FIELDS.map((field) => {
    const value = named[field];
    return value === undefined ? null : Buffer.from(value);
  });
}

describe('a snapshot in Redis', () => {
  it('reads back as the version written: full hashes of a list of our own, served hashes of a mirror', () => {
    const own = Snapshot.of(LIST, poolHashes([5, 1, 9]), CREATED_AT);
    const ownContent = contentOf(own);
    assert.equal(ownContent.field, 'fullHashes');
    const ownRead = snapshotOfFields(LIST, own.id, fields({ fullHashes: ownContent.bytes, createdAt: String(CREATED_AT) }));
    assert.ok(ownRead instanceof Snapshot);
    assert.equal(ownRead.id, own.id);
    assert.equal(ownRead.createdAt, CREATED_AT);

    const mirrored = Snapshot.ofServed(LIST, fromHex(4, ['00000001', '12345678']), CREATED_AT);
    const mirroredContent = contentOf(mirrored);
    assert.equal(mirroredContent.field, 'served');
    const mirroredRead = snapshotOfFields(LIST, mirrored.id, fields({ served: mirroredContent.bytes, createdAt: String(CREATED_AT) }));
    assert.ok(mirroredRead instanceof Snapshot);
    assert.deepEqual(hexList(mirroredRead.served()), ['00000001', '12345678']);
  });

  it('is refused, with the reason, when its content is gone or is another version than its id says', () => {
    assert.deepEqual(snapshotOfFields(LIST, 'abc', fields({ createdAt: '1' })), { unusable: 'its content is not in Redis (evicted?)' });
    const wider = Snapshot.of(definition(8, LIST.name), poolHashes([5, 1, 9]), CREATED_AT);
    const read = snapshotOfFields(LIST, wider.id, fields({ fullHashes: contentOf(wider).bytes }));
    assert.ok('unusable' in read);
    assert.match(read.unusable, /^its content is snapshot \S+ here; do all instances configure the list alike\?$/);
    assert.ok('unusable' in snapshotOfFields(LIST, 'abc', fields({ served: new Uint8Array(5) })), 'no whole number of hashes');
  });

  it('written back as its served hashes alone, is read without its id checked, but refused at another width or out of order', () => {
    const served = fromHex(4, ['00000001', '12345678']);
    const ok = snapshotOfFields(LIST, 'older', fields({ kept: hashBytes(served), width: '4' }));
    assert.ok(!('unusable' in ok));
    assert.equal(ok.id, 'older');
    assert.deepEqual(hexList(ok.served()), ['00000001', '12345678']);
    assert.deepEqual(snapshotOfFields(LIST, 'older', fields({ kept: hashBytes(served), width: '8' })), {
      unusable: 'it was written back with 8-byte hashes; do all instances configure the list alike?',
    });
    const reversed = new Uint8Array(Buffer.from('1234567800000001', 'hex'));
    assert.deepEqual(snapshotOfFields(LIST, 'older', fields({ kept: reversed, width: '4' })), {
      unusable: 'its hashes are not in ascending order',
    });
    assert.deepEqual(snapshotOfFields(LIST, 'older', fields({ kept: new Uint8Array(6), width: '4' })), {
      unusable: '6 bytes are not a whole number of 4-byte hashes',
    });
  });
});

describe('a write-back offer', () => {
  it('sends the current snapshot whole, an older one of a list of our own as its served hashes, of a mirror as served', () => {
    const older = Snapshot.of(LIST, poolHashes([1]), CREATED_AT - 1);
    const current = Snapshot.of(LIST, poolHashes([1, 2]), CREATED_AT);
    const whole = offerOf(current, current, 7);
    assert.deepEqual(
      { ...whole, bytes: undefined },
      { id: current.id, serial: 7, field: 'fullHashes', createdAt: CREATED_AT, bytes: undefined },
    );
    assert.deepEqual(whole.bytes(), current.fullHashBytes());
    const kept = offerOf(older, current, 6);
    assert.equal(kept.field, 'kept');
    assert.deepEqual(kept.bytes(), hashBytes(older.served()));

    const mirrored = Snapshot.ofServed(LIST, fromHex(4, ['00000002']), CREATED_AT);
    assert.equal(offerOf(older, mirrored, 6).field, 'served');
  });
});
