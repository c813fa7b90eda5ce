import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../../sbkit-error.ts';

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

/**
 * A feed with more entries than its source may hold (`feedMaxEntries`, a source's `maxEntries`): refused
 * as a whole as soon as the count is passed, so that a feed of millions of short lines, well under the size
 * limit, cannot take the server's memory. Its source keeps its last good copy.
 */
export class FeedEntryLimitError extends SbkitError {
  /** Always `"FeedEntryLimitError"`, as logs and stack traces show it. */
  override readonly name = 'FeedEntryLimitError';
  /** Always `SBKIT_FEED_ENTRY_LIMIT`. */
  override readonly code = errorCode('FEED_ENTRY_LIMIT');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'FEED_ENTRY_LIMIT'>[] = [errorCode('FEED_ENTRY_LIMIT')];

  constructor(
    /** The bound passed. */
    readonly maxEntries: number,
  ) {
    super(`holds more than ${maxEntries} entries; raise maxEntries (or feedMaxEntries) if the feed is meant to be that large`);
  }
}

/** Why a feed worker (feeds/sources/feed-worker-pool.ts) gave no answer. */
const FEED_WORKER_FAILURES = [
  /** The worker thread ended while it worked: out of memory, or killed. A new one takes the next task. */
  'crashed',
  /** The worker did not answer within the pool's bound; it was stopped and is replaced. */
  'timeout',
  /** The work threw an error that is not about the feed: a bug, reported with the worker's message. */
  'failed',
] as const;
export type FeedWorkerFailure = (typeof FEED_WORKER_FAILURES)[number];

/**
 * A feed's lines could not be hashed off the main thread. Its source reports it as SourceError `worker`
 * (this error its cause): the source keeps its last good copy, the list's other sources are read, and the
 * source is tried again as after any of its failures (a URL feed on its back-off, source-backoff.ts), by a
 * new worker.
 */
export class FeedWorkerError extends SbkitError {
  /** Always `"FeedWorkerError"`, as logs and stack traces show it. */
  override readonly name = 'FeedWorkerError';
  /** `SBKIT_FEED_WORKER_` and the failure in capitals. */
  override readonly code: ErrorCode<'FEED_WORKER', FeedWorkerFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('FEED_WORKER', FEED_WORKER_FAILURES);

  constructor(
    /** What went wrong, for callers to branch on. */
    readonly failure: FeedWorkerFailure,
    detail: string,
  ) {
    super(`a feed worker ${detail}`);
    this.code = errorCode('FEED_WORKER', failure);
  }
}
