import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../../sbkit-error.ts';

/** Why a list operation was refused; each is a mistake of the calling code or configuration, never of a client. */
const LIST_ERROR_REASONS = [
  'ragged-full-hashes',
  'served-width-mismatch',
  'served-not-ascending',
  'invalid-keep',
  'invalid-constraint',
] as const;
export type ListErrorReason = (typeof LIST_ERROR_REASONS)[number];

/** Thrown by snapshots and list histories on input they cannot work with; the message says what to fix. */
export class ListError extends SbkitError {
  /** Always `"ListError"`, as logs and stack traces show it. */
  override readonly name = 'ListError';
  /** `SBKIT_LIST_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'LIST', ListErrorReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('LIST', LIST_ERROR_REASONS);

  constructor(
    /** What is wrong, for callers to branch on. */
    readonly reason: ListErrorReason,
    /** The list concerned. */
    readonly listName: string,
    detail: string,
  ) {
    super(`list "${listName}": ${detail}`);
    this.code = errorCode('LIST', reason);
  }
}
