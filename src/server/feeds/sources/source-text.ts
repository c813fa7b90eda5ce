import { basename } from 'node:path';
import { createHash } from 'node:crypto';
import type { FeedLimits, SourceConfig } from '../../config/config.ts';
import type { EventLoopTurns } from '../../../time/event-loop-turns.ts';
import { FeedCollector, type FeedTally, MAX_REPORTED_BAD_LINES } from '../feed-collector.ts';
import { FeedEntryLimitError, FeedFormatError, FeedWorkerError } from '../feed-error.ts';
import { type FeedFormat, feedSteps } from '../formats/feed-formats.ts';
import { type FeedBytes, feedParts } from './feed-bytes.ts';
import { type HashedPart, LINE_BY_LINE } from './feed-part.ts';
import type { FeedWorkerPool } from './feed-worker-pool.ts';
import { DEFAULT_MAX_FEED_ENTRIES } from '../../config/feed-limits-config.ts';
import { notAFeedReason } from '../formats/feed-plausibility.ts';
import { HashBuckets } from '../formats/hash-buckets.ts';
import { SourceError } from './source-error.ts';
import { urlLabel } from './source-reader.ts';

/** How a source is named in logs and errors: its path, or its URL without credentials. Not for public pages. */
export function sourceLabel(source: SourceConfig): string {
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
 * How a source is named where anyone may read it (the status page, metric labels): the operator's
 * `name`, else a URL's host (its path and query can hold a key), a file's name without its folder (the
 * layout of the disk is not public), or "inline entries".
 */
export function sourceShownName(source: SourceConfig): string {
  if (source.name !== undefined) return source.name;
  switch (source.kind) {
    case 'file':
      return basename(source.path);
    case 'url':
      return new URL(source.url).host;
    case 'entries':
      return 'inline entries';
  }
}

/** The bounds of reading one source: its own where it sets them, else the configuration's. */
export function sourceLimits(source: SourceConfig, limits: FeedLimits): FeedLimits {
  if (source.kind === 'entries') return { ...limits, maxEntries: limits.maxEntries ?? DEFAULT_MAX_FEED_ENTRIES };
  return {
    timeoutMs: (source.kind === 'url' ? source.timeoutMs : undefined) ?? limits.timeoutMs,
    maxBytes: source.maxBytes ?? limits.maxBytes,
    maxEntries: source.maxEntries ?? limits.maxEntries ?? DEFAULT_MAX_FEED_ENTRIES,
    ...(limits.signal === undefined ? {} : { signal: limits.signal }),
  };
}

/** A feed read into the full hashes of its expressions (hash-buckets.ts), and what else it held. */
export interface HashedFeed extends FeedTally {
  /** SHA-256 of each distinct expression, sorted, 32 bytes each, concatenated. */
  fullHashes: Uint8Array;
}

/**
 * A source's text as the full hashes of a feed of its format, read in turns of the event loop (S5), at
 * most `maxEntries` entries. Throws SourceError (`format`, `not-a-feed`, `too-many-entries`) when the
 * text as a whole gives nothing usable, a text of almost only bad lines included; other bad lines are
 * counts.
 */
export async function hashSourceText(source: SourceConfig, text: string, maxEntries: number, turns: EventLoopTurns): Promise<HashedFeed> {
  const buckets = new HashBuckets();
  const collector = new FeedCollector((expression) => buckets.add(expression), maxEntries);
  try {
    const steps = feedSteps(text, source.format, { csvColumn: source.csvColumn }, collector);
    while (!steps.next().done) await turns.pause();
  } catch (error) {
    throw sourceTextError(source, error);
  }
  const tally = collector.tally();
  const notAFeed = notAFeedReason(tally, source.format);
  if (notAFeed !== undefined) throw new SourceError(sourceLabel(source), 'not-a-feed', notAFeed);
  return { ...tally, fullHashes: await buckets.sorted(turns) };
}

/** The least part a feed is cut into: below it, a second worker costs more than it saves. */
const MIN_PART_BYTES = 1 << 20;

/** How a feed of `format` is cut for `workers` (feed-bytes.ts lineCuts): a part per worker, if it reads line by line. */
export function feedCut(format: FeedFormat, workers: FeedWorkerPool): { parts: number; minPartBytes: number } {
  return { parts: LINE_BY_LINE.has(format) ? workers.size : 1, minPartBytes: MIN_PART_BYTES };
}

/**
 * A source's bytes as the full hashes of a feed of its format, as hashSourceText reads a text, on the
 * worker threads of `workers`: a line-by-line feed cut into one part per worker (at least `minPartBytes`
 * each), the parts' results merged, their bad lines numbered in the whole feed. A file's parts (read
 * as feedCut cuts) move to the workers, a download's are read in place in its shared buffer; `feed.parts`
 * is emptied. Throws SourceError as hashSourceText does, and SourceError `worker` when a worker fails.
 */
export async function hashSourceBytes(
  source: SourceConfig,
  feed: FeedBytes,
  maxEntries: number,
  workers: FeedWorkerPool,
  minPartBytes = MIN_PART_BYTES,
): Promise<HashedFeed> {
  const parts = feedParts(feed, LINE_BY_LINE.has(source.format) ? workers.size : 1, minPartBytes);
  // The parts hold the bytes now: once the workers are done with them, nothing holds the feed.
  feed.parts = [];
  let hashed: HashedPart[];
  try {
    hashed = await Promise.all(
      parts.map((bytes) => workers.hash({ kind: 'hash', bytes, format: source.format, csvColumn: source.csvColumn, maxEntries })),
    );
    // Each part held at most maxEntries; together they may hold more.
    const entries = hashed.reduce((sum, part) => sum + part.entryCount, 0);
    if (entries > maxEntries) throw new FeedEntryLimitError(maxEntries);
  } catch (error) {
    throw sourceTextError(source, error);
  }
  const tally = tallyOf(hashed);
  const notAFeed = notAFeedReason(tally, source.format);
  if (notAFeed !== undefined) throw new SourceError(sourceLabel(source), 'not-a-feed', notAFeed);
  const runs = hashed.map((part) => part.fullHashes);
  try {
    return { ...tally, fullHashes: runs.length === 1 ? runs[0]! : await workers.merge(runs) };
  } catch (error) {
    throw sourceTextError(source, error);
  }
}

/** The tally of a whole feed from its parts' tallies, in order: bad lines numbered from the feed's first line. */
function tallyOf(parts: readonly HashedPart[]): FeedTally {
  const tally: FeedTally = { badLines: [], badLineCount: 0, lineCount: 0, entryCount: 0 };
  let lineOffset = 0;
  for (const part of parts) {
    for (const bad of part.badLines) {
      if (tally.badLines.length < MAX_REPORTED_BAD_LINES) tally.badLines.push({ ...bad, line: bad.line + lineOffset });
    }
    tally.badLineCount += part.badLineCount;
    tally.lineCount += part.lineCount;
    tally.entryCount += part.entryCount;
    lineOffset += part.lineFeeds;
  }
  return tally;
}

/**
 * A feed's error as its source's: SourceError for what is wrong with the feed as a whole, and for a feed
 * worker that failed on it, which the source's state records and backs off from as from any failure (a
 * worker's error passed on would stop the list's load, leave the source's next check in the past and
 * have its list loaded again every second); anything else as it is.
 */
function sourceTextError(source: SourceConfig, error: unknown): unknown {
  if (error instanceof FeedFormatError)
    return new SourceError(sourceLabel(source), 'format', `cannot be read as ${source.format}: ${error.message}`, { cause: error });
  if (error instanceof FeedEntryLimitError)
    return new SourceError(sourceLabel(source), 'too-many-entries', error.message, { cause: error });
  if (error instanceof FeedWorkerError)
    return new SourceError(sourceLabel(source), 'worker', `${error.message}; a new worker reads it at its next try`, { cause: error });
  return error;
}

/** Characters hashed in one turn: a few milliseconds' work. */
const DIGEST_SLICE = 1 << 20;

/** A text's SHA-256 (base64) and its size in UTF-8 bytes, a slice a turn: a feed may be hundreds of megabytes. */
export async function digestOf(text: string, turns: EventLoopTurns): Promise<{ digest: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + DIGEST_SLICE);
    // Never between the two halves of a surrogate pair: each half alone would be encoded as U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const slice = text.slice(start, end);
    hash.update(slice);
    bytes += Buffer.byteLength(slice);
    start = end;
    await turns.pause();
  }
  return { digest: hash.digest('base64'), bytes };
}
