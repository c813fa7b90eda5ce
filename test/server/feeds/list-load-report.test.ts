import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  heldBackReason,
  loadedReport,
  republishedReport,
  REPORTED_BAD_LINES_PER_SOURCE,
} from '../../../src/server/feeds/list-load-report.ts';
import type { LoadedList } from '../../../src/server/feeds/sources/feed-source.ts';
import { SourceError } from '../../../src/server/feeds/sources/source-error.ts';

/** What loadList gives for a list whose sources are as `parts` say. */
function loaded(parts: Partial<LoadedList>): LoadedList {
  return {
    fullHashes: new Uint8Array(),
    expressions: 0,
    badLines: 0,
    errors: [],
    unread: [],
    stale: [],
    sources: [],
    contentKey: 'key',
    ...parts,
  };
}

const badLines = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ line: i + 1, text: `bad ${i}`, reason: 'an expression is host/path without a scheme' }));

describe('loadedReport', () => {
  it("names each source's first bad lines, the failed sources and the stale copies, nothing published yet", () => {
    const report = loadedReport(
      'se-4b',
      loaded({
        expressions: 3,
        badLines: 13,
        sources: [
          { source: 'a.txt', entryCount: 2, expressionCount: 2, badLineCount: 12, badLines: badLines(12) },
          { source: 'b.txt', entryCount: 1, expressionCount: 1, badLineCount: 1, badLines: badLines(1) },
        ],
        errors: [new SourceError('c.txt', 'not-found', 'no such file')],
        stale: [{ error: new SourceError('https://feed.example/', 'http-status', 'HTTP 500'), copySince: Date.UTC(2026, 10, 25) }],
      }),
    );
    assert.deepEqual(
      report.firstBadLines.map(({ source, line }) => `${source}:${line}`),
      [...Array.from({ length: REPORTED_BAD_LINES_PER_SOURCE }, (_, i) => `a.txt:${i + 1}`), 'b.txt:1'],
    );
    assert.deepEqual(report.errors, [
      'c.txt: no such file',
      'https://feed.example/: HTTP 500; its copy from 2026-11-25T00:00:00.000Z still counts',
    ]);
    assert.deepEqual([report.list, report.expressions, report.badLines, report.published, report.served], ['se-4b', 3, 13, false, false]);
  });
});

describe('heldBackReason', () => {
  it('speaks of one source, and when it is tried next', () => {
    const reason = heldBackReason(loaded({ errors: [new SourceError('c.txt', 'not-found', 'no such file')] }), Date.UTC(2026, 10, 25, 10));
    assert.equal(
      reason,
      'the list stays as it was: c.txt: no such file, and that source has no copy in this process yet; publishing without it ' +
        'would take its entries out of every client. What this load read is served once that source is read (next tried at ' +
        '2026-11-25T10:00:00.000Z).',
    );
  });

  it('speaks of several sources, unread ones too, and of the next reload when none is timed', () => {
    const reason = heldBackReason(
      loaded({ errors: [new SourceError('c.txt', 'not-found', 'no such file')], unread: ['d.txt'] }),
      undefined,
    );
    assert.match(reason, /c\.txt: no such file; d\.txt is being read for the first time, and those sources have no copy/);
    assert.match(reason, /without them would take their entries/);
    assert.match(reason, /once those sources are read \(at the next reload\)\.$/);
  });
});

describe('republishedReport', () => {
  it('is published and served, with no reason left why not', () => {
    const report = { ...loadedReport('se-4b', loaded({})), notServed: 'the snapshot store could not take the list' };
    const published = republishedReport(report);
    assert.deepEqual([published.published, published.served, 'notServed' in published], [true, true, false]);
    assert.equal(report.notServed, 'the snapshot store could not take the list', 'the report it came from is left as it was');
  });
});
