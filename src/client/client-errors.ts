import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../sbkit-error.ts';
import { OhttpError, WireResponseError } from '../wire/wire-error.ts';
import { UnknownListError } from '../lists/unknown-list-error.ts';
import { DatabaseStorageError } from '../store/list-store.ts';
import { HashListUpdateError } from '../store/hash-list.ts';
import { RiceDecodeError } from '../codec/rice-error.ts';

/**
 * Options that cannot work together or at all, unknown option names, values of the wrong type or out of
 * range; thrown by the constructor (and by update() and start() when read-only).
 */
export class ClientOptionError extends SbkitError {
  /** Always `"ClientOptionError"`, as logs and stack traces show it. */
  override readonly name = 'ClientOptionError';
  /** Always `SBKIT_CLIENT_OPTION`. */
  override readonly code = errorCode('CLIENT_OPTION');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'CLIENT_OPTION'>[] = [errorCode('CLIENT_OPTION')];
  /** The option at fault (`timeoutMs`, `cache.maxEntries`), when one alone is. */
  readonly option: string | undefined;

  constructor(message: string, options?: { cause?: unknown; option?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.option = options?.option;
  }
}

const TRANSPORT_FAILURES = ['network', 'timeout', 'too-large'] as const;
/** What kept an answer from arriving: the connection, the time allowed, or the size allowed. */
export type TransportFailure = (typeof TRANSPORT_FAILURES)[number];

/** No answer at all: the network failed, the request timed out, or the answer was too large. */
export class TransportError extends SbkitError {
  /** Always `"TransportError"`, as logs and stack traces show it. */
  override readonly name = 'TransportError';
  /** `SBKIT_TRANSPORT_` and the kind in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'TRANSPORT', TransportFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('TRANSPORT', TRANSPORT_FAILURES);

  constructor(
    /** What failed: the connection, the time allowed, or the size allowed. */
    readonly kind: TransportFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = errorCode('TRANSPORT', kind);
  }
}

/** Why the v4 answer for one list could not be turned into an update. */
const V4_LIST_FAILURES = [
  /** The list's hashes are not 4-byte prefixes, the only width v4 lists have here. */
  'not-four-bytes',
  /** Two names of one call (`se` and `se-4b`) are the same v4 list. */
  'repeated-list',
  /** The server sent no ListUpdateResponse for the list (docs/api.md §3 pitfall 3). */
  'missing-response',
  /** The server sent several ListUpdateResponses for the list. */
  'repeated-response',
  /** `new_client_state` is empty (docs/api.md §3 pitfall 4). */
  'missing-state',
  /** `response_type` is neither FULL_UPDATE nor PARTIAL_UPDATE. */
  'unknown-response-type',
  /** RAW additions whose prefixes are not 4 bytes long. */
  'prefix-size',
  /** A ThreatEntrySet that cannot be read: raw and Rice data at once, ragged raw hashes, negative indices. */
  'malformed-entry-set',
] as const;

/** Why one list's part of a v4 update answer is unusable. */
export type V4ListFailure = (typeof V4_LIST_FAILURES)[number];

/**
 * One list's part of a v4 update answer is unusable. The transport reports it as that list's error;
 * the caller drops the list and fetches it again in full (SB-9), while the other lists go on.
 */
export class V4ListUpdateError extends SbkitError {
  /** Always `"V4ListUpdateError"`, as logs and stack traces show it. */
  override readonly name = 'V4ListUpdateError';
  /** `SBKIT_V4_LIST_UPDATE_` and the reason, e.g. {@link V4ListUpdateError.codes}. */
  override readonly code: ErrorCode<'V4_LIST_UPDATE', V4ListFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('V4_LIST_UPDATE', V4_LIST_FAILURES);

  constructor(
    /** What is wrong with the list's part, for callers to branch on. */
    readonly reason: V4ListFailure,
    /** The list, by its v5 name. */
    readonly listName: string,
    detail: string,
  ) {
    super(`v4 update of list "${listName}" unusable (${reason}): ${detail}`);
    this.code = errorCode('V4_LIST_UPDATE', reason);
  }
}

