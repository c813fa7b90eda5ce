// The route table of the REST surface (docs/api.md, docs/api.md §1 and §2): which method and
// path reach which RPC, the message schemas of its request and response, and what its answer holds —
// for a list update, the lists its request names. The server dispatches on it and the client builds
// its URLs from it, so the two cannot disagree about a path; the server's caching headers, ETags and
// the lists it must have ready read an RPC's answer from it, so that they cannot disagree either.

import type { GenMessage } from '@bufbuild/protobuf/codegenv2';
import type { Empty } from '@bufbuild/protobuf/wkt';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import * as v4 from '../../proto/v4.ts';
import * as v5 from '../../proto/v5.ts';
import * as webrisk from '../../proto/webrisk.ts';
import { listNameForV4 } from '../../lists/v4-lists.ts';
import { webRiskListAlias } from '../../lists/web-risk-lists.ts';
import { checkListName } from '../list-name.ts';
import { WireError } from '../wire-error.ts';

/** Request and response message of each RPC. */
interface RpcMessages {
  SearchHashes: { request: v5.SearchHashesRequest; response: v5.SearchHashesResponse };
  GetHashList: { request: v5.GetHashListRequest; response: v5.HashList };
  ListHashLists: { request: v5.ListHashListsRequest; response: v5.ListHashListsResponse };
  BatchGetHashLists: { request: v5.BatchGetHashListsRequest; response: v5.BatchGetHashListsResponse };
  SearchUrls: { request: v5.SearchUrlsRequest; response: v5.SearchUrlsResponse };
  FetchThreatListUpdates: { request: v4.FetchThreatListUpdatesRequest; response: v4.FetchThreatListUpdatesResponse };
  FindFullHashes: { request: v4.FindFullHashesRequest; response: v4.FindFullHashesResponse };
  FindThreatMatches: { request: v4.FindThreatMatchesRequest; response: v4.FindThreatMatchesResponse };
  ListThreatLists: { request: Empty; response: v4.ListThreatListsResponse };
  CreateThreatHit: { request: v4.ThreatHit; response: Empty };
  ComputeThreatListDiff: { request: webrisk.ComputeThreatListDiffRequest; response: webrisk.ComputeThreatListDiffResponse };
  SearchUris: { request: webrisk.SearchUrisRequest; response: webrisk.SearchUrisResponse };
  WebRiskSearchHashes: { request: webrisk.SearchHashesRequest; response: webrisk.SearchHashesResponse };
  CreateSubmission: { request: webrisk.CreateSubmissionRequest; response: webrisk.Submission };
}

/**
 * An RPC by its method name in our .proto services, unique across the protocols: Web Risk's
 * SearchHashes, which v5 has too, is WebRiskSearchHashes.
 */
export type RpcId = keyof RpcMessages;
export type RpcRequest<R extends RpcId> = RpcMessages[R]['request'];
export type RpcResponse<R extends RpcId> = RpcMessages[R]['response'];

/** The path prefix a request used; v5alpha1 serves the v5 RPCs (docs/api.md §1, last note), v1 is Web Risk's. */
export type ApiVersion = 'v5' | 'v5alpha1' | 'v4' | 'v1';

/** The protocols of the REST surface: Safe Browsing v5 and v4, and Web Risk v1. */
export type Protocol = 'v5' | 'v4' | 'webrisk';

const PROTOCOL_OF: Readonly<Record<ApiVersion, Protocol>> = { v5: 'v5', v5alpha1: 'v5', v4: 'v4', v1: 'webrisk' };

/** A request message together with the RPC it is for. */
export interface RpcCallOf<R extends RpcId> {
  rpc: R;
  apiVersion: ApiVersion;
  request: RpcRequest<R>;
}

/** A request message together with the RPC it is for, narrowed by `rpc`. */
export type RpcCall = { [R in RpcId]: RpcCallOf<R> }[RpcId];

/**
 * What an RPC's answer holds (SB-11). List data (an update of the lists the request names, or the
 * listing of the lists served) is the same for everyone who sends the same request, so caches may share
 * it; a list update's bytes are determined by the lists it names, so it can carry an ETag worked out from
 * them. A search's answer tells what someone browses; an acknowledgement holds nothing.
 */
type RpcAnswer<R extends RpcId> =
  | {
      holds: 'list update';
      /**
       * The lists the request names, in the order the answer gives them; undefined for a v4 triple that
       * names none. A Web Risk threat type names its list by an alias (lists/web-risk-lists.ts).
       */
      listsNamed: (request: RpcRequest<R>) => readonly (string | undefined)[];
    }
  | { holds: 'list listing' | 'search' | 'acknowledgement' };

