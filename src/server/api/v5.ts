import { create } from '@bufbuild/protobuf';
import { encodeRice128, encodeRice256, encodeRice32, encodeRice64 } from '../../codec/index.ts';
import {
  type BatchGetHashListsRequest,
  type BatchGetHashListsResponse,
  BatchGetHashListsResponseSchema,
  type FullHash,
  type GetHashListRequest,
  type HashList,
  HashListMetadata_HashLength as HashLength,
  HashListSchema,
  LikelySafeType,
  type ListHashListsRequest,
  type ListHashListsResponse,
  ListHashListsResponseSchema,
  RiceDeltaEncoded128BitSchema,
  RiceDeltaEncoded256BitSchema,
  RiceDeltaEncoded32BitSchema,
  RiceDeltaEncoded64BitSchema,
  type SearchHashesRequest,
  type SearchHashesResponse,
  type SearchUrlsRequest,
  type SearchUrlsResponse,
  SearchUrlsResponseSchema,
  ThreatAttribute,
  ThreatType,
} from '../../proto/v5.ts';
import type { FullHashMatch } from '../../lists/threat-details.ts';
import type { ThreatTypeName } from '../../lists/threat-types.ts';
import type { SortedHashes } from '../../store/hash-list.ts';
import { parseCanonicalUrl } from '../../url/canonicalize.ts';
import { expressionsOf } from '../../url/expressions.ts';
import { expressionHashString, prefix32, prefix32OfBytes } from '../../url/hash.ts';
import { InvalidUrlError } from '../../url/invalid-url.ts';
import { durationFromMs } from '../../wire/duration.ts';
import { parseSearchFilter } from '../../wire/rest/search-filter.ts';
import { WireError } from '../../wire/wire-error.ts';
import { type ListCatalog, EMPTY_LIST_CHECKSUM, NO_LIST_VERSION } from '../catalog.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { ListHistory, ServedUpdate } from '../lists/list-history.ts';
import { pairedVersions, sizeConstraintsOf } from './answers/list-requests.ts';
import { type ApiSettings, minimumWaitOf } from './settings.ts';
import type { FullHashAnswer, FullHashSource } from './full-hash-source.ts';
import { unknownHashLists } from './unknown-list-error.ts';

const HASH_LENGTHS = {
  4: HashLength.FOUR_BYTES,
  8: HashLength.EIGHT_BYTES,
  16: HashLength.SIXTEEN_BYTES,
  32: HashLength.THIRTY_TWO_BYTES,
} as const;

function listOrNotFound(catalog: ListCatalog, name: string): ListHistory {
  const history = catalog.get(name);
  if (history === undefined) throw unknownHashLists(catalog, [name]);
  return history;
}

/** SB-10: additions Rice-coded at the list's width, in the oneof field of that width. */
function compressedAdditions(additions: SortedHashes): HashList['compressedAdditions'] {
  switch (additions.width) {
    case 4: {
      const value = encodeRice32(additions.values);
      return value === undefined ? { case: undefined } : { case: 'additionsFourBytes', value: create(RiceDeltaEncoded32BitSchema, value) };
    }
    case 8: {
      const value = encodeRice64(additions.bytes);
      return value === undefined ? { case: undefined } : { case: 'additionsEightBytes', value: create(RiceDeltaEncoded64BitSchema, value) };
    }
    case 16: {
      const value = encodeRice128(additions.bytes);
      return value === undefined
        ? { case: undefined }
        : { case: 'additionsSixteenBytes', value: create(RiceDeltaEncoded128BitSchema, value) };
    }
    case 32: {
      const value = encodeRice256(additions.bytes);
      return value === undefined
        ? { case: undefined }
        : { case: 'additionsThirtyTwoBytes', value: create(RiceDeltaEncoded256BitSchema, value) };
    }
  }
}

/**
 * A HashList answer from a served update: version and checksum always (docs/api.md §3 pitfall 4), removals
 * and additions Rice-coded, and the minimum wait — zero when the update was cut short by the client's
 * size constraints, so that it comes straight back for the rest (SB-12).
 */
function hashListMessage(name: string, served: ServedUpdate, minimumWaitMs: number): HashList {
  const removals = encodeRice32(served.removals);
  return create(HashListSchema, {
    name,
    version: served.version,
    partialUpdate: served.partial,
    compressedAdditions: compressedAdditions(served.additions),
    ...(removals === undefined ? {} : { compressedRemovals: removals }),
    sha256Checksum: served.checksum,
    ...(served.complete ? { minimumWaitDuration: durationFromMs(minimumWaitMs) } : {}),
  });
}

