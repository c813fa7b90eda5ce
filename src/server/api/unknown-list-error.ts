// The refusal of lists a server neither publishes nor stands in for (unknown-lists.ts says which): an
// UnknownListError carried as the reason of the answer's body, its message naming what was asked and
// what the server publishes, so that a person can fix the name.

import type { V4List } from '../../lists/v4-lists.ts';
import { PlatformType, ThreatEntryType, ThreatType } from '../../proto/v4.ts';
import { UnknownListError } from '../../lists/unknown-list-error.ts';
import { WEB_RISK_THREAT_TYPE_NAMES, type WebRiskThreatTypeName } from '../../lists/web-risk-lists.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListCatalog } from '../catalog.ts';

/** The refusal of v5 names the server does not publish: NOT_FOUND, naming them and the lists there are. */
export function unknownHashLists(catalog: ListCatalog, names: readonly string[]): WireError {
  const published = catalog.all().map((history) => history.definition.name);
  const cause = new UnknownListError(names, published, { listedBy: 'GET /v5/hashLists' });
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
  const cause = new UnknownListError([...new Set(triples.map(tripleText))], published.map(tripleText), {
    triples: true,
    listedBy: 'GET /v4/threatLists',
  });
  return new WireError('INVALID_ARGUMENT', cause.message, { cause });
}

/**
 * The refusal of Web Risk threat types no list of this server answers (webRiskLists): INVALID_ARGUMENT,
 * as Web Risk names lists by an argument, naming them and the types the server answers.
 */
export function unknownWebRiskTypes(catalog: ListCatalog, types: readonly WebRiskThreatTypeName[]): WireError {
  const answered = WEB_RISK_THREAT_TYPE_NAMES.filter((type) => catalog.webRiskList(type) !== undefined);
  const cause = new UnknownListError([...new Set(types)], answered, { triples: true });
  return new WireError('INVALID_ARGUMENT', cause.message, { cause });
}
