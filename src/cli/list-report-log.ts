// What `sbkit serve` logs of each (re)load of a configuration's list: a line for a load that published
// or failed (one that found every feed as it was is no news: /status tells of it), and the bad lines of
// its feeds — listed once per content: a reload that reads the same bad lines again says so in a word
// and counts, instead of listing them at every reload, every feed interval, every SIGHUP.

import type { ListLoadReport } from '../server/feeds/feed-lists.ts';
import type { Logger } from '../server/logger.ts';

/** The bad lines last listed for one list, and how many reports since read the same. */
interface Listed {
  badLines: string;
  repeated: number;
}

export class ListReportLog {
  private readonly listed = new Map<string, Listed>();

  constructor(private readonly log: Logger) {}

  /** Logs `report`: a warning when a source failed, its bad lines unless listed as they are before. */
  report(report: ListLoadReport): void {
    if (!report.published && report.errors.length === 0) return;
    const problems = report.errors.length === 0 ? '' : `; failed sources: ${report.errors.join('; ')}`;
    const kept = report.published ? '' : ' (previous version kept)';
    const summary = `list ${report.list}: ${report.expressions} entries, ${report.badLines} bad lines${problems}${kept}`;
    const fields = { list: report.list, entries: report.expressions, badLines: report.badLines };
    const at = report.errors.length === 0 ? this.log.info.bind(this.log) : this.log.warn.bind(this.log);
    const badLines = JSON.stringify([report.badLines, report.firstBadLines]);
    const before = this.listed.get(report.list);
    if (report.badLines > 0 && before?.badLines === badLines) {
      before.repeated++;
      at(`${summary}; the same bad lines as listed before, not listed again (${before.repeated} times)`, {
        ...fields,
        badLinesRepeated: before.repeated,
      });
      return;
    }
    this.listed.set(report.list, { badLines, repeated: 0 });
    at(summary, fields);
    for (const bad of report.firstBadLines) {
      this.log.warn(`list ${report.list}: ${bad.source}, line ${bad.line}: ${bad.reason}`, { list: report.list, line: bad.line });
    }
  }
}
