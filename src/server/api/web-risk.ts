// Web Risk v1 (webrisk.googleapis.com/v1) answered from the server's own lists: each threat type is the
// list `webRiskLists` maps it to (lists/web-risk-lists.ts, ListCatalog.webRiskList), diffs in v4's form
// from the same histories as v4 and v5 updates, searches through the same full-hash source (so a proxy
// answers them from its upstream), and submissions kept for the operator alone.

import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { encodeV4RiceHashes, encodeV4RiceIndices, prefixesToBytes, type RiceDeltaEncoding } from '../../codec/index.ts';
import type { ThreatDetail } from '../../lists/threat-details.ts';
import { WEB_RISK_THREAT_TYPE_NAMES, webRiskThreatTypeName, webRiskThreatTypeNumber } from '../../lists/web-risk-lists.ts';
import {
  CompressionType,
  type ComputeThreatListDiffRequest,
  type ComputeThreatListDiffResponse,
  ComputeThreatListDiffResponse_ResponseType as ResponseType,
  ComputeThreatListDiffResponseSchema,
  type CreateSubmissionRequest,
  type SearchHashesRequest,
  type SearchHashesResponse,
  SearchHashesResponseSchema,
  type SearchUrisRequest,
  type SearchUrisResponse,
  SearchUrisResponseSchema,
  type Submission,
  SubmissionSchema,
} from '../../proto/webrisk.ts';
import { parseCanonicalUrl } from '../../url/canonicalize.ts';
import { prefix32OfBytes } from '../../url/hash.ts';
import { InvalidUrlError } from '../../url/invalid-url.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListCatalog } from '../catalog.ts';
import type { Submissions } from '../operator/submissions.ts';
import { answerIssuedAt } from './answers/answer-caching.ts';
import { sizeConstraintsOf } from './answers/list-requests.ts';
import type { FullHashSource } from './full-hash-source.ts';
import { type ApiSettings, minimumWaitOf } from './settings.ts';
import { unknownWebRiskTypes } from './unknown-list-error.ts';
import { isListedIn, listsHolding } from './listed-in.ts';
import { expressionHashesOfUrl, matchesOfUrls, positiveDurationOf } from './v5.ts';

/** The codec's v4 Rice coding as Web Risk's message names it (`entry_count` for v4's `num_entries`). */
function webRiskRice(encoded: RiceDeltaEncoding) {
  return {
    firstValue: encoded.firstValue,
    riceParameter: encoded.riceParameter,
    entryCount: encoded.numEntries,
    encodedData: encoded.encodedData,
  };
}

/**
 * `GET /v1/threatLists:computeDiff`: the list of the threat type from the client's version token (SB-9):
 * RESET with the whole list for an empty, unknown or evicted token, DIFF otherwise; Rice-coded when the
 * client reads that, raw otherwise. The next diff is recommended after the list's minimum wait (SB-12),
 * or at once when the client's constraints cut this one short.
 */
export function computeThreatListDiff(
  catalog: ListCatalog,
  request: ComputeThreatListDiffRequest,
  settings: ApiSettings,
  now: number,
): ComputeThreatListDiffResponse {
  const type = webRiskThreatTypeName(request.threatType)!;
  const history = catalog.webRiskList(type);
  // unknown-lists.ts refuses such a request before it is answered; a direct caller gets the same refusal.
  if (history === undefined) throw unknownWebRiskTypes(catalog, [type]);
  const { constraints } = request;
  const served = history.updateFor(
    request.versionToken,
    sizeConstraintsOf({ maxUpdateEntries: constraints?.maxDiffEntries ?? 0, maxDatabaseEntries: constraints?.maxDatabaseEntries ?? 0 }),
  );
  const rice = constraints?.supportedCompressions.includes(CompressionType.RICE) ?? false;
  // ListCatalog.webRiskList answers with 4-byte lists alone.
  if (served.additions.width !== 4) throw new TypeError(`${history.definition.name} is no 4-byte list; Web Risk carries no other`);
  const added = served.additions.values;
  const additions =
    added.length === 0
      ? undefined
      : rice
        ? { riceHashes: webRiskRice(encodeV4RiceHashes(added)!) }
        : { rawHashes: [{ prefixSize: 4, rawHashes: prefixesToBytes(added) }] };
  const removed = served.removals;
  const removals =
    removed.length === 0
      ? undefined
      : rice
        ? { riceIndices: webRiskRice(encodeV4RiceIndices(removed)!) }
        : { rawIndices: { indices: [...removed] } };
  // SB-12: a diff cut short by the constraints asks for the rest at once.
  const waitMs = served.complete ? minimumWaitOf(history, settings, now) : 0;
  return create(ComputeThreatListDiffResponseSchema, {
    responseType: served.partial ? ResponseType.DIFF : ResponseType.RESET,
    ...(additions === undefined ? {} : { additions }),
    ...(removals === undefined ? {} : { removals }),
    newVersionToken: served.version,
    checksum: { sha256: served.checksum },
    // From the start of the minute, as every copy of this answer says it (answer-caching.ts).
    recommendedNextDiff: timestampFromMs(answerIssuedAt(now) + waitMs),
  });
}

