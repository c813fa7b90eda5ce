import type { FeedTally } from '../feed-collector.ts';
import type { FeedFormat } from './feed-formats.ts';

/** Below this many lines, a feed is judged no feed only when every line is bad: a short hand-kept list with typos is still a list. */
export const MIN_LINES_TO_JUDGE = 20;
/** More bad lines than this share of all is no feed with some bad lines but text of another kind. */
export const MAX_BAD_LINE_SHARE = 0.9;

/**
 * Why a parsed feed is no feed of its format at all, or undefined when it is one. An HTML error page
 * served with status 200, a feed that changed its format, or a source configured with the wrong format
 * gives almost nothing but bad lines; publishing the few lines that happen to parse would replace the
 * list with them, so the source fails instead, as a failed download does.
 */
export function notAFeedReason(feed: FeedTally, format: FeedFormat): string | undefined {
  const { lineCount, badLineCount } = feed;
  const everyLine = lineCount > 0 && badLineCount === lineCount;
  const almostEvery = lineCount >= MIN_LINES_TO_JUDGE && badLineCount > MAX_BAD_LINE_SHARE * lineCount;
  if (!everyLine && !almostEvery) return undefined;
  const first = feed.badLines[0];
  const example = first === undefined ? '' : `; line ${first.line}: ${first.reason}`;
  const article = format === 'expressions' ? 'an' : 'a';
  return `does not look like ${article} ${format} feed: ${badLineCount} of its ${lineCount} lines are bad${example}. Check that it serves the feed (not an error page) and that "format" is right`;
}
