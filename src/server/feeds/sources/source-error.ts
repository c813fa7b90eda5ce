import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../../../sbkit-error.ts';

/** Why a source gave no feed this time. */
const SOURCE_FAILURES = [
  /** The file does not exist. */
  'not-found',
  /** The file exists but could not be read (permissions, a folder, an I/O error). */
  'unreadable',
  /** The file or download is larger than the configured maximum. */
  'too-large',
  /** The download did not finish within the configured time. */
  'timeout',
  /** The server answered with a status other than 2xx. */
  'http-status',
  /** The server could not be reached (DNS, refused, reset, TLS). */
  'network',
  /** Too many redirects, or one from https to http or to no http(s) URL. */
  'redirect',
  /** The feed's host, or a redirect's, is at a loopback, private, link-local or other non-public address. */
  'forbidden-address',
  /** The text cannot be read in the configured format (FeedFormatError), e.g. a CSV without URL column. */
  'format',
  /** Almost every line is bad (feed-plausibility.ts): an error page, or a feed of another format. */
  'not-a-feed',
  /** More entries than the source may hold (`feedMaxEntries`, `maxEntries`; FeedEntryLimitError). */
  'too-many-entries',
  /** The feed worker reading it ended (out of memory, killed), gave no answer in time or failed (FeedWorkerError, its cause). */
  'worker',
] as const;
export type SourceFailure = (typeof SOURCE_FAILURES)[number];

/**
 * A source that could not be loaded. Never retried here: the caller logs it, keeps the list's other
 * sources, and tries again at the next refresh. The message starts with the source, then says what to fix.
 */
export class SourceError extends SbkitError {
  /** Always `"SourceError"`, as logs and stack traces show it. */
  override readonly name = 'SourceError';
  /** `SBKIT_SOURCE_` and the failure in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'SOURCE', SourceFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('SOURCE', SOURCE_FAILURES);
  /** For `http-status`: the status the feed's server answered. */
  readonly httpStatus?: number;
  /** For `http-status`: the wait the server asked for with Retry-After (429, 503), in seconds, at most a week. */
  readonly retryAfterSeconds?: number;

  constructor(
    /** The file path or URL (without credentials), or a description of inline entries. */
    readonly source: string,
    /** What went wrong, for callers to branch on. */
    readonly failure: SourceFailure,
    detail: string,
    options?: { cause?: unknown; httpStatus?: number; retryAfterSeconds?: number },
  ) {
    super(`${source}: ${detail}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = errorCode('SOURCE', failure);
    if (options?.httpStatus !== undefined) this.httpStatus = options.httpStatus;
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
