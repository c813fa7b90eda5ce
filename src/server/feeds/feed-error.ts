/**
 * A feed that cannot be read as the format it was configured with, as a whole: a CSV feed whose URL
 * column cannot be found. Single bad lines are never errors; they are counted in the parsed feed.
 */
export class FeedFormatError extends Error {
  /** Always `"FeedFormatError"`, as logs and stack traces show it. */
  override readonly name = 'FeedFormatError';
}

/**
 * One entry of a feed that cannot become an expression for a reason of the feed format (a hosts-file
 * line without host names, a CSV row too short for the URL column); URL problems are InvalidUrlError.
 * Caught per line by the feed parser and reported as a bad line.
 */
export class BadEntryError extends Error {
  /** Always `"BadEntryError"`, as logs and stack traces show it. */
  override readonly name = 'BadEntryError';
}