/** Why the Web Risk answer for one list could not be turned into an update. */
const WEB_RISK_LIST_FAILURES = [
  /** The list's hashes are not 4-byte prefixes, the only width Web Risk lists have. */
  'not-four-bytes',
  /** Two names of one call (`se` and `se-4b`) are the same Web Risk list. */
  'repeated-list',
  /** `new_version_token` is empty, so the next diff could not say what the client holds. */
  'missing-state',
  /** `response_type` is neither DIFF nor RESET. */
  'unknown-response-type',
  /** RAW additions whose prefixes are not 4 bytes long. */
  'prefix-size',
  /** Additions or removals that cannot be read: raw and Rice data at once, ragged raw hashes, negative indices. */
  'malformed-entry-set',
] as const;

/** Why one list's Web Risk diff is unusable. */
export type WebRiskListFailure = (typeof WEB_RISK_LIST_FAILURES)[number];

/**
 * One list's Web Risk `threatLists:computeDiff` answer is unusable. The transport reports it as that
 * list's error; the caller drops the list and fetches it again in full (SB-9), while the other lists go on.
 */
export class WebRiskListUpdateError extends SbkitError {
  /** Always `"WebRiskListUpdateError"`, as logs and stack traces show it. */
  override readonly name = 'WebRiskListUpdateError';
  /** `SBKIT_WEB_RISK_LIST_UPDATE_` and the reason, e.g. {@link WebRiskListUpdateError.codes}. */
  override readonly code: ErrorCode<'WEB_RISK_LIST_UPDATE', WebRiskListFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('WEB_RISK_LIST_UPDATE', WEB_RISK_LIST_FAILURES);

  constructor(
    /** What is wrong with the list's diff, for callers to branch on. */
    readonly reason: WebRiskListFailure,
    /** The list, by its v5 name. */
    readonly listName: string,
    detail: string,
  ) {
    super(`Web Risk diff of list "${listName}" unusable (${reason}): ${detail}`);
    this.code = errorCode('WEB_RISK_LIST_UPDATE', reason);
  }
}

/**
 * A search could not be sent because RF-3 / RF-4 forbid it for now. Checks do not throw it: they give
 * the fallback verdict with this as their `error`.
 */
export class SearchDeferredError extends SbkitError {
  /** Always `"SearchDeferredError"`, as logs and stack traces show it. */
  override readonly name = 'SearchDeferredError';
  /** Always `SBKIT_SEARCH_DEFERRED`. */
  override readonly code = errorCode('SEARCH_DEFERRED');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'SEARCH_DEFERRED'>[] = [errorCode('SEARCH_DEFERRED')];

  constructor(
    /** ms since the epoch when the server may be asked again. */
    readonly notBefore: number,
  ) {
    super(`the server may not be asked again before ${new Date(notBefore).toISOString()} (request-frequency rules)`);
  }
}

/**
 * A list answer that would give a local list more entries than the client's `maxListEntries`, refused
 * from the entry counts its header announces, before anything is decoded: a few megabytes of Rice data
 * can announce tens of millions of entries. The list keeps what it held, and the update counts as a
 * failed one (RF-4 back-off), as a list that cannot be stored does.
 */
export class ListTooLargeError extends SbkitError {
  /** Always `"ListTooLargeError"`, as logs and stack traces show it. */
  override readonly name = 'ListTooLargeError';
  /** Always `SBKIT_LIST_TOO_LARGE`. */
  override readonly code = errorCode('LIST_TOO_LARGE');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'LIST_TOO_LARGE'>[] = [errorCode('LIST_TOO_LARGE')];

