import { create } from '@bufbuild/protobuf';
import { encodeV4RiceHashes, encodeV4RiceIndices, prefixesToBytes } from '../../codec/index.ts';
import type { FullHashMatch } from '../../lists/threat-details.ts';
import { canonicalV4ListName, listNameForV4, V4_LIKELY_SAFE_LISTS, V4_LISTS, v4ThreatTypeName } from '../../lists/v4-lists.ts';
import {
  CompressionType,
  type FetchThreatListUpdatesRequest,
  type FetchThreatListUpdatesRequest_ListUpdateRequest as ListUpdateRequest,
  type FetchThreatListUpdatesResponse,
  FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType as ResponseType,
  FetchThreatListUpdatesResponseSchema,
  type FindFullHashesRequest,
  type FindFullHashesResponse,
  FindFullHashesResponseSchema,
  type FindThreatMatchesRequest,
  type FindThreatMatchesResponse,
  FindThreatMatchesResponseSchema,
  type ListThreatListsResponse,
  ListThreatListsResponseSchema,
  PlatformType,
  ThreatEntryType,
  ThreatEntrySetSchema,
  type ThreatEntrySet,
  type ThreatInfo,
  type ThreatMatch,
  ThreatMatchSchema,
  ThreatType,
} from '../../proto/v4.ts';
import type { SortedHashes } from '../../store/hash-list.ts';
import { prefix32 } from '../../url/hash.ts';
import { WireError } from '../../wire/wire-error.ts';
import { durationFromMs } from '../../wire/duration.ts';
import { type ListCatalog, EMPTY_LIST_CHECKSUM, NO_LIST_VERSION } from '../catalog.ts';
import type { ListHistory, ServedUpdate } from '../lists/list-history.ts';
import { type ApiSettings, minimumWaitOf } from './settings.ts';
import type { FullHashSource } from './full-hash-source.ts';
import { sizeConstraintsOf } from './answers/list-requests.ts';
import { isListedIn, listsHolding, type TypedList } from './listed-in.ts';
import { expressionHashesOfUrl, matchesOfUrls, positiveDurationOf } from './v5.ts';

/** v4 carries 4-byte prefixes Rice-coded when the client can read that, raw otherwise and for wider hashes. */
function entrySets(hashes: SortedHashes, rice: boolean): ThreatEntrySet[] {
  if (hashes.width === 4) {
    if (hashes.values.length === 0) return [];
    if (rice)
      return [create(ThreatEntrySetSchema, { compressionType: CompressionType.RICE, riceHashes: encodeV4RiceHashes(hashes.values)! })];
    return [
      create(ThreatEntrySetSchema, {
        compressionType: CompressionType.RAW,
        rawHashes: { prefixSize: 4, rawHashes: prefixesToBytes(hashes.values) },
      }),
    ];
  }
  if (hashes.bytes.length === 0) return [];
  return [
    create(ThreatEntrySetSchema, {
      compressionType: CompressionType.RAW,
      rawHashes: { prefixSize: hashes.width, rawHashes: hashes.bytes },
    }),
  ];
}

function removalSets(indices: Uint32Array, rice: boolean): ThreatEntrySet[] {
  if (indices.length === 0) return [];
  if (rice) return [create(ThreatEntrySetSchema, { compressionType: CompressionType.RICE, riceIndices: encodeV4RiceIndices(indices)! })];
  return [create(ThreatEntrySetSchema, { compressionType: CompressionType.RAW, rawIndices: { indices: [...indices] } })];
}

function listUpdateResponse(request: ListUpdateRequest, served: ServedUpdate | undefined) {
  const rice = request.constraints?.supportedCompressions.includes(CompressionType.RICE) ?? false;
  const triple = { threatType: request.threatType, platformType: request.platformType, threatEntryType: request.threatEntryType };
  if (served === undefined) {
    return {
      ...triple,
      responseType: ResponseType.FULL_UPDATE,
      newClientState: NO_LIST_VERSION,
      checksum: { sha256: EMPTY_LIST_CHECKSUM },
    };
  }
  return {
    ...triple,
    responseType: served.partial ? ResponseType.PARTIAL_UPDATE : ResponseType.FULL_UPDATE,
    additions: entrySets(served.additions, rice),
    removals: removalSets(served.removals, rice),
    newClientState: served.version,
    checksum: { sha256: served.checksum },
  };
}

/**
 * `threatListUpdates:fetch`: one ListUpdateResponse per requested triple, in request order, echoing the
 * triple (the Go client rejects anything else). A triple no list of this server answers is answered as
 * an empty list: only those real clients fetch come here (SB-11), unknown-lists.ts refusing the others.
 */
