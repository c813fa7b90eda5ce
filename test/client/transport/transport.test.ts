import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unlessUnlisted } from '../../../src/client/transport/transport.ts';
import { WireResponseError } from '../../../src/wire/wire-error.ts';

describe('unlessUnlisted', () => {
  it('gives the answer of a server that lists its lists', async () => {
    assert.deepEqual(await unlessUnlisted(Promise.resolve(['se-4b'])), ['se-4b']);
  });

  it('gives nothing when the server answers that it has no listing', async () => {
    for (const status of [400, 404, 405, 501]) {
      const refusal = new WireResponseError('error-status', status, undefined, `HTTP ${status}`);
      assert.equal(await unlessUnlisted(Promise.reject(refusal)), undefined, `HTTP ${status}`);
    }
  });

  it('passes on any other failure', async () => {
    const unavailable = new WireResponseError('error-status', 503, undefined, 'HTTP 503');
    await assert.rejects(unlessUnlisted(Promise.reject(unavailable)), unavailable);
    const unreadable = new WireResponseError('malformed-body', 404, undefined, 'not protobuf');
    await assert.rejects(unlessUnlisted(Promise.reject(unreadable)), unreadable);
  });
});
