import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListReportLog } from '../../src/cli/list-report-log.ts';
import type { ListLoadReport } from '../../src/server/feeds/feed-lists.ts';
import { RecordingLogger } from '../support/recording-logger.ts';

function report(overrides: Partial<ListLoadReport> = {}): ListLoadReport {
  return {
    list: 'mw-4b',
    expressions: 2,
    badLines: 1,
    firstBadLines: [{ source: '/feeds/hosts.txt', line: 3, reason: 'not a host' }],
    errors: [],
    published: true,
    served: true,
    ...overrides,
  };
}

describe('ListReportLog', () => {
  it('lists the bad lines of a feed once per content, and counts the reloads that read them again', () => {
    const log = new RecordingLogger();
    const lists = new ListReportLog(log);
    lists.report(report());
    lists.report(report());
    lists.report(report());
    assert.deepEqual(
      log.lines.map(({ level, message }) => `${level} ${message}`),
      [
        'info list mw-4b: 2 entries, 1 bad lines',
        'warn list mw-4b: /feeds/hosts.txt, line 3: not a host',
        'info list mw-4b: 2 entries, 1 bad lines; the same bad lines as listed before, not listed again (once so far)',
        'info list mw-4b: 2 entries, 1 bad lines; the same bad lines as listed before, not listed again (2 times so far)',
      ],
    );
    // Another content: listed again; another list is counted apart.
    lists.report(
      report({ badLines: 2, firstBadLines: [...report().firstBadLines, { source: '/feeds/hosts.txt', line: 9, reason: 'empty' }] }),
    );
    lists.report(report({ list: 'se-4b' }));
    assert.equal(log.messages('warn').length, 4, log.messages().join('\n'));
  });

  it('warns of failed sources at every load, and is silent for a load that found every feed as it was', () => {
    const log = new RecordingLogger();
    const lists = new ListReportLog(log);
    lists.report(report({ published: false, badLines: 0, firstBadLines: [] }));
    assert.deepEqual(log.lines, []);
    const failed = report({ published: false, badLines: 0, firstBadLines: [], errors: ['https://feeds.example/x.txt: 503'] });
    lists.report(failed);
    lists.report(failed);
    assert.deepEqual(log.messages('warn'), [
      'list mw-4b: 2 entries, 0 bad lines; failed sources: https://feeds.example/x.txt: 503 (previous version kept)',
      'list mw-4b: 2 entries, 0 bad lines; failed sources: https://feeds.example/x.txt: 503 (previous version kept)',
    ]);
  });
});
