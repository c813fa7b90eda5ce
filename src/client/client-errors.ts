import { errorCode, SbkitError } from '../sbkit-error.ts';

/** Options that cannot work together or at all; thrown by the constructor (and by update() when read-only). */
export class ClientOptionError extends SbkitError {
  /** Always `"ClientOptionError"`, as logs and stack traces show it. */
  override readonly name = 'ClientOptionError';
  /** Always `SBKIT_CLIENT_OPTION`. */
  override readonly code = errorCode('CLIENT_OPTION');
  /** Every code of this class. */
  static readonly codes: readonly string[] = [errorCode('CLIENT_OPTION')];
}

/** No answer at all: the network failed, the request timed out, or the answer was too large. */
export class TransportError extends SbkitError {
  /** Always `"TransportError"`, as logs and stack traces show it. */
  override readonly name = 'TransportError';
  /** `SBKIT_TRANSPORT_` and the kind in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: string;
  /** Every code of this class. */
  static readonly codes: readonly string[] = ['network', 'timeout', 'too-large'].map((reason) => errorCode('TRANSPORT', reason));

  constructor(
    /** What failed: the connection, the time allowed, or the size allowed. */
    readonly kind: 'network' | 'timeout' | 'too-large',
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
  override readonly code: string;
  /** Every code of this class. */
  static readonly codes: readonly string[] = V4_LIST_FAILURES.map((reason) => errorCode('V4_LIST_UPDATE', reason));

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
  static readonly codes: readonly string[] = [errorCode('SEARCH_DEFERRED')];

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
  static readonly codes: readonly string[] = [errorCode('LIST_TOO_LARGE')];

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
