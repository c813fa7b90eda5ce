import { type CsvColumn, csvFeedSteps } from './csv-feed.ts';
import { canonicalBareHost, expressionLineExpression, urlExpression, wholeHostExpression } from './entry-expression.ts';
import { badEntryReason, FeedCollector, type ParsedFeed } from '../feed-collector.ts';
import { eachLine, isBlankOrComment, withoutByteOrderMark } from './feed-lines.ts';
import { hostsLineNames, isLocalName } from './hosts-file.ts';

export type { ParsedFeed } from '../feed-collector.ts';

/**
 * The feed formats people publish (docs/api.md §4):
 * - `urls`: one URL per line (OpenPhish, URLhaus's text export);
 * - `hosts`: hosts files, `0.0.0.0 bad.example other.example` (StevenBlack-style blocklists);
 * - `csv`: CSV with a URL column (URLhaus, PhishTank);
 * - `expressions`: `host/path` lines already in Safe Browsing expression form;
 * - `domains`: ranked domain lists such as Tranco's `rank,domain`, for likely-safe lists.
 * In all of them blank lines and lines starting with `#` are skipped.
 */
export type FeedFormat = 'urls' | 'hosts' | 'csv' | 'expressions' | 'domains';

export const FEED_FORMATS: readonly FeedFormat[] = ['urls', 'hosts', 'csv', 'expressions', 'domains'];

export interface FeedOptions {
  /**
   * `csv` and `domains`: the column holding the entry, by header name (case-insensitive) or 0-based
   * index. Without it, a header naming a `url` (csv) or `domain` (domains) column is looked for.
   */
  csvColumn?: CsvColumn | undefined;
}

/**
 * Reads a feed: every entry becomes its canonical expression (SB-5/SB-6: a URL names its host, path and
 * query; a bare host the whole host, `host/`), duplicates dropped, first-seen order kept. A line that
 * cannot become an expression is counted and reported, never fatal. Linear in the length of the text,
 * and all in one go: for small texts (tests, tools); the server reads feeds in turns (source-text.ts).
 * Throws FeedFormatError only when the feed cannot be read at all: a CSV whose URL column is unknown.
 */
export function parseFeed(text: string, format: FeedFormat, options: FeedOptions = {}): ParsedFeed {
  const seen = new Set<string>();
  const collector = new FeedCollector((expression) => seen.add(expression));
  const steps = feedSteps(text, format, options, collector);
  while (!steps.next().done);
  // A Set iterates in insertion order: first-seen order for free.
  return { expressions: [...seen], ...collector.tally() };
}

/**
 * Gives every entry of a feed to `collector` as its canonical expression (see parseFeed), yielding every
 * so many lines: the points where a long read may let the event loop answer requests (S5).
 * Throws FeedFormatError as parseFeed does, and what the collector throws (FeedEntryLimitError).
 */
export function* feedSteps(
  text: string,
  format: FeedFormat,
  options: FeedOptions,
  collector: FeedCollector,
): Generator<void, void, undefined> {
  const body = withoutByteOrderMark(text);
  switch (format) {
    case 'urls':
      yield* lineSteps(body, collector, (line) => collector.add(urlExpression(line)));
      break;
    case 'expressions':
      yield* lineSteps(body, collector, (line) => collector.add(expressionLineExpression(line)));
      break;
    case 'hosts':
      yield* lineSteps(body, collector, (line) => addHostsLine(line, collector));
      break;
    case 'csv':
    case 'domains':
      yield* csvFeedSteps(body, format, options.csvColumn, collector);
      break;
  }
}

/** Runs `take` on every line that is neither blank nor a comment, reporting the lines it rejects. */
function lineSteps(text: string, collector: FeedCollector, take: (line: string) => void): Generator<void, void, undefined> {
  return eachLine(text, (line, number) => {
    if (isBlankOrComment(line)) return;
    collector.line();
    try {
      take(line);
    } catch (error) {
      collector.bad(number, line, badEntryReason(error));
    }
  });
}

/**
 * Adds the host names of a hosts-file line, skipping the machine's own names. The good names of a line
 * count even when another name on it is bad; the line is then reported with the first bad name's reason.
 */
function addHostsLine(line: string, collector: FeedCollector): void {
  let firstError: Error | undefined;
  for (const name of hostsLineNames(line)) {
    try {
      // The machine's own names are single words, which are no real host: skipped before that check.
      const host = canonicalBareHost(name);
      if (!isLocalName(host)) collector.add(wholeHostExpression(host));
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      firstError ??= error;
    }
  }
  if (firstError !== undefined) throw firstError;
}