export function fetchThreatListUpdates(
  catalog: ListCatalog,
  request: FetchThreatListUpdatesRequest,
  settings: ApiSettings,
  now: number,
): FetchThreatListUpdatesResponse {
  let complete = true;
  // v4 has one wait for the whole answer: the shortest of its lists', so that a changing one is come back for.
  let minimumWaitMs = settings.minimumWaitMs;
  const listUpdateResponses = request.listUpdateRequests.map((listRequest) => {
    const name = listNameForV4(listRequest.threatType, listRequest.platformType, listRequest.threatEntryType);
    const history: ListHistory | undefined = name === undefined ? undefined : catalog.get(name);
    minimumWaitMs = Math.min(minimumWaitMs, minimumWaitOf(history, settings, now));
    const served = history?.updateFor(listRequest.state, sizeConstraintsOf(listRequest.constraints));
    if (served !== undefined && !served.complete) complete = false;
    return listUpdateResponse(listRequest, served);
  });
  return create(FetchThreatListUpdatesResponseSchema, {
    listUpdateResponses,
    // A cut-short update asks for the rest at once (SB-14: zero wait is v5's way; v4 clients wait anyway).
    ...(complete ? { minimumWaitDuration: durationFromMs(minimumWaitMs) } : {}),
  });
}

/** A v4 list that a search names: the threat type and platform its matches carry, and the list of this server it is. */
interface SearchedList extends TypedList {
  threatType: ThreatType;
  platformType: PlatformType;
}

/** What a search that names no threat type is answered for: each v5 type by its public number, and malicious binaries. */
const EVERY_THREAT_TYPE = [
  ThreatType.MALWARE,
  ThreatType.SOCIAL_ENGINEERING,
  ThreatType.UNWANTED_SOFTWARE,
  ThreatType.POTENTIALLY_HARMFUL_APPLICATION,
  ThreatType.MALICIOUS_BINARY,
];

/** Whether a list is one of Android's (uwsa-4b, pha-4b), whose triple says ANDROID, where the others answer every platform. */
function isAndroidList(name: string): boolean {
  const v4Name = canonicalV4ListName(name);
  return v4Name !== undefined && V4_LISTS[v4Name].platformType === PlatformType.ANDROID;
}

/**
 * The v4 lists a search names, each once: every (threat type, platform) of its threat info that names a
 * threat list (listNameForV4), as a match from that list carries it. A client files a match under the
 * triple it carries and ignores one of a list it does not keep (the Go client, which then takes the
 * prefix for unlisted; Chromium), so a match from an Android list says ANDROID, as Google's do, when the
 * search names ANDROID; the other lists answer every platform, as threatListUpdates:fetch does, and say
 * the one asked. Entry types are not judged: every match is of a URL (pitfall 7).
 */
function listsSearched(info: ThreatInfo | undefined): SearchedList[] {
  const threatTypes = info === undefined || info.threatTypes.length === 0 ? EVERY_THREAT_TYPE : info.threatTypes;
  const platforms = info === undefined || info.platformTypes.length === 0 ? [PlatformType.ANY_PLATFORM] : info.platformTypes;
  const lists = new Map<string, SearchedList>();
  for (const threatType of threatTypes) {
    // Malicious binaries are malware in v5, but v4 clients keep them under their own type (Firefox's goog-badbinurl-proto).
    const type = threatType === ThreatType.MALICIOUS_BINARY ? 'MALWARE' : v4ThreatTypeName(threatType);
    if (type === undefined) continue;
    // A search by type alone means the list the type's own number names on every platform: mw-4b, uws-4b.
    const typeList =
      v4ThreatTypeName(threatType) === undefined ? undefined : listNameForV4(threatType, PlatformType.ANY_PLATFORM, ThreatEntryType.URL);
    for (const asked of platforms) {
      const name = listNameForV4(threatType, asked, ThreatEntryType.URL)!;
      // pha-4b is served under any platform a client keeps it (threatListUpdates:fetch); its matches say
      // ANDROID only when the search names ANDROID, else the platform the client asked it under.
      const platformType = isAndroidList(name) && platforms.includes(PlatformType.ANDROID) ? PlatformType.ANDROID : asked;
      lists.set(`${threatType}/${platformType}`, { threatType, platformType, name, type, ofTypeAlone: name === typeList });
    }
  }
  return [...lists.values()];
}

/** The lists that v4 triples name: fullHashes:find tells each from the others of its type (mwb-4b's hash is no MALWARE match). */
const isV4List = (name: string): boolean => V4_TRIPLES.some((t) => listNameForV4(t.threatType, t.platformType, t.threatEntryType) === name);

/**
 * The lists the Lookup API tells apart: those of SB-11, by platform. A malicious binary is malware to its
 * callers (who may ask for MALICIOUS_BINARY too), as it always was.
 */
const isSb11List = (name: string): boolean => canonicalV4ListName(name) === name;

/** The lists among `searched` that hold a full hash the source found with these details (listed-in.ts). */
function listsMatched(
  catalog: ListCatalog,
  searched: readonly SearchedList[],
  { fullHash, details }: FullHashMatch,
  isRival: (name: string) => boolean,
): SearchedList[] {
  const types = new Set(details.map((detail) => detail.threatType));
  const candidates = searched.filter((list) => types.has(list.type));
  if (candidates.length === 0) return [];
  const holding = listsHolding(catalog, fullHash);
  return candidates.filter((list) => isListedIn(list, holding, isRival));
}

