import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../sbkit-error.ts';

const INVALID_URL_REASONS = ['empty', 'too-long', 'unsupported-scheme', 'no-host', 'invalid-ipv6', 'invalid-host'] as const;
/** Why a URL could not be turned into Safe Browsing expressions. */
export type InvalidUrlReason = (typeof INVALID_URL_REASONS)[number];

const EXPLANATIONS: Record<InvalidUrlReason, string> = {
  empty: 'the URL is empty',
  'too-long': 'the URL is longer than the 2 MiB that browsers accept',
  'unsupported-scheme': 'only http and https URLs can be checked',
  'no-host': 'the URL has no host name',
  'invalid-ipv6': 'the bracketed host is not a valid IPv6 address',
  'invalid-host': 'brackets in a host name are only allowed around an IPv6 address',
};

/** Thrown by the URL pipeline for input that names no checkable web page. */
export class InvalidUrlError extends SbkitError {
  /** Always `"InvalidUrlError"`, as logs and stack traces show it. */
  override readonly name = 'InvalidUrlError';
  /** `SBKIT_INVALID_URL_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'INVALID_URL', InvalidUrlReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('INVALID_URL', INVALID_URL_REASONS);
  /** What is wrong, in words, without the URL (the message's part after it). */
  readonly detail: string;

  constructor(
    /** Why the URL cannot be used, for callers to branch on. */
    readonly reason: InvalidUrlReason,
    /** The URL as given (the message shows at most its first 200 characters). */
    readonly input: string,
    detail?: string,
  ) {
    const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
    super(`invalid URL ${JSON.stringify(shown)}: ${detail ?? EXPLANATIONS[reason]}`);
    this.code = errorCode('INVALID_URL', reason);
    this.detail = detail ?? EXPLANATIONS[reason];
  }
}
