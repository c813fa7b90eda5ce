// The API: every path of the v5, v4 and Web Risk v1 REST surface that no other route takes. A request is decoded by
// the wire layer (all request forms of docs/api.md §3, the API key checked before the payload, as
// Google does), answered from the catalog and the full-hash source, and encoded as the wire layer
// chose from the request. Answers say who may keep them and for how long (answer-caching.ts); a list
// answer to a GET carries a strong ETag (list-etag.ts), and a request naming it in If-None-Match gets
// 304 without the answer being computed.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../time/clock.ts';
import { listsNamedBy, type RpcCall, RPCS } from '../../wire/rest/routes.ts';
import { encodeWireResponse } from '../../wire/rest/server-response.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListCatalog } from '../catalog.ts';
import { asBuffer, EVERY_ANSWER_HEADERS, sendWireError } from '../http/replies.ts';
import { answerCall, type Caller } from './dispatch.ts';
import type { Submissions } from '../operator/submissions.ts';
import { SearchAnswers } from './answers/search-answers.ts';
import { type FullHashSource, searchesOf } from './full-hash-source.ts';
import type { Requester } from '../guard/requester.ts';
import type { ApiSettings } from './settings.ts';
import { cacheControlOf, ifNoneMatchMatches, listCacheControl, varyOf } from './answers/answer-caching.ts';
import { encodedAnswers } from './answers/encoded-answers.ts';
import { ListAnswerTags } from './answers/list-etag.ts';
import { answerFormOf } from './answers/answer-form.ts';
import { DecodedRequests } from './answers/decoded-requests.ts';
import { refuseUnknownLists } from './unknown-lists.ts';

/**
 * Why requests for a list get 503 now rather than its contents: a proxy's list before its first copy of
 * the upstream's, or whose copy is not current (proxy/copy-currency.ts). An empty list, or an old one
 * with a fresh minimum wait, would look final to clients and reset their staleness clock.
 */
export interface ListUnavailable {
  /**
   * Whether a copy is held at all: a listing (`GET /v5/hashLists`, v4 `threatLists`) still names a list
   * whose copy is not current, since it says which lists exist, not what they hold.
   */
  held: boolean;
  /** Why, naming the list, for the answer's message. */
  reason: string;
  /** When to ask again: the answer's Retry-After. */
  retryAfterSeconds: number;
}

export interface ApiRouteOptions {
  /** Sends the 503 of a paused server without load control and says so (app.ts); the API's path has no hook for it. */
  refusedWhilePaused: (request: FastifyRequest, reply: FastifyReply) => boolean;
  catalog: ListCatalog;
  source: FullHashSource;
  settings: ApiSettings;
  /** When non-empty, every call must carry one of these as `key=`. */
  apiKeys: ReadonlySet<string>;
  maxBodyBytes: number;
  /** Why a list cannot be served now, or undefined when it can (a proxy's, ListUnavailable). */
  listUnavailable: ((name: string) => ListUnavailable | undefined) | undefined;
  /** Who a request comes from, for the searches it makes of the source. */
  requesterOf: (request: FastifyRequest) => Requester;
  /** Whose time decides whether a list is changing (its minimum wait, SB-12). */
  clock: Clock;
  /** Where Web Risk submissions are kept for the operator. */
  submissions: Submissions;
  /** The client's address, as load control names it: what a submission records of who sent it. */
  clientOf: (request: FastifyRequest) => string;
}

/**
 * The headers of an answer: its type, who may keep it and what it varies on, and what every answer
 * carries (replies.ts). Set here rather than by hooks, so that the API's path has none (app.ts points
 * here). What they would cost its busiest request, Firefox's one-prefix hashes:search, measured with
 * inject() on fastify 5 (2026-11-28, a loaded 2-core machine): the pages' three hooks about 0.6 µs of
 * its 140 µs of CPU, under a hundredth (128 pairs of their onSend hooks added 76 µs; the three alone
 * 0.2 µs, give or take 2.6).
 */
function answerHeaders(contentType: string, cacheControl: string, vary: string): Record<string, string> {
  return { 'content-type': contentType, 'cache-control': cacheControl, vary, ...EVERY_ANSWER_HEADERS };
}

