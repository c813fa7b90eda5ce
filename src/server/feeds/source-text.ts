import { basename } from 'node:path';
import type { FeedLimits, SourceConfig } from './config.ts';
import { FeedFormatError } from './feed-error.ts';
import { type ParsedFeed, parseFeed } from './feed-formats.ts';
import { notAFeedReason } from './feed-plausibility.ts';
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
  if (source.kind === 'entries') return limits;
  return {
    timeoutMs: (source.kind === 'url' ? source.timeoutMs : undefined) ?? limits.timeoutMs,
    maxBytes: source.maxBytes ?? limits.maxBytes,
    ...(limits.signal === undefined ? {} : { signal: limits.signal }),
  };
}

/**
 * A source's text as a feed of its format. Throws SourceError (`format`, `not-a-feed`) when the text as
 * a whole gives nothing usable, a text of almost only bad lines included; other bad lines are counts.
 */
export function parseSourceText(source: SourceConfig, text: string): ParsedFeed {
  let feed: ParsedFeed;
  try {
    feed = parseFeed(text, source.format, { csvColumn: source.csvColumn });
  } catch (error) {
    if (error instanceof FeedFormatError)
      throw new SourceError(sourceLabel(source), 'format', `cannot be read as ${source.format}: ${error.message}`, { cause: error });
    throw error;
  }
  const notAFeed = notAFeedReason(feed, source.format);
  if (notAFeed !== undefined) throw new SourceError(sourceLabel(source), 'not-a-feed', notAFeed);
  return feed;
}