/** `GET /v5/hashList/{name}`: a list the server does not publish is NOT_FOUND, stand-ins being for batches only. */
export function getHashList(catalog: ListCatalog, request: GetHashListRequest, settings: ApiSettings, now: number): HashList {
  const history = listOrNotFound(catalog, request.name);
  const wait = minimumWaitOf(history, settings, now);
  return hashListMessage(request.name, history.updateFor(request.version, sizeConstraintsOf(request.sizeConstraints)), wait);
}

/**
 * A list this server does not publish, asked for in a batch, is answered as an empty list, as v4 answers
 * the triples clients fetch: Firefox always asks for the same five lists and keeps none of a batch that
 * fails. Only the names real clients ask for come here (SB-11): unknown-lists.ts refuses the others.
 */
function noSuchList(name: string, settings: ApiSettings): HashList {
  return create(HashListSchema, {
    name,
    version: NO_LIST_VERSION,
    sha256Checksum: EMPTY_LIST_CHECKSUM,
    minimumWaitDuration: durationFromMs(settings.minimumWaitMs),
  });
}

/** `GET /v5/hashLists:batchGet`: versions go to the lists that recognize them (list-requests.ts). */
export function batchGetHashLists(
  catalog: ListCatalog,
  request: BatchGetHashListsRequest,
  settings: ApiSettings,
  now: number,
): BatchGetHashListsResponse {
  const histories = request.names.map((name) => catalog.get(name));
  const versions = pairedVersions(histories, request.version);
  const constraints = sizeConstraintsOf(request.sizeConstraints);
  const hashLists = histories.map((history, i) =>
    history === undefined
      ? noSuchList(request.names[i]!, settings)
      : hashListMessage(request.names[i]!, history.updateFor(versions[i]!, constraints), minimumWaitOf(history, settings, now)),
  );
  return create(BatchGetHashListsResponseSchema, { hashLists });
}

function metadataOf(definition: ListDefinition): HashList {
  return create(HashListSchema, {
    name: definition.name,
    metadata: {
      threatTypes: definition.threatTypes.map((t) => ThreatType[t]),
      likelySafeTypes: definition.likelySafeTypes.map((t) => LikelySafeType[t]),
      description: definition.description,
      hashLength: HASH_LENGTHS[definition.hashLength],
    },
  });
}

/** `GET /v5/hashLists`: every list's metadata, a page at a time (the token is the next list's index). */
export function listHashLists(catalog: ListCatalog, request: ListHashListsRequest): ListHashListsResponse {
  const all = catalog.all().map((history) => history.definition);
  const start = request.pageToken === '' ? 0 : Number(Buffer.from(request.pageToken, 'base64url').toString());
  if (!Number.isInteger(start) || start < 0 || start > all.length)
    throw new WireError('INVALID_ARGUMENT', 'pageToken is not one this server gave out');
  const size = request.pageSize > 0 ? Math.min(request.pageSize, 1000) : all.length;
  const end = Math.min(all.length, start + size);
  return create(ListHashListsResponseSchema, {
    hashLists: all.slice(start, end).map(metadataOf),
    nextPageToken: end < all.length ? Buffer.from(String(end)).toString('base64url') : '',
  });
}

/** The full hashes of a URL's expressions (SB-6, SB-7); a bad URL is the caller's mistake. */
export function expressionHashesOfUrl(url: string): string[] {
  try {
    return expressionsOf(parseCanonicalUrl(url)).map(expressionHashString);
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    throw new WireError('INVALID_ARGUMENT', err.message, { cause: err });
  }
}

/** What a source knows of some URLs: each one's full hashes with their details, and how long that holds. */
export interface UrlMatches {
  /** For each URL, the full hashes the source knows among its expressions', in their order. */
  byUrl: FullHashMatch[][];
  /** How long the source's answer holds; 0 when nothing was asked. */
  cacheDurationMs: number;
}

/**
 * For each URL, given as the full hashes of its expressions, the full hashes the source knows among
 * them with their details, in the order of the URL's expressions. One search of the source for the
 * prefixes of all URLs: in proxy mode each search costs the upstream a request (or, past its per-request
 * limit, a few sent together by the client), so a batch of 500 URLs must not cost 500 searches.
 */