export interface Rpc<R extends RpcId> {
  id: R;
  protocol: Protocol;
  httpMethod: 'GET' | 'POST';
  /**
   * Paths after `/{version}/`; the first is canonical. A trailing `{name}` is the list name segment, a
   * `{project}` segment the project of a Web Risk resource (its request's `parent`, `projects/{project}`).
   */
  paths: readonly [string, ...string[]];
  /** The request field a POST body fills, when it is not the whole request (Web Risk's `body: "submission"`). */
  bodyField?: 'submission';
  requestSchema: GenMessage<RpcRequest<R>>;
  responseSchema: GenMessage<RpcResponse<R>>;
  answer: RpcAnswer<R>;
}

export type AnyRpc = { [R in RpcId]: Rpc<R> }[RpcId];

/** The table itself, its kinds of answer kept as literal types for ListUpdateCall. */
const TABLE = {
  SearchHashes: {
    id: 'SearchHashes',
    protocol: 'v5',
    httpMethod: 'GET',
    paths: ['hashes:search'],
    requestSchema: v5.SearchHashesRequestSchema,
    responseSchema: v5.SearchHashesResponseSchema,
    answer: { holds: 'search' },
  },
  GetHashList: {
    id: 'GetHashList',
    protocol: 'v5',
    httpMethod: 'GET',
    // The published path is singular `hashList/{name}` (the npm client uses it); the resource pattern
    // is `hashLists/{hash_list}` (docs/api.md §1), so sbkit serves both.
    paths: ['hashList/{name}', 'hashLists/{name}'],
    requestSchema: v5.GetHashListRequestSchema,
    responseSchema: v5.HashListSchema,
    answer: { holds: 'list update', listsNamed: (request) => [request.name] },
  },
  ListHashLists: {
    id: 'ListHashLists',
    protocol: 'v5',
    httpMethod: 'GET',
    paths: ['hashLists'],
    requestSchema: v5.ListHashListsRequestSchema,
    responseSchema: v5.ListHashListsResponseSchema,
    answer: { holds: 'list listing' },
  },
  BatchGetHashLists: {
    id: 'BatchGetHashLists',
    protocol: 'v5',
    httpMethod: 'GET',
    paths: ['hashLists:batchGet'],
    requestSchema: v5.BatchGetHashListsRequestSchema,
    responseSchema: v5.BatchGetHashListsResponseSchema,
    answer: { holds: 'list update', listsNamed: (request) => request.names },
  },
  SearchUrls: {
    id: 'SearchUrls',
    protocol: 'v5',
    httpMethod: 'GET',
    paths: ['urls:search'],
    requestSchema: v5.SearchUrlsRequestSchema,
    responseSchema: v5.SearchUrlsResponseSchema,
    answer: { holds: 'search' },
  },
  FetchThreatListUpdates: {
    id: 'FetchThreatListUpdates',
    protocol: 'v4',
    httpMethod: 'POST',
    paths: ['threatListUpdates:fetch'],
    requestSchema: v4.FetchThreatListUpdatesRequestSchema,
    responseSchema: v4.FetchThreatListUpdatesResponseSchema,
    answer: {
      holds: 'list update',
      listsNamed: (request) =>
        request.listUpdateRequests.map((list) => listNameForV4(list.threatType, list.platformType, list.threatEntryType)),
    },
  },
  FindFullHashes: {
    id: 'FindFullHashes',
    protocol: 'v4',
    httpMethod: 'POST',
    paths: ['fullHashes:find'],
    requestSchema: v4.FindFullHashesRequestSchema,
    responseSchema: v4.FindFullHashesResponseSchema,
    answer: { holds: 'search' },
  },
  FindThreatMatches: {
    id: 'FindThreatMatches',
    protocol: 'v4',
    httpMethod: 'POST',
    paths: ['threatMatches:find'],
    requestSchema: v4.FindThreatMatchesRequestSchema,
    responseSchema: v4.FindThreatMatchesResponseSchema,
    answer: { holds: 'search' },
  },
  ListThreatLists: {
    id: 'ListThreatLists',
    protocol: 'v4',
    httpMethod: 'GET',
    paths: ['threatLists'],
    requestSchema: EmptySchema,
    responseSchema: v4.ListThreatListsResponseSchema,
    answer: { holds: 'list listing' },
  },
  CreateThreatHit: {
    id: 'CreateThreatHit',
    protocol: 'v4',
    httpMethod: 'POST',
    paths: ['threatHits'],
    requestSchema: v4.ThreatHitSchema,
    responseSchema: EmptySchema,
    answer: { holds: 'acknowledgement' },
  },
  ComputeThreatListDiff: {
    id: 'ComputeThreatListDiff',
    protocol: 'webrisk',
    httpMethod: 'GET',
    paths: ['threatLists:computeDiff'],
    requestSchema: webrisk.ComputeThreatListDiffRequestSchema,
    responseSchema: webrisk.ComputeThreatListDiffResponseSchema,
    answer: { holds: 'list update', listsNamed: (request) => [webRiskListAlias(request.threatType)] },
  },
  SearchUris: {
    id: 'SearchUris',
    protocol: 'webrisk',
    httpMethod: 'GET',
    paths: ['uris:search'],
    requestSchema: webrisk.SearchUrisRequestSchema,
    responseSchema: webrisk.SearchUrisResponseSchema,
    answer: { holds: 'search' },
  },
  WebRiskSearchHashes: {
    id: 'WebRiskSearchHashes',
    protocol: 'webrisk',
    httpMethod: 'GET',
    paths: ['hashes:search'],
    requestSchema: webrisk.SearchHashesRequestSchema,
    responseSchema: webrisk.SearchHashesResponseSchema,
    answer: { holds: 'search' },
  },
  CreateSubmission: {
    id: 'CreateSubmission',
    protocol: 'webrisk',
    httpMethod: 'POST',
    paths: ['projects/{project}/submissions'],
    bodyField: 'submission',
    requestSchema: webrisk.CreateSubmissionRequestSchema,
    responseSchema: webrisk.SubmissionSchema,
    // A submission is kept for the operator alone and says what someone reported: never shared by a cache.
    answer: { holds: 'search' },
  },
} satisfies { readonly [R in RpcId]: Rpc<R> };

