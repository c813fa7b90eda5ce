/** Why a list operation was refused; each is a mistake of the calling code or configuration, never of a client. */
export type ListErrorReason =
  'ragged-full-hashes' | 'served-width-mismatch' | 'served-not-ascending' | 'invalid-keep' | 'invalid-constraint';

/** Thrown by snapshots and list histories on input they cannot work with; the message says what to fix. */
export class ListError extends Error {
  /** Always `"ListError"`, as logs and stack traces show it. */
  override readonly name = 'ListError';

  constructor(
    readonly reason: ListErrorReason,
    readonly listName: string,
    detail: string,
  ) {
    super(`list "${listName}": ${detail}`);
  }
}