  constructor(
    /** The list, by its v5 name. */
    readonly listName: string,
    /** The entries the answer announced, or the list would hold after it. */
    readonly entries: number,
    /** The client's `maxListEntries`. */
    readonly maxEntries: number,
  ) {
    super(
      `the answer for list "${listName}" comes to ${entries} entries, more than the ${maxEntries} of maxListEntries; ` +
        'raise maxListEntries if the server is yours and its lists are that large, otherwise the server is broken or hostile',
    );
  }
}

const UPDATE_LOOPS = [
  /** A list's update was refused, and so was the full update fetched at once after it (SB-9). */
  'refused-again',
  /** The server asked for more updates at once, with zero waits (SB-12), than one update makes. */
  'rounds',
] as const;
/** How a server kept an update from settling. */
export type UpdateLoopReason = (typeof UPDATE_LOOPS)[number];

/**
 * The server keeps an update from settling: it sent a list an update that could not be applied twice in
 * one update, the second time in full, or asked for more updates at once than one update makes. Fetching
 * again at once would bring the same, for ever: the update counts as failed, and the client backs off (RF-4).
 */
export class UpdateLoopError extends SbkitError {
  /** Always `"UpdateLoopError"`, as logs and stack traces show it. */
  override readonly name = 'UpdateLoopError';
  /** `SBKIT_UPDATE_LOOP_` and the reason, e.g. {@link UpdateLoopError.codes}. */
  override readonly code: ErrorCode<'UPDATE_LOOP', UpdateLoopReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('UPDATE_LOOP', UPDATE_LOOPS);

  constructor(
    /** Which loop the update left. */
    readonly reason: UpdateLoopReason,
    /** The list refused again ('refused-again'), or the lists still due ('rounds'). */
    readonly lists: readonly string[],
    detail: string,
  ) {
    super(`${detail}; the server is broken or hostile, and the client backs off before it asks again`);
    this.code = errorCode('UPDATE_LOOP', reason);
  }
}

const LISTS_NOT_CURRENT = [
  /** A list was never downloaded: the client started a moment ago, or every update so far failed. */
  'never-updated',
  /** A list has not been updated for longer than it stays current (docs/client-library.md, "Stale lists"). */
  'stale',
] as const;
/** Why local lists cannot vouch that a URL they do not hold is safe. */
export type ListsNotCurrentReason = (typeof LISTS_NOT_CURRENT)[number];

/**
 * The local threat lists cannot vouch for a URL they do not hold: some were never downloaded, or not
 * updated for longer than they stay current. A check that the lists alone would have answered SAFE
 * answers UNKNOWN with this as its `error`; a URL they do hold is still confirmed with the server.
 */
export class ListsNotCurrentError extends SbkitError {
  /** Always `"ListsNotCurrentError"`, as logs and stack traces show it. */
  override readonly name = 'ListsNotCurrentError';
  /** `SBKIT_LISTS_NOT_CURRENT_NEVER_UPDATED` or `SBKIT_LISTS_NOT_CURRENT_STALE`. */
  override readonly code: ErrorCode<'LISTS_NOT_CURRENT', ListsNotCurrentReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('LISTS_NOT_CURRENT', LISTS_NOT_CURRENT);

  constructor(
    /** Never downloaded, or out of date. */
    readonly reason: ListsNotCurrentReason,
    /** The lists at fault, by name. */
    readonly lists: readonly string[],
    /** For `stale`: ms since the epoch of the oldest of their last updates. */
    readonly updatedAt?: number,
  ) {
    super(
      reason === 'never-updated'
        ? `the local list${lists.length === 1 ? '' : 's'} ${lists.join(', ')} ${lists.length === 1 ? 'has' : 'have'} never been downloaded, ` +
            'so a URL missing from them may still be unsafe; update() (sbkit update) fetches them'
        : `the local list${lists.length === 1 ? '' : 's'} ${lists.join(', ')} ${lists.length === 1 ? 'was' : 'were'} last updated at ` +
            `${new Date(updatedAt ?? 0).toISOString()} and ${lists.length === 1 ? 'is' : 'are'} out of date, so a URL missing from ` +
            "them may since have been listed; update() (or start()) brings them up to date, and update()'s error says why one failed",
    );
    this.code = errorCode('LISTS_NOT_CURRENT', reason);
  }
}

