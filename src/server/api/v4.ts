import { create } from '@bufbuild/protobuf';
import { encodeV4RiceHashes, encodeV4RiceIndices, prefixesToBytes } from '../../codec/index.ts';
import type { ThreatTypeName } from '../../lists/threat-types.ts';
import { listNameForV4, V4_LIKELY_SAFE_LISTS, V4_LISTS } from '../../lists/v4-lists.ts';
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
import { expressionHashesOfUrl, matchesOfUrls } from './v5.ts';

/**
 * The v4 threat-type numbers that stand for each v5 threat type. Browsers send SOCIAL_ENGINEERING as
 * their internal 5, the public REST enum says 2 (docs/api.md §3 pitfall 3): both name the same list.
 */
const V4_NUMBERS: Readonly<Record<ThreatTypeName, readonly number[]>> = {
  MALWARE: [ThreatType.MALWARE],
  SOCIAL_ENGINEERING: [ThreatType.SOCIAL_ENGINEERING, ThreatType.SOCIAL_ENGINEERING_INTERNAL],
  UNWANTED_SOFTWARE: [ThreatType.UNWANTED_SOFTWARE],
  POTENTIALLY_HARMFUL_APPLICATION: [ThreatType.POTENTIALLY_HARMFUL_APPLICATION],
};

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

/**
 * The v4 numbers that may stand for a threat type found in a list. Malicious binaries are malware in v5
 * but have their own v4 type, under which v4 clients keep them (Firefox's goog-badbinurl-proto).
 */
function v4NumbersIn(list: string, type: ThreatTypeName): readonly number[] {
  return list === 'mwb-4b' ? [ThreatType.MALICIOUS_BINARY] : V4_NUMBERS[type];
}

/** The number a request uses for one of these candidates: its own when it names one, the first when it names none. */
function numberAsked(candidates: readonly number[], asked: readonly number[]): number | undefined {
  return asked.find((n) => candidates.includes(n)) ?? (asked.length === 0 ? candidates[0] : undefined);
}

function threatMatch(
  threatType: number,
  threat: { hash: Uint8Array } | { url: string },
  info: ThreatInfo | undefined,
  cacheDurationMs: number,
): ThreatMatch {
  const platformType = info?.platformTypes[0] ?? PlatformType.ANY_PLATFORM;
  return create(ThreatMatchSchema, {
    threatType,
    platformType,
    threatEntryType: ThreatEntryType.URL,
    threat,
    cacheDuration: durationFromMs(cacheDurationMs),
  });
}

/**
 * The v4 numbers of a full hash with these threat types: per list of the catalog that serves it (so a
 * hash of mwb-4b is a MALICIOUS_BINARY), and by type alone for types no list here explains (an
 * upstream's answer about a list this proxy does not mirror).
 */
function fullHashNumbers(catalog: ListCatalog, fullHash: string, types: readonly ThreatTypeName[], asked: readonly number[]): number[] {
  const numbers = new Set<number>();
  const explained = new Set<ThreatTypeName>();
  for (const { definition, snapshot } of catalog.threatSnapshots()) {
    if (!snapshot.serves(fullHash)) continue;
    for (const type of definition.threatTypes) {
      if (!types.includes(type)) continue;
      explained.add(type);
      const number = numberAsked(v4NumbersIn(definition.name, type), asked);
      if (number !== undefined) numbers.add(number);
    }
  }
  for (const type of types) {
    if (explained.has(type)) continue;
    const number = numberAsked(V4_NUMBERS[type], asked);
    if (number !== undefined) numbers.add(number);
  }
  return [...numbers];
}

/** `fullHashes:find`: full hashes under the requested prefixes, from lists that really hold them (pitfall 7). */
export async function findFullHashes(
  catalog: ListCatalog,
  source: FullHashSource,
  request: FindFullHashesRequest,
): Promise<FindFullHashesResponse> {
  const requested = (request.threatInfo?.threatEntries ?? [])
    .map((entry) => Buffer.from(entry.hash).toString('latin1'))
    .filter((h) => h.length >= 4);
  const answer = await source.find(requested.map(prefix32));
  const asked = request.threatInfo?.threatTypes ?? [];
  const matches = answer.fullHashes
    .filter(({ fullHash }) => requested.some((prefix) => fullHash.startsWith(prefix)))
    .flatMap(({ fullHash, details }) => {
      const types = [...new Set(details.map((d) => d.threatType))];
      const hash = Buffer.from(fullHash, 'latin1');
      return fullHashNumbers(catalog, fullHash, types, asked).map((number) =>
        threatMatch(number, { hash }, request.threatInfo, answer.cacheDurationMs),
      );
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
 * `threatMatches:find` (the v4 Lookup API): URLs whose expressions are listed, by the types asked for;
 * a malicious binary is MALWARE, and MALICIOUS_BINARY too when the request asks for that. All URLs (up
 * to 500) are looked up in one search of the source, which in proxy mode is the upstream.
 */
export async function findThreatMatches(
  catalog: ListCatalog,
  source: FullHashSource,
  request: FindThreatMatchesRequest,
  settings: ApiSettings,
): Promise<FindThreatMatchesResponse> {
  const asked = request.threatInfo?.threatTypes ?? [];
  const readable = (request.threatInfo?.threatEntries ?? []).flatMap((entry) => {
    const hashes = entry.url === '' ? undefined : expressionHashesOrSkip(entry.url);
    return hashes === undefined ? [] : [{ url: entry.url, hashes }];
  });
  const found = await matchesOfUrls(
    source,
    readable.map((entry) => entry.hashes),
  );
  const matches: ThreatMatch[] = [];
  for (const [i, { url }] of readable.entries()) {
    const numbers = new Set<number>();
    for (const { fullHash, details } of found[i]!) {
      const types = [...new Set(details.map((d) => d.threatType))];
      // A Lookup API caller asking for MALWARE is told of malicious binaries as malware, as before;
      // one that asks for MALICIOUS_BINARY is told that too.
      for (const type of types) {
        const number = numberAsked(V4_NUMBERS[type], asked);
        if (number !== undefined) numbers.add(number);
      }
      if (asked.includes(ThreatType.MALICIOUS_BINARY))
        for (const number of fullHashNumbers(catalog, fullHash, types, asked)) numbers.add(number);
    }
    for (const number of numbers) matches.push(threatMatch(number, { url }, request.threatInfo, settings.positiveCacheDurationMs));
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