function threatMatch(list: SearchedList, threat: { hash: Uint8Array } | { url: string }, cacheDurationMs: number): ThreatMatch {
  return create(ThreatMatchSchema, {
    threatType: list.threatType,
    platformType: list.platformType,
    threatEntryType: ThreatEntryType.URL,
    threat,
    cacheDuration: durationFromMs(cacheDurationMs),
  });
}

/**
 * `fullHashes:find`: full hashes under the requested prefixes, one match per list asked for that holds
 * it (pitfall 7), carrying that list's triple.
 */
export async function findFullHashes(
  catalog: ListCatalog,
  source: FullHashSource,
  request: FindFullHashesRequest,
): Promise<FindFullHashesResponse> {
  const requested = (request.threatInfo?.threatEntries ?? [])
    .map((entry) => Buffer.from(entry.hash).toString('latin1'))
    .filter((h) => h.length >= 4);
  const answer = await source.find(requested.map(prefix32));
  const searched = listsSearched(request.threatInfo);
  const matches = answer.fullHashes
    .filter(({ fullHash }) => requested.some((prefix) => fullHash.startsWith(prefix)))
    .flatMap((found) => {
      const hash = Buffer.from(found.fullHash, 'latin1');
      return listsMatched(catalog, searched, found, isV4List).map((list) => threatMatch(list, { hash }, answer.cacheDurationMs));
    });
  return create(FindFullHashesResponseSchema, {
    matches,
    negativeCacheDuration: durationFromMs(answer.negativeCacheDurationMs ?? answer.cacheDurationMs),
  });
}

/** The full hashes of a URL's expressions, or undefined for a URL that cannot be read. */
function expressionHashesOrSkip(url: string): string[] | undefined {
  try {
    return expressionHashesOfUrl(url);
  } catch (err) {
    // The Lookup API answers for the URLs it can read; one bad URL does not void the others.
    if (err instanceof WireError && err.status === 'INVALID_ARGUMENT') return undefined;
    throw err;
  }
}

/**
 * `threatMatches:find` (the v4 Lookup API): URLs whose expressions are listed, one match per list asked
 * for that holds one of them; a malicious binary is MALWARE, and MALICIOUS_BINARY too when the request
 * asks for that. All URLs (up to 500) are looked up in one search of the source, which in proxy mode is
 * the upstream. A match is kept for the positive cache duration, no longer than the source's answer holds.
 */
export async function findThreatMatches(
  catalog: ListCatalog,
  source: FullHashSource,
  request: FindThreatMatchesRequest,
  settings: ApiSettings,
): Promise<FindThreatMatchesResponse> {
  const searched = listsSearched(request.threatInfo);
  const readable = (request.threatInfo?.threatEntries ?? []).flatMap((entry) => {
    const hashes = entry.url === '' ? undefined : expressionHashesOrSkip(entry.url);
    return hashes === undefined ? [] : [{ url: entry.url, hashes }];
  });
  const found = await matchesOfUrls(
    source,
    readable.map((entry) => entry.hashes),
  );
  const cacheDurationMs = positiveDurationOf(found, settings);
  const matches: ThreatMatch[] = [];
  for (const [i, { url }] of readable.entries()) {
    const matched = new Set<SearchedList>();
    for (const match of found.byUrl[i]!) for (const list of listsMatched(catalog, searched, match, isSb11List)) matched.add(list);
    for (const list of searched) if (matched.has(list)) matches.push(threatMatch(list, { url }, cacheDurationMs));
  }
  return create(FindThreatMatchesResponseSchema, { matches });
}

/**
 * The v4 triples that name a list (SB-14), one per list, in SB-11 order: the client's own table (browsers
 * ask for these), then malicious binaries, which v4 clients keep under their own type (Firefox), then
 * the browsers' allowlists.
 */
const V4_TRIPLES = [
  ...Object.values(V4_LISTS),
  { threatType: ThreatType.MALICIOUS_BINARY, platformType: PlatformType.ANY_PLATFORM, threatEntryType: ThreatEntryType.URL },
  ...Object.values(V4_LIKELY_SAFE_LISTS),
];

/**
 * `threatLists`: the v4 triples this server answers with real lists. Only triples that
 * threatListUpdates:fetch maps to a list of the catalog (listNameForV4): lists of other names or widths
 * have no v4 triple, and one list is named once, however many lists share its threat type.
 */
export function listThreatLists(catalog: ListCatalog): ListThreatListsResponse {
  const named = new Set<string>();
  const threatLists = V4_TRIPLES.filter((triple) => {
    const name = listNameForV4(triple.threatType, triple.platformType, triple.threatEntryType);
    if (name === undefined || named.has(name) || catalog.get(name) === undefined) return false;
    named.add(name);
    return true;
  });
  return create(ListThreatListsResponseSchema, { threatLists });
}