export const RPCS: { readonly [R in RpcId]: Rpc<R> } = TABLE;

const ALL_RPCS: readonly AnyRpc[] = Object.values(RPCS);

/** The RPCs whose answers are list updates, as the table says. */
type ListUpdateRpc = { [R in RpcId]: (typeof TABLE)[R]['answer']['holds'] extends 'list update' ? R : never }[RpcId];
/** A call for a list update: GetHashList, BatchGetHashLists, FetchThreatListUpdates. */
type ListUpdateCall = Extract<RpcCall, { rpc: ListUpdateRpc }>;

/** True for a call whose answer is a list update. */
export function isListUpdate(call: RpcCall): call is ListUpdateCall {
  return RPCS[call.rpc].answer.holds === 'list update';
}

function listsNamedIn<R extends RpcId>(rpc: R, request: RpcRequest<R>): readonly (string | undefined)[] {
  const answer = RPCS[rpc].answer;
  return answer.holds === 'list update' ? answer.listsNamed(request) : [];
}

/**
 * The lists a list update names, in the order its answer gives them (a name as sent, or undefined for a
 * v4 triple that names none); none for any other call.
 */
export function listsNamedBy(call: RpcCall): readonly (string | undefined)[] {
  return listsNamedIn(call.rpc, call.request);
}

export interface RouteMatch {
  rpc: AnyRpc;
  apiVersion: ApiVersion;
  /** The `{name}` path segment of GetHashList, checked by checkListName. */
  listName: string | undefined;
  /** The `{project}` path segment of a Web Risk resource. */
  project?: string;
  /** The serialized request of a v4 `encodedUpdates/…` or `encodedFullHashes/…` GET, base64. */
  encodedRequest?: string;
  /** The path pattern matched, e.g. `/v5/hashList/{name}`: what a log may say of a request's path. */
  pattern: string;
}

/**
 * v4 REST also offers GET forms with the serialized request, base64, as the last path segment
 * (`encodedUpdates.get`, `encodedFullHashes.get`; Google's npm client has both).
 */
const ENCODED_PATHS: readonly (readonly [string, 'FetchThreatListUpdates' | 'FindFullHashes'])[] = [
  ['encodedUpdates/', 'FetchThreatListUpdates'],
  ['encodedFullHashes/', 'FindFullHashes'],
];

const VERSIONED_PATH = /^\/(v5|v5alpha1|v4|v1)\/(.*)$/s;
const NAME_SEGMENT = '{name}';
const PROJECT_SEGMENT = '{project}';
/** A Google Cloud project ID or number, as resource names carry it. */
const PROJECT = /^[a-z0-9][a-z0-9.:-]{0,62}$/;

