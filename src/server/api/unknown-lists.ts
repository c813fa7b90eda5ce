// Which lists a server refuses to answer (SB-11, docs/api.md "The lists each client asks for"). A name or
// v4 triple the server publishes is answered from its list. One it does not publish is answered as an
// empty stand-in (catalog.ts, NO_LIST_VERSION) only when real clients ask for it
// (src/lists/client-lists.ts), since each of them fetches its lists in one request and keeps none when
// that fails. Any other is refused, the answer naming what was asked and what the server publishes: a
// mistyped name kept as an empty list would protect against nothing and say nothing of it.
//
// v5 refuses as a standard batch Get does (AIP-231, which Google's reference names for batchGet: all
// lists or none; a well-formed name that names nothing is NOT_FOUND, as on hashList/{name}). v4 names
// lists by arguments, not resources: an unknown triple is INVALID_ARGUMENT.

import { clientsAskFor, clientsFetch, clientsSearchFor } from '../../lists/client-lists.ts';
import { listNameForV4 } from '../../lists/v4-lists.ts';
import { webRiskThreatTypeName } from '../../lists/web-risk-lists.ts';
import { PlatformType, ThreatEntryType, type ThreatType } from '../../proto/v4.ts';
import type { RpcCall } from '../../wire/rest/routes.ts';
import type { ListCatalog } from '../catalog.ts';
import { unknownHashLists, unknownTriples, unknownWebRiskTypes } from './unknown-list-error.ts';
import { listThreatLists } from './v4.ts';

/** The triples a search's ThreatInfo names whose threat type no real client searches for. */
function unsearchedTriples(info: { threatTypes: ThreatType[]; platformTypes: PlatformType[]; threatEntryTypes: ThreatEntryType[] }) {
  const unknown = info.threatTypes.filter((threatType) => !clientsSearchFor(threatType));
  const platforms = info.platformTypes.length === 0 ? [PlatformType.PLATFORM_TYPE_UNSPECIFIED] : info.platformTypes;
  const entryTypes = info.threatEntryTypes.length === 0 ? [ThreatEntryType.THREAT_ENTRY_TYPE_UNSPECIFIED] : info.threatEntryTypes;
  return unknown.flatMap((threatType) =>
    platforms.flatMap((platformType) => entryTypes.map((threatEntryType) => ({ threatType, platformType, threatEntryType }))),
  );
}

/**
 * Throws the refusal of a call that asks for lists the server neither publishes nor stands in for;
 * returns for any other call. Called before anything is worked out for the call, so that a refusal
 * carries no ETag and no If-None-Match turns it into a 304 of a stand-in kept from before.
 *
 * - `hashLists:batchGet`: a name not published and asked for by no client.
 * - `threatListUpdates:fetch`: a triple that no published list answers, fetched by no client.
 * - `fullHashes:find`, `threatMatches:find`: a threat type no client searches for. A search is answered
 *   by threat type alone, and clients name the product of their lists' types, platforms and entry types
 *   (Chromium with CHROME and CHROME_EXTENSION, pitfall 7), so platforms and entry types refuse nothing.
 *
 * - Web Risk's `threatLists:computeDiff`, `hashes:search` and `uris:search`: a threat type no list of
 *   this server answers (webRiskLists). No client of Web Risk fetches a fixed set, so none has a stand-in.
 *
 * `hashList/{name}` has no stand-in: v5.ts refuses any name the server does not publish.
 */
export function refuseUnknownLists(catalog: ListCatalog, call: RpcCall): void {
  switch (call.rpc) {
    case 'BatchGetHashLists': {
      const unknown = call.request.names.filter((name) => catalog.get(name) === undefined && !clientsAskFor(name));
      if (unknown.length > 0) throw unknownHashLists(catalog, unknown);
      return;
    }
    case 'FetchThreatListUpdates': {
      const unknown = call.request.listUpdateRequests.filter((triple) => {
        const name = listNameForV4(triple.threatType, triple.platformType, triple.threatEntryType);
        return (name === undefined || catalog.get(name) === undefined) && !clientsFetch(triple);
      });
      if (unknown.length > 0) throw unknownTriples(listThreatLists(catalog).threatLists, unknown);
      return;
    }
    case 'FindFullHashes':
    case 'FindThreatMatches': {
      const unknown = call.request.threatInfo === undefined ? [] : unsearchedTriples(call.request.threatInfo);
      if (unknown.length > 0) throw unknownTriples(listThreatLists(catalog).threatLists, unknown);
      return;
    }
    case 'ComputeThreatListDiff':
      return refuseUnansweredWebRiskTypes(catalog, [call.request.threatType]);
    case 'SearchUris':
    case 'WebRiskSearchHashes':
      return refuseUnansweredWebRiskTypes(catalog, call.request.threatTypes);
    default:
      return;
  }
}

/** Throws the refusal of the Web Risk threat types (numbers the wire layer has checked) that no list answers. */
function refuseUnansweredWebRiskTypes(catalog: ListCatalog, threatTypes: readonly number[]): void {
  const unanswered = threatTypes.map((number) => webRiskThreatTypeName(number)!).filter((type) => catalog.webRiskList(type) === undefined);
  if (unanswered.length > 0) throw unknownWebRiskTypes(catalog, unanswered);
}
