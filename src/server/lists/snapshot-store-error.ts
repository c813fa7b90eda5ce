import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../../sbkit-error.ts';

/**
 * Why a snapshot store could not do what it was asked:
 * - `invalid-url`: the store's address cannot be used (a mistake of the configuration);
 * - `unavailable`: the shared store did not answer in time or refused (it is down, unreachable or
 *   overloaded); the instance goes on serving what it holds;
 * - `storage`: the folder of a history kept on disk (`sbkit serve --data`) cannot be created or read.
 */
const SNAPSHOT_STORE_ERROR_REASONS = ['invalid-url', 'unavailable', 'storage'] as const;
export type SnapshotStoreErrorReason = (typeof SNAPSHOT_STORE_ERROR_REASONS)[number];

/** Thrown by shared snapshot stores and the disk's; the message names the store (never its credentials) and the cause. */
export class SnapshotStoreError extends SbkitError {
  /** Always `"SnapshotStoreError"`, as logs and stack traces show it. */
  override readonly name = 'SnapshotStoreError';
  /** `SBKIT_SNAPSHOT_STORE_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'SNAPSHOT_STORE', SnapshotStoreErrorReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('SNAPSHOT_STORE', SNAPSHOT_STORE_ERROR_REASONS);

  constructor(
    /** A URL that cannot be used, a store that does not answer, or a folder that cannot be used. */
    readonly reason: SnapshotStoreErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = errorCode('SNAPSHOT_STORE', reason);
  }
}
