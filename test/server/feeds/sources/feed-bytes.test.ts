// A feed's bytes: gathered into one shared buffer as they arrive (FeedBytesWriter), and a file's parts,
// which a worker frees as soon as it has read them (releasableBytes, release).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { FeedBytesWriter, releasableBytes, release } from '../../../../src/server/feeds/sources/feed-bytes.ts';

describe('feed bytes', () => {
  it('gathers chunks into one shared buffer with their SHA-256, within its bound', () => {
    const writer = new FeedBytesWriter(10);
    writer.write(Buffer.from('abc\n'));
    writer.write(Buffer.from('def\n'));
    const feed = writer.finish();
    assert.equal(feed.parts.length, 1);
    assert.ok(feed.parts[0]!.buffer instanceof SharedArrayBuffer);
    assert.equal(Buffer.from(feed.parts[0]!).toString(), 'abc\ndef\n');
    assert.equal(feed.size, 8);
    assert.equal(feed.digest, createHash('sha256').update('abc\ndef\n').digest('base64'));
    assert.equal(writer.room(5).length, 2, 'no room past the bound');
  });

  it('frees the memory of releasable bytes at once, and leaves other bytes as they are', () => {
    const part = releasableBytes(1 << 20);
    part.fill(7);
    release(part);
    assert.equal(part.buffer.byteLength, 0);
    assert.equal(part.length, 0);
    const plain = new Uint8Array([1, 2, 3]);
    release(plain);
    assert.deepEqual([...plain], [1, 2, 3]);
  });
});
