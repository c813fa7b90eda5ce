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
    let summary = `list ${report.list}: ${report.expressions} entries, ${report.badLines} bad lines${problems}${kept}`;
    const badLines = JSON.stringify([report.badLines, report.firstBadLines]);
    const before = this.listed.get(report.list);
    const repeated = report.badLines > 0 && before?.badLines === badLines;
    if (repeated) {
      const times = ++before.repeated;
      summary += `; the same bad lines as listed before, not listed again (${times === 1 ? 'once' : `${times} times`} so far)`;
    } else this.listed.set(report.list, { badLines, repeated: 0 });
    if (report.errors.length === 0) this.log.info(summary);
    else this.log.warn(summary);
    if (repeated) return;
    for (const bad of report.firstBadLines) this.log.warn(`list ${report.list}: ${bad.source}, line ${bad.line}: ${bad.reason}`);
  }
}
