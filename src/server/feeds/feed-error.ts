import { type ErrorCode, errorCode, SbkitError } from '../../sbkit-error.ts';

/**
 * A feed that cannot be read as the format it was configured with, as a whole: a CSV feed whose URL
 * column cannot be found. Single bad lines are never errors; they are counted in the parsed feed.
 */
export class FeedFormatError extends SbkitError {
  /** Always `"FeedFormatError"`, as logs and stack traces show it. */
  override readonly name = 'FeedFormatError';
  /** Always `SBKIT_FEED_FORMAT`. */
  override readonly code = errorCode('FEED_FORMAT');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'FEED_FORMAT'>[] = [errorCode('FEED_FORMAT')];
}

/**
 * One entry of a feed that cannot become an expression for a reason of the feed format (a hosts-file
 * line without host names, a CSV row too short for the URL column); URL problems are InvalidUrlError.
 * Caught per line by the feed parser and reported as a bad line.
 */
export class BadEntryError extends SbkitError {
  /** Always `"BadEntryError"`, as logs and stack traces show it. */
  override readonly name = 'BadEntryError';
  /** Always `SBKIT_BAD_ENTRY`. */
  override readonly code = errorCode('BAD_ENTRY');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'BAD_ENTRY'>[] = [errorCode('BAD_ENTRY')];
}
