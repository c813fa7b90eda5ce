import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sentBytes } from '../../../src/server/http/sent-bytes.ts';

describe('sentBytes', () => {
  it("counts a write libuv has partly sent by libuv's queue, not by Node's pending write", () => {
    assert.equal(sentBytes({ bytesWritten: 9_000_000, writableLength: 9_000_000, _handle: { writeQueueSize: 6_000_000 } }), 3_000_000);
  });

  it('counts by what Node holds when there is no queue to read (a closed socket, an HTTP/2 session)', () => {
    assert.equal(sentBytes({ bytesWritten: 5000, writableLength: 1000, _handle: null }), 4000);
    assert.equal(sentBytes({ bytesWritten: 5000, writableLength: 0, _handle: { writeQueueSize: 0 } }), 5000);
  });
});