export async function matchesOfUrls(source: FullHashSource, urls: readonly (readonly string[])[]): Promise<UrlMatches> {
  const prefixes = new Set<number>();
  for (const hashes of urls) for (const hash of hashes) prefixes.add(prefix32(hash));
  if (prefixes.size === 0) return { byUrl: urls.map(() => []), cacheDurationMs: 0 };
  const answer = await source.find([...prefixes]);
  const byHash = new Map<string, FullHashMatch[]>();
  for (const match of answer.fullHashes) {
    const matches = byHash.get(match.fullHash);
    if (matches === undefined) byHash.set(match.fullHash, [match]);
    else matches.push(match);
  }
  return { byUrl: urls.map((hashes) => hashes.flatMap((hash) => byHash.get(hash) ?? [])), cacheDurationMs: answer.cacheDurationMs };
}

/**
 * How long a client may keep an answer that holds a threat: the operator's positive duration, never
 * longer than the source's answer holds (an upstream's shorter one, or what is left of it), since SB-8
 * lets a server lengthen only answers without a full hash.
 */
export function positiveDurationOf(found: UrlMatches, settings: ApiSettings): number {
  return Math.min(settings.positiveCacheDurationMs, found.cacheDurationMs);
}

/** The threat types of these matches, each once, in the order they first appear. */
function threatTypesOf(matches: readonly FullHashMatch[]): ThreatTypeName[] {
  const types = new Set<ThreatTypeName>();
  for (const match of matches) for (const detail of match.details) types.add(detail.threatType);
  return [...types];
}

/**
 * `GET /v5/hashes:search`: every full hash under the prefixes, with its threat details. The answer is
 * built as the plain objects protobuf-es messages are, not through `create`, whose reflection costs more
 * than the lookup itself on the server's busiest route.
 */
export async function searchHashes(source: FullHashSource, request: SearchHashesRequest): Promise<SearchHashesResponse> {
  return searchHashesAnswer(request, await source.find(searchPrefixes(request)));
}

/** The prefixes of a `hashes:search`, as numbers (the wire layer has checked that each is 4 bytes). */
export function searchPrefixes(request: SearchHashesRequest): number[] {
  return request.hashPrefixes.map(prefix32OfBytes);
}

/** The answer to a `hashes:search` from `answer`, the source's full hashes under its prefixes. */
export function searchHashesAnswer(request: SearchHashesRequest, answer: FullHashAnswer): SearchHashesResponse {
  // v5alpha1's filter: a full hash whose details are all filtered out is not answered at all.
  const kept = parseSearchFilter(request.filter);
  const found =
    kept === undefined
      ? answer.fullHashes
      : answer.fullHashes
          .map((match) => ({ ...match, details: match.details.filter((d) => kept.has(d.threatType)) }))
          .filter((match) => match.details.length > 0);
  const fullHashes: FullHash[] = found.map(({ fullHash, details }) => ({
    $typeName: 'google.security.safebrowsing.v5.FullHash',
    fullHash: Buffer.from(fullHash, 'latin1'),
    fullHashDetails: details.map((d) => ({
      $typeName: 'google.security.safebrowsing.v5.FullHash.FullHashDetail',
      threatType: ThreatType[d.threatType],
      attributes: d.attributes.map((a) => ThreatAttribute[a]),
    })),
  }));
  return {
    $typeName: 'google.security.safebrowsing.v5.SearchHashesResponse',
    fullHashes,
    // An answer left without full hashes by the filter is a negative one.
    cacheDuration: durationFromMs(
      fullHashes.length === 0 ? (answer.negativeCacheDurationMs ?? answer.cacheDurationMs) : answer.cacheDurationMs,
    ),
  };
}

/**
 * `GET /v5/urls:search`: the URLs (at most 50, checked by the wire layer) that are listed, found with
 * one search of the source for all of them. One unreadable URL makes the whole request INVALID_ARGUMENT.
 */
export async function searchUrls(source: FullHashSource, request: SearchUrlsRequest, settings: ApiSettings): Promise<SearchUrlsResponse> {
  const found = await matchesOfUrls(source, request.urls.map(expressionHashesOfUrl));
  const threats = [];
  for (const [i, url] of request.urls.entries()) {
    const types = threatTypesOf(found.byUrl[i]!);
    if (types.length > 0) threats.push({ url, threatTypes: types.map((type) => ThreatType[type]) });
  }
  const cacheDurationMs = threats.length > 0 ? positiveDurationOf(found, settings) : settings.negativeCacheDurationMs;
  return create(SearchUrlsResponseSchema, { threats, cacheDuration: durationFromMs(cacheDurationMs) });
}
