import { DEFAULT_FEED_LIMITS, type FeedLimits, type ListConfig, type SourceConfig } from './config.ts';
import type { BadLine } from './feed-collector.ts';
import { FeedFormatError } from './feed-error.ts';
import { type ParsedFeed, parseFeed } from './feed-formats.ts';
import { notAFeedReason } from './feed-plausibility.ts';
import { sortedFullHashes } from '../lists/full-hashes.ts';
import { SourceError } from './source-error.ts';
import { readFileSource, readUrlSource, urlLabel } from './source-reader.ts';

/** How a source is named in reports and errors. */
function sourceLabel(source: SourceConfig): string {
  switch (source.kind) {
    case 'file':
      return source.path;
    case 'url':
      return urlLabel(source.url);
    case 'entries':
      return `inline entries (${source.entries.length})`;
  }
}

/**
 * Reads and parses one source: a file, an http(s) download, or inline entries. Throws SourceError
 * (typed by `failure`) when the source gives nothing usable, a text of almost only bad lines included;
 * other bad lines are not failures but counts in the result. No retries here: the next refresh is the retry.
 */
export async function loadSource(source: SourceConfig, limits: FeedLimits = DEFAULT_FEED_LIMITS): Promise<ParsedFeed> {
  const label = sourceLabel(source);
  let text: string;
  switch (source.kind) {
    case 'file':
      text = await readFileSource(source.path, limits);
      break;
    case 'url':
      text = await readUrlSource(source.url, limits, source.allowPrivateAddresses);
      break;
    case 'entries':
      text = source.entries.join('\n');
      break;
  }
  let feed: ParsedFeed;
  try {
    feed = parseFeed(text, source.format, { csvColumn: source.csvColumn });
  } catch (error) {
    if (error instanceof FeedFormatError)
      throw new SourceError(label, 'format', `cannot be read as ${source.format}: ${error.message}`, { cause: error });
    throw error;
  }
  const notAFeed = notAFeedReason(feed, source.format);
  if (notAFeed !== undefined) throw new SourceError(label, 'not-a-feed', notAFeed);
  return feed;
}

/** What one source contributed to a list, for the operator's log and status page. */
interface SourceReport {
  source: string;
  entryCount: number;
  expressionCount: number;
  badLineCount: number;
  /** The first bad lines (feed-collector.ts MAX_REPORTED_BAD_LINES). */
  badLines: BadLine[];
}

export interface LoadedList {
  /** SHA-256 of every distinct expression of all sources, sorted, 32 bytes each, concatenated. */
  fullHashes: Uint8Array;
  /** Distinct expressions over all sources (the number of full hashes). */
  expressions: number;
  /** Bad lines over all sources that loaded. */
  badLines: number;
  /** The sources that failed; the list holds the entries of the others. */
  errors: SourceError[];
  /** One report per source that loaded, in configuration order. */
  sources: SourceReport[];
}

/**
 * Loads every source of a list and merges them into the list's full hashes. A source that fails is
 * reported in `errors` and the others still count. Sources are read one after another, so that at most
 * one feed's text is in memory at a time (a feed may be hundreds of megabytes).
 */
export async function loadList(list: ListConfig, limits: FeedLimits = DEFAULT_FEED_LIMITS): Promise<LoadedList> {
  const expressions = new Set<string>();
  const errors: SourceError[] = [];
  const sources: SourceReport[] = [];
  let badLines = 0;
  for (const source of list.sources) {
    let feed: ParsedFeed;
    try {
      feed = await loadSource(source, limits);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      errors.push(error);
      continue;
    }
    for (const expression of feed.expressions) expressions.add(expression);
    badLines += feed.badLineCount;
    sources.push({
      source: sourceLabel(source),
      entryCount: feed.entryCount,
      expressionCount: feed.expressions.length,
      badLineCount: feed.badLineCount,
      badLines: feed.badLines,
    });
  }
  return { fullHashes: sortedFullHashes(expressions), expressions: expressions.size, badLines, errors, sources };
}

/** Milliseconds between refreshes of a source, or undefined when it is loaded only at start and on reload. */
export function sourceRefreshMs(source: SourceConfig): number | undefined {
  return source.kind === 'entries' || source.refreshMinutes === undefined ? undefined : source.refreshMinutes * 60_000;
}

/**
 * How often a list is to be reloaded: the shortest interval of its sources, since a reload reads them
 * all; undefined when none has one. Scheduling is the caller's (loadList on a timer).
 */
export function listRefreshMs(list: ListConfig): number | undefined {
  let shortest: number | undefined;
  for (const source of list.sources) {
    const interval = sourceRefreshMs(source);
    if (interval !== undefined && (shortest === undefined || interval < shortest)) shortest = interval;
  }
  return shortest;
}