/**
 * The Web Risk types, among `asked` (numbers), under which a full hash with these details is listed: a
 * type counts when the list it maps to is of a threat type the details name, and no other list here
 * holds the hash under that type unless the mapped list does too, so that a hash of another list with the
 * same v5 type (uwsa-4b beside uws-4b) is not answered as the mapped list's. The details decide, not the
 * mapped list's copy: a proxy's upstream knows what the copy does not hold yet, or ever (listed-in.ts).
 */
function webRiskTypesOf(catalog: ListCatalog, fullHash: string, details: readonly ThreatDetail[], asked: readonly number[]): number[] {
  const holding = listsHolding(catalog, fullHash);
  return WEB_RISK_THREAT_TYPE_NAMES.filter((webRiskType) => {
    if (!asked.includes(webRiskThreatTypeNumber(webRiskType))) return false;
    const definition = catalog.webRiskList(webRiskType)?.definition;
    return (
      definition !== undefined &&
      details.some(
        ({ threatType }) =>
          definition.threatTypes.includes(threatType) &&
          // Every list here is a rival: a hash of the operator's own list is not the mapped list's.
          isListedIn({ name: definition.name, type: threatType, ofTypeAlone: true }, holding, () => true),
      )
    );
  }).map(webRiskThreatTypeNumber);
}

/**
 * `GET /v1/hashes:search`: the full hashes under the prefix (4 to 32 bytes) listed under the threat
 * types asked, each until `now` plus the source's cache duration (SB-8), and how long any other hash
 * under the prefix may be taken as unlisted.
 */
export async function webRiskSearchHashes(
  catalog: ListCatalog,
  source: FullHashSource,
  request: SearchHashesRequest,
  now: number,
): Promise<SearchHashesResponse> {
  const prefix = Buffer.from(request.hashPrefix).toString('latin1');
  const answer = await source.find([prefix32OfBytes(request.hashPrefix)]);
  const threats = answer.fullHashes
    .filter(({ fullHash }) => fullHash.startsWith(prefix))
    .map(({ fullHash, details }) => ({ hash: fullHash, threatTypes: webRiskTypesOf(catalog, fullHash, details, request.threatTypes) }))
    .filter(({ threatTypes }) => threatTypes.length > 0)
    .map(({ hash, threatTypes }) => ({
      threatTypes,
      hash: Buffer.from(hash, 'latin1'),
      expireTime: timestampFromMs(now + answer.cacheDurationMs),
    }));
  return create(SearchHashesResponseSchema, {
    threats,
    negativeExpireTime: timestampFromMs(now + (answer.negativeCacheDurationMs ?? answer.cacheDurationMs)),
  });
}

/**
 * `GET /v1/uris:search`: the URI canonicalized and its expressions looked up (SB-6, SB-7); a `threat`
 * with the types it is listed under, kept until `now` plus the positive cache duration (no longer than
 * the source's answer holds), or none.
 */
export async function searchUris(
  catalog: ListCatalog,
  source: FullHashSource,
  request: SearchUrisRequest,
  settings: ApiSettings,
  now: number,
): Promise<SearchUrisResponse> {
  const found = await matchesOfUrls(source, [expressionHashesOfUrl(request.uri)]);
  const types = new Set<number>();
  for (const { fullHash, details } of found.byUrl[0]!)
    for (const type of webRiskTypesOf(catalog, fullHash, details, request.threatTypes)) types.add(type);
  if (types.size === 0) return create(SearchUrisResponseSchema, {});
  return create(SearchUrisResponseSchema, {
    threat: { threatTypes: [...types].sort((a, b) => a - b), expireTime: timestampFromMs(now + positiveDurationOf(found, settings)) },
  });
}

/**
 * `POST /v1/projects/{project}/submissions`: the report kept for the operator (operator/submissions.ts),
 * answered as Google answers one under review: the URI, with no threat types.
 */
export function createSubmission(submissions: Submissions, request: CreateSubmissionRequest, client: string, now: number): Submission {
  const uri = request.submission!.uri;
  try {
    parseCanonicalUrl(uri);
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    throw new WireError('INVALID_ARGUMENT', `submission.uri is no URL: ${err.message}`, { cause: err });
  }
  submissions.record({ at: new Date(now).toISOString(), project: request.parent.slice('projects/'.length), uri, client });
  return create(SubmissionSchema, { uri, threatTypes: [] });
}
