// The refusal of lists a server neither publishes nor stands in for (unknown-lists.ts says which): the
// error carried as the reason of the answer's body, and its message, which names what was asked and
// what the server publishes, so that a person can fix the name.

import type { V4List } from '../../lists/v4-lists.ts';
import { PlatformType, ThreatEntryType, ThreatType } from '../../proto/v4.ts';
import { errorCode, SbkitError } from '../../sbkit-error.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListCatalog } from '../catalog.ts';

/** Lists asked for that the server neither publishes nor stands in for; the reason of the refusal's body. */
export class UnknownListError extends SbkitError {
  /** Always `"UnknownListError"`, as logs and stack traces show it. */
  override readonly name = 'UnknownListError';
  /** Always `SBKIT_UNKNOWN_LIST`. */
  override readonly code = errorCode('UNKNOWN_LIST');
  /** Every code of this class. */
  static readonly codes: readonly string[] = [errorCode('UNKNOWN_LIST')];

  constructor(
    /** The protocol they were asked over: v5 names lists, v4 by triples. */
    readonly protocol: 'v5' | 'v4',
    /** The names (v5) or triples (v4, written `(MALWARE, ANY_PLATFORM, URL)`) the server does not know. */
    readonly unknown: readonly string[],
    /** What the server publishes, in the same form. */
    readonly published: readonly string[],
  ) {
    const lists = published.length === 0 ? 'none' : published.join(', ');
    super(
      protocol === 'v5'
        ? `no hash list${unknown.length === 1 ? '' : 's'} named ${unknown.map((name) => JSON.stringify(name)).join(', ')} on this server; ` +
            `it publishes ${lists} (GET /v5/hashLists describes them)`
        : `no list answers ${unknown.join(', ')} on this server; its lists are ${lists} (GET /v4/threatLists names them)`,
    );
  }
}

/** The refusal of v5 names the server does not publish: NOT_FOUND, naming them and the lists there are. */
export function unknownHashLists(catalog: ListCatalog, names: readonly string[]): WireError {
  const published = catalog.all().map((history) => history.definition.name);
  const cause = new UnknownListError('v5', names, published);
  return new WireError('NOT_FOUND', cause.message, { cause });
}

/** A triple as people read it: the enums' names, numbers for values they do not name. */
function tripleText({ threatType, platformType, threatEntryType }: V4List): string {
  const type = ThreatType[threatType] ?? String(threatType);
  const platform = PlatformType[platformType] ?? String(platformType);
  const entryType = ThreatEntryType[threatEntryType] ?? String(threatEntryType);
  return `(${type}, ${platform}, ${entryType})`;
}

/** The refusal of v4 triples no list answers: INVALID_ARGUMENT, naming them and the triples the server publishes. */
export function unknownTriples(published: readonly V4List[], triples: readonly V4List[]): WireError {
  const cause = new UnknownListError('v4', [...new Set(triples.map(tripleText))], published.map(tripleText));
  return new WireError('INVALID_ARGUMENT', cause.message, { cause });
}
