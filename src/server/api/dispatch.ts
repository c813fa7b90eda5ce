// Which function answers each RPC of the route table (wire/rest/routes.ts): list data from the catalog,
// searches from the full-hash source. Typed by the table, so that an RPC's answer is its response
// message: the caller encodes it as that RPC's without a cast.

import { create } from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import type { RpcCallOf, RpcId, RpcRequest, RpcResponse } from '../../wire/rest/routes.ts';
import type { ListCatalog } from '../catalog.ts';
import type { Submissions } from '../operator/submissions.ts';
import type { FullHashSource } from './full-hash-source.ts';
import type { ApiSettings } from './settings.ts';
import * as v4 from './v4.ts';
import * as v5 from './v5.ts';
import * as webRisk from './web-risk.ts';

/** What an answer is worked out from. */
interface AnswerSources {
  catalog: ListCatalog;
  source: FullHashSource;
  settings: ApiSettings;
  /** Wall time, ms: list answers' waits depend on it. */
  now: number;
  /** Who asks, and where their reports are kept. */
  caller: Caller;
}

/** The caller of an API call, as a Web Risk submission records it. */
export interface Caller {
  /** Where submissions are kept for the operator. */
  submissions: Submissions;
  /** The client's address. */
  client: string;
}

type Answerers = {
  readonly [R in RpcId]: (request: RpcRequest<R>, from: AnswerSources) => RpcResponse<R> | Promise<RpcResponse<R>>;
};

const ANSWERERS: Answerers = {
  SearchHashes: (request, { source }) => v5.searchHashes(source, request),
  GetHashList: (request, { catalog, settings, now }) => v5.getHashList(catalog, request, settings, now),
  BatchGetHashLists: (request, { catalog, settings, now }) => v5.batchGetHashLists(catalog, request, settings, now),
  ListHashLists: (request, { catalog }) => v5.listHashLists(catalog, request),
  SearchUrls: (request, { source, settings }) => v5.searchUrls(source, request, settings),
  FetchThreatListUpdates: (request, { catalog, settings, now }) => v4.fetchThreatListUpdates(catalog, request, settings, now),
  FindFullHashes: (request, { catalog, source }) => v4.findFullHashes(catalog, source, request),
  FindThreatMatches: (request, { catalog, source, settings }) => v4.findThreatMatches(catalog, source, request, settings),
  ListThreatLists: (_request, { catalog }) => v4.listThreatLists(catalog),
  // Firefox reports hits only when data sharing is on; they are acknowledged and not kept.
  CreateThreatHit: () => create(EmptySchema),
  ComputeThreatListDiff: (request, { catalog, settings, now }) => webRisk.computeThreatListDiff(catalog, request, settings, now),
  SearchUris: (request, { catalog, source, settings, now }) => webRisk.searchUris(catalog, source, request, settings, now),
  WebRiskSearchHashes: (request, { catalog, source, now }) => webRisk.webRiskSearchHashes(catalog, source, request, now),
  CreateSubmission: (request, { caller, now }) => webRisk.createSubmission(caller.submissions, request, caller.client, now),
};

/** Answers one decoded API call of `caller` at `now` (wall time, ms) with its RPC's response message. */
export async function answerCall<R extends RpcId>(
  catalog: ListCatalog,
  source: FullHashSource,
  call: RpcCallOf<R>,
  settings: ApiSettings,
  now: number,
  caller: Caller,
): Promise<RpcResponse<R>> {
  return ANSWERERS[call.rpc](call.request, { catalog, source, settings, now, caller });
}