/** Google refuses calls without a key with 403 and calls with an unknown key with 400. */
function checkApiKey(keys: ReadonlySet<string>, key: string | undefined): void {
  if (keys.size === 0) return;
  if (key === undefined || key === '') {
    throw new WireError('PERMISSION_DENIED', "Method doesn't allow unregistered callers. Please use an API key (key=) to call this API.");
  }
  if (!keys.has(key)) throw new WireError('INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
}

/** The lists whose contents a call asks for (by their names in the catalog; aliases resolved). */
function listsAskedFor(call: RpcCall, catalog: ListCatalog): string[] {
  // Naming the lists says the upstream has them, which a proxy knows only once it has a copy: clients
  // keep a name they were told exists (their listing decides which lists they keep).
  const names =
    RPCS[call.rpc].answer.holds === 'list listing' ? catalog.all().map((history) => history.definition.name) : listsNamedBy(call);
  return names.flatMap((name) => (name === undefined ? [] : (catalog.get(name)?.definition.name ?? [])));
}

/**
 * Throws UNAVAILABLE with Retry-After when a list the call asks for cannot be served now, naming each
 * and why, so that clients count the lists as not current (and back off, RF-4) instead of taking them.
 */
function refuseUnavailableLists(listUnavailable: (name: string) => ListUnavailable | undefined, call: RpcCall, catalog: ListCatalog): void {
  const listing = RPCS[call.rpc].answer.holds === 'list listing';
  const unavailable = listsAskedFor(call, catalog).flatMap((name) => {
    const why = listUnavailable(name);
    return why === undefined || (listing && why.held) ? [] : [why];
  });
  if (unavailable.length === 0) return;
  const retryAfterSeconds = Math.max(...unavailable.map((why) => why.retryAfterSeconds));
  throw new WireError('UNAVAILABLE', `${unavailable.map((why) => why.reason).join('; ')}; try again in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
  });
}

export function registerApiRoute(app: FastifyInstance, options: ApiRouteOptions): void {
  const {
    catalog,
    source,
    settings,
    apiKeys,
    maxBodyBytes,
    listUnavailable,
    requesterOf,
    refusedWhilePaused,
    clock,
    submissions,
    clientOf,
  } = options;
  const answers = encodedAnswers();
  const decoded = new DecodedRequests();
  const tags = new ListAnswerTags();
  const searchAnswers = new SearchAnswers(catalog, source, settings);
  const decoding = { maxBodyBytes, checkApiKey: (key: string | undefined) => checkApiKey(apiKeys, key) };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (refusedWhilePaused(request, reply)) return reply;
    try {
      const body = Buffer.isBuffer(request.body) ? request.body : new Uint8Array(0);
      const call = decoded.decode(
        // Node gives header names in lower case.
        {
          method: request.method === 'HEAD' ? 'GET' : request.method,
          url: request.url,
          headers: request.headers,
          headerNamesLowerCase: true,
          body,
        },
        decoding,
      );
      // Before the tag: a refusal carries none, and no If-None-Match may turn it into a 304.
      refuseUnknownLists(catalog, call);
      if (listUnavailable !== undefined) refuseUnavailableLists(listUnavailable, call, catalog);
      // The tag and the answer see the same catalog at the same moment: a list answer is computed without awaiting anything.
      const now = clock.now();
      const { responseEncoding, enumsAsNumbers } = call;
      const caller = (): Caller => ({ submissions, client: clientOf(request) });
      const tag = tags.tagOf(catalog, call, answerFormOf(responseEncoding, enumsAsNumbers), settings, now);
      if (tag !== undefined) {
        // Only GETs (and HEADs) carry the tag: caches keep nothing else, and a conditional POST would ask
        // for 412, not 304 (RFC 9110 §13.1.2). POSTs still get the encoded answer kept under it.
        const conditional = request.method === 'GET' || request.method === 'HEAD';
        if (conditional && ifNoneMatchMatches(request.headers['if-none-match'], tag)) {
          // RFC 9110 §15.4.5: a 304 carries the validator and the caching headers the 200 would have.
          return reply
            .code(304)
            .headers({
              ...EVERY_ANSWER_HEADERS,
              etag: tag,
              'cache-control': listCacheControl(settings, call.rpc),
              vary: varyOf(reply.getHeader('vary')),
            })
            .send();
        }
        let payload = answers.get(tag);
        if (payload === undefined) {
          const answer = await answerCall(catalog, searchesOf(source, requesterOf(request)), call, settings, now, caller());
          payload = answers.keep(tag, encodeWireResponse(call.rpc, answer, responseEncoding, enumsAsNumbers));
        }
        if (conditional) reply.header('etag', tag);
        return reply
          .code(200)
          .headers(answerHeaders(payload.contentType, listCacheControl(settings, call.rpc), varyOf(reply.getHeader('vary'))))
          .send(asBuffer(payload.body));
      }
      const searched = searchAnswers.answer(call, responseEncoding, enumsAsNumbers);
      if (searched !== undefined) {
        return reply
          .code(200)
          .headers(answerHeaders(searched.payload.contentType, searched.cacheControl, varyOf(reply.getHeader('vary'))))
          .send(asBuffer(searched.payload.body));
      }
      const answer = await answerCall(catalog, searchesOf(source, requesterOf(request)), call, settings, now, caller());
      const payload = encodeWireResponse(call.rpc, answer, responseEncoding, enumsAsNumbers);
      return reply
        .code(200)
        .headers(answerHeaders(payload.contentType, cacheControlOf(call.rpc, answer, settings), varyOf(reply.getHeader('vary'))))
        .send(asBuffer(payload.body));
    } catch (err) {
      if (err instanceof WireError) return sendWireError(reply, err);
      throw err;
    }
  };
  // HEAD as GET without the body (RFC 9110 §9.3.2), its ETag included: caches and monitors ask with it.
  app.route({ method: ['GET', 'HEAD', 'POST'], url: '/*', handler });
}
