// The base of every error sbkit throws, reports or answers with: a stable `code` beside the message, so
// that callers branch on codes and people read messages. A code is `SBKIT_` and its class's stem, then,
// for classes whose failures differ in what a caller should do, the failure's reason:
// TransportError of kind `timeout` is SBKIT_TRANSPORT_TIMEOUT. docs/errors.md lists every code.

/** An error of sbkit's, with its stable code. */
export abstract class SbkitError extends Error {
  /** Stable and documented (docs/errors.md): what to branch on, rather than the message. */
  abstract readonly code: string;
}

/** `a-b-c` as `a_b_c`, as a type. */
type Underscored<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}_${Underscored<Tail>}` : S;

/**
 * The code {@link errorCode} makes of a stem and a reason, as a string literal type: each class's `code`
 * is a union of its codes, so that a misspelt code in a comparison does not compile.
 */
export type ErrorCode<Stem extends string, Reason extends string = never> = [Reason] extends [never]
  ? `SBKIT_${Stem}`
  : `SBKIT_${Stem}_${Uppercase<Underscored<Reason>>}`;

/** `SBKIT_` + the stem + the reason, in capitals with underscores (reasons are lower case words joined by hyphens). */
export function errorCode<Stem extends string>(stem: Stem): ErrorCode<Stem>;
export function errorCode<Stem extends string, Reason extends string>(stem: Stem, reason: Reason): ErrorCode<Stem, Reason>;
export function errorCode(stem: string, reason?: string): string {
  return reason === undefined ? `SBKIT_${stem}` : `SBKIT_${stem}_${reason.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** The codes of a stem and each of its reasons: a class's static `codes`. */
export function errorCodes<Stem extends string, Reason extends string>(stem: Stem, reasons: readonly Reason[]): ErrorCode<Stem, Reason>[] {
  return reasons.map((reason) => errorCode(stem, reason));
}
