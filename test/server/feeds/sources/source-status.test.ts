import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceConfig } from '../../../../src/server/config/config.ts';
import { SourceError, type SourceFailure } from '../../../../src/server/feeds/sources/source-error.ts';
import type { SourceState } from '../../../../src/server/feeds/sources/source-states.ts';
import { sourceStatus } from '../../../../src/server/feeds/sources/source-status.ts';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const SECRET_URL = 'https://user:pw@feeds.example/k/SECRET/list.txt?token=SECRET';

function state(changes: Partial<SourceState> = {}, source?: Partial<SourceConfig>): SourceState {
  return {
    list: 'se-4b',
    index: 2,
    source: { kind: 'url', url: SECRET_URL, format: 'urls', csvColumn: undefined, refreshMinutes: 60, ...source } as SourceConfig,
    name: 'feeds.example',
    limits: { timeoutMs: 10_000, maxBytes: 8 * 1024 * 1024 },
    copy: undefined,
    validators: undefined,
    fileVersion: undefined,
    lastCheckAt: undefined,
    lastSuccessAt: undefined,
    lastUnchanged: false,
    failure: undefined,
    lastError: undefined,
    nextCheckAt: undefined,
    requests: 0,
    notModified: 0,
    receivedBytes: 0,
    failures: new Map(),
    editedExpressions: undefined,
    ...changes,
  };
}

const copy = {
  fullHashes: new Uint8Array(0),
  entryCount: 12_345,
  expressionCount: 12_345,
  badLineCount: 0,
  badLines: [],
  bytes: 1,
  digest: '',
  generation: 1,
  since: NOW - 3_600_000,
};

function failing(failure: SourceFailure, options: { httpStatus?: number; retryAfterSeconds?: number } = {}): SourceState {
  // The message names the URL and quotes the server: none of it may reach the words.
  const error = new SourceError(`${SECRET_URL}`, failure, 'the server said "SECRET"', options);
  return state({ failure: { error, since: NOW - 120_000, at: NOW - 30_000, count: 3 }, copy, nextCheckAt: NOW + 90_000 });
}

describe('sourceStatus', () => {
  it('says a fresh source is fresh, with its entries, its last check and since when it is unchanged', () => {
    const fresh = sourceStatus(state({ copy, lastSuccessAt: NOW - 30_000, lastCheckAt: NOW - 30_000 }), NOW);
    assert.equal(fresh.state, 'fresh');
    assert.equal(fresh.summary, 'fresh, 12,345 entries, checked 30 s ago, unchanged since 2026-11-25 11:00:00 UTC');
    assert.equal(sourceStatus(state(), NOW).summary, 'not read yet');
    assert.equal(sourceStatus(state({ copy: { ...copy, expressionCount: 2 } }, { kind: 'entries' }), NOW).summary, 'inline, 2 entries');
  });

  it("tells each kind of failure in words of its own, never the URL nor the server's", () => {
    const cases: [SourceState, string][] = [
      [failing('timeout'), 'timeout after 10 s'],
      [failing('http-status', { httpStatus: 503, retryAfterSeconds: 600 }), 'HTTP 503, asked to wait 10 min'],
      [failing('too-large'), 'larger than its limit of 8 MiB'],
      [failing('network'), 'network error (the log says more)'],
      [failing('redirect'), 'a redirect refused (the log says more)'],
      [failing('forbidden-address'), 'at a non-public address, refused'],
      [failing('not-a-feed'), 'does not look like a urls feed'],
      [failing('format'), 'not readable as urls'],
      [failing('worker'), 'the feed worker reading it failed (the log says more)'],
    ];
    for (const [source, reason] of cases) {
      const status = sourceStatus(source, NOW);
      assert.equal(status.state, 'failing');
      assert.equal(status.failure?.reason, reason);
      assert.equal(
        status.summary,
        `failing since 2026-11-25 11:58:00 UTC (3 tries): ${reason}; serving the copy from 2026-11-25 11:00:00 UTC, 12,345 entries; next try in 90 s`,
      );
      assert.doesNotMatch(JSON.stringify(status), /SECRET|token|user:pw/);
    }
  });
});
