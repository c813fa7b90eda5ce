// The base of every error sbkit throws, reports or answers with: a stable `code` beside the message, so
// that callers branch on codes and people read messages. A code is `SBKIT_` and its class's stem, then,
// for classes whose failures differ in what a caller should do, the failure's reason:
// TransportError of kind `timeout` is SBKIT_TRANSPORT_TIMEOUT. docs/errors.md lists every code.

/** An error of sbkit's, with its stable code. */
export abstract class SbkitError extends Error {
  /** Stable and documented (docs/errors.md): what to branch on, rather than the message. */
  abstract readonly code: string;
}

/** `SBKIT_` + the stem + the reason, in capitals with underscores. */
export function errorCode(stem: string, reason?: string): string {
  return reason === undefined ? `SBKIT_${stem}` : `SBKIT_${stem}_${reason.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}