/**
 * Finds the RPC for a request. `path` is the request path without its query string, as sent
 * (percent-escapes are decoded here). Throws NOT_FOUND for unknown paths, 405 for a known path with
 * the wrong method, and INVALID_ARGUMENT for an unusable list name.
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const decoded = decodePath(path);
  const versioned = VERSIONED_PATH.exec(decoded);
  if (versioned === null) throw notFound(path);
  const apiVersion = versioned[1] as ApiVersion;
  const rest = versioned[2] ?? '';
  const protocol = PROTOCOL_OF[apiVersion];
  for (const [prefix, id] of protocol === 'v4' ? ENCODED_PATHS : []) {
    if (!rest.startsWith(prefix) || rest.length === prefix.length) continue;
    if (method !== 'GET') throw WireError.methodNotAllowed(method, path, ['GET']);
    return {
      rpc: RPCS[id],
      apiVersion,
      listName: undefined,
      encodedRequest: rest.slice(prefix.length),
      pattern: `/${apiVersion}/${prefix}{request}`,
    };
  }
  for (const rpc of ALL_RPCS) {
    if (rpc.protocol !== protocol) continue;
    for (const pattern of rpc.paths) {
      const segment = matchPattern(pattern, rest);
      if (segment === null) continue;
      if (method !== rpc.httpMethod) throw WireError.methodNotAllowed(method, path, [rpc.httpMethod]);
      if (pattern.includes(PROJECT_SEGMENT)) {
        if (!PROJECT.test(segment!)) {
          throw new WireError('INVALID_ARGUMENT', `the project in the path must be a project ID or number, e.g. projects/my-project`);
        }
        return { rpc, apiVersion, listName: undefined, project: segment!, pattern: `/${apiVersion}/${pattern}` };
      }
      if (segment !== undefined) checkListName(segment, 'the list name in the path');
      return { rpc, apiVersion, listName: segment, pattern: `/${apiVersion}/${pattern}` };
    }
  }
  throw notFound(path);
}

/**
 * null: no match; undefined: a match of a pattern without a segment; a string: the `{name}` or
 * `{project}` segment (maybe invalid). A project is one path segment; a list name is the rest of the path.
 */
function matchPattern(pattern: string, rest: string): string | undefined | null {
  const placeholder = pattern.endsWith(NAME_SEGMENT) ? NAME_SEGMENT : pattern.includes(PROJECT_SEGMENT) ? PROJECT_SEGMENT : undefined;
  if (placeholder === undefined) return pattern === rest ? undefined : null;
  const at = pattern.indexOf(placeholder);
  const prefix = pattern.slice(0, at);
  const suffix = pattern.slice(at + placeholder.length);
  if (!rest.startsWith(prefix) || !rest.endsWith(suffix) || rest.length <= prefix.length + suffix.length) return null;
  const segment = rest.slice(prefix.length, rest.length - suffix.length);
  return placeholder === PROJECT_SEGMENT && segment.includes('/') ? null : segment;
}

/** The path of an RPC for a client to call, e.g. `/v5/hashList/se-4b`. */
export function rpcPath(rpc: AnyRpc, apiVersion: ApiVersion, listName?: string): string {
  if (rpc.protocol !== PROTOCOL_OF[apiVersion]) {
    throw new TypeError(`${rpc.id} is a ${rpc.protocol} RPC; it has no ${apiVersion} path`);
  }
  const pattern = rpc.paths[0];
  if (pattern.includes(PROJECT_SEGMENT)) throw new TypeError(`${rpc.id} needs a project for its path; sbkit's client does not call it`);
  if (!pattern.endsWith(NAME_SEGMENT)) return `/${apiVersion}/${pattern}`;
  if (listName === undefined) throw new TypeError(`${rpc.id} needs a list name for its path`);
  checkListName(listName, 'the list name');
  return `/${apiVersion}/${pattern.slice(0, -NAME_SEGMENT.length)}${listName}`;
}

function decodePath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    throw new WireError('INVALID_ARGUMENT', 'the request path has a malformed percent-escape');
  }
}

function notFound(path: string): WireError {
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  return new WireError(
    'NOT_FOUND',
    `no Safe Browsing method at ${JSON.stringify(shown)}; paths look like /v5/hashes:search, /v5/hashLists:batchGet, /v4/threatListUpdates:fetch or, for Web Risk, /v1/threatLists:computeDiff`,
  );
}