/**
 * A failure none of the other classes names (a server answer nested too deeply to read, a bug), met
 * where it must not escape: a check (the URL was not checked) or an update. `cause` holds what was thrown.
 */
export class UnexpectedError extends SbkitError {
  /** Always `"UnexpectedError"`, as logs and stack traces show it. */
  override readonly name = 'UnexpectedError';
  /** Always `SBKIT_UNEXPECTED`. */
  override readonly code = errorCode('UNEXPECTED');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'UNEXPECTED'>[] = [errorCode('UNEXPECTED')];

  constructor(
    /** What failed, for the message: "the check", "the update". */
    what: string,
    cause: unknown,
  ) {
    super(`${what} failed unexpectedly: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Why a URL was not checked: the `error` of an UNKNOWN verdict. */
export type CheckError =
  | TransportError
  | WireResponseError
  | SearchDeferredError
  | OhttpError
  | ClientOptionError
  | ListsNotCurrentError
  | UnknownListError
  | UnexpectedError;

/** A class whose instances are of the union `E`. */
type ClassOf<E> = abstract new (...args: never[]) => E;

/** `error` when it is of one of `classes` (the classes of the union `E`), else UnexpectedError about `what`. */
function oneOf<E>(classes: readonly ClassOf<E>[], error: unknown, what: string): E | UnexpectedError {
  return classes.some((type) => error instanceof type) ? (error as E) : new UnexpectedError(what, error);
}

const CHECK_ERRORS: readonly ClassOf<CheckError>[] = [
  TransportError,
  WireResponseError,
  SearchDeferredError,
  OhttpError,
  ClientOptionError,
  ListsNotCurrentError,
  UnknownListError,
  UnexpectedError,
];

/** What went wrong on the way to a verdict, as one of the {@link CheckError} classes (UnexpectedError for anything else). */
export function checkErrorOf(error: unknown): CheckError {
  return oneOf(CHECK_ERRORS, error, 'the check');
}

/**
 * Why an update as a whole failed: no usable answer, lists the server does not publish, a list too large
 * to hold, a database or state file that could not be written, or something unforeseen.
 */
export type UpdateError =
  TransportError | WireResponseError | UnknownListError | ListTooLargeError | UpdateLoopError | DatabaseStorageError | UnexpectedError;

const UPDATE_ERRORS: readonly ClassOf<UpdateError>[] = [
  TransportError,
  WireResponseError,
  UnknownListError,
  ListTooLargeError,
  UpdateLoopError,
  DatabaseStorageError,
  UnexpectedError,
];

/** The {@link UpdateError} an update reports for what was thrown (UnexpectedError for anything else). */
export function updateErrorOf(error: unknown): UpdateError {
  return oneOf(UPDATE_ERRORS, error, 'the update');
}

/** Why one list's update was refused: a bad answer for it (SB-9), or more entries than `maxListEntries`. */
export type ListUpdateFailure =
  | HashListUpdateError
  | RiceDecodeError
  | V4ListUpdateError
  | WebRiskListUpdateError
  | WireResponseError
  | ListTooLargeError
  | UnexpectedError;

const LIST_UPDATE_FAILURES: readonly ClassOf<ListUpdateFailure>[] = [
  HashListUpdateError,
  RiceDecodeError,
  V4ListUpdateError,
  WebRiskListUpdateError,
  WireResponseError,
  ListTooLargeError,
  UnexpectedError,
];

/** The {@link ListUpdateFailure} a list's update is refused with (UnexpectedError for anything else). */
export function listUpdateFailureOf(error: unknown): ListUpdateFailure {
  return oneOf(LIST_UPDATE_FAILURES, error, 'the list update');
}
