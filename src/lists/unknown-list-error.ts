// A list asked for that a server does not publish: what the server answers in its refusal's body, and
// what the client reports when the server's own listing lacks a name it was asked to keep.

import { type ErrorCode, errorCode, SbkitError } from '../sbkit-error.ts';

/**
 * Lists asked for that the server does not publish. The server refuses them by name (docs/api.md "Lists
 * the server does not publish"); the client asks the server which lists it has (`GET /v5/hashLists`, v4
 * `threatLists`) before it keeps a new name, since a list nobody has would stand empty and answer every
 * URL SAFE. The message names what was asked and what there is, so that a person can fix the name.
 */
export class UnknownListError extends SbkitError {
  /** Always `"UnknownListError"`, as logs and stack traces show it. */
  override readonly name = 'UnknownListError';
  /** Always `SBKIT_UNKNOWN_LIST`. */
  override readonly code = errorCode('UNKNOWN_LIST');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'UNKNOWN_LIST'>[] = [errorCode('UNKNOWN_LIST')];

  constructor(
    /** The lists asked for that are not published: v5 names, or v4 triples written `(MALWARE, ANY_PLATFORM, URL)`. */
    readonly lists: readonly string[],
    /** The lists the server publishes, in the same form. */
    readonly available: readonly string[],
    /** How the lists are named (`triples`: v4's), and the request that lists them, for the message. */
    how: { triples?: boolean; listedBy?: string } = {},
  ) {
    const asked = how.triples === true ? `for ${lists.join(', ')}` : lists.map((name) => JSON.stringify(name)).join(', ');
    const listedBy = how.listedBy === undefined ? '' : ` (${how.listedBy} lists them)`;
    super(
      `the server publishes no list ${asked}; ` +
        `${available.length === 0 ? 'it publishes none at all' : `it publishes ${available.join(', ')}`}${listedBy}`,
    );
  }
}
