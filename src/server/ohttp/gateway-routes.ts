// The Oblivious Gateway Resource (SB-2, RFC 9458 §5): `GET /ohttp-keys` publishes the key
// configurations, `POST /ohttp-gateway` takes `message/ohttp-req`, decrypts the binary HTTP request
// inside, serves it through the same handlers as the plain API (an API path only), and answers
// `message/ohttp-res`. What cannot be used gets a 4xx problem, never a crash; a request whose HPKE
// encapsulation was seen before is refused as a replay.
//
// Who may read a refusal: what fails before decryption (media type, size, a malformed encapsulation, an
// unknown key) and replays (the relay saw the same bytes before) are told in the clear, as problems
// with their codes; the relay learns nothing it did not know. Everything about the decrypted request
// (binary HTTP that cannot be read, a path or method not served, the API's own answers, a failure while
// serving it) is answered inside the encapsulation, and never quotes the request: only its sender can
// read the answer, and even it is told what is wrong, not shown its bytes again.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decapsulateRequest, encapsulateResponse, encodeKeyConfigs, KEY_PROBLEM_TYPE } from '../../wire/ohttp/ohttp.ts';
import { type BinaryHttpResponse, decodeBinaryHttpRequest, encodeBinaryHttpResponse, padded } from '../../wire/ohttp/binary-http.ts';
import { BinaryHttpError, OhttpError, WireError } from '../../wire/wire-error.ts';
import { BoundedMap } from '../../store/bounded-map.ts';
import { INNER_REQUEST_ADDRESS, OUTER_FORWARDED_FOR_HEADER, OUTER_PEER_HEADER } from '../inner-request.ts';
import { type GatewayKeys, GatewayKeysUnavailableError } from './key-ring.ts';

const API_PATH = /^\/v(?:4|5|5alpha1)\//;
const MAX_REQUEST_BYTES = 64 * 1024;
/**
 * Encapsulations remembered to refuse replays: an `enc` is fresh randomness for every honest request.
 * Bounded by count, and per instance: a replay after this many other requests, or to another
 * instance, is not recognised (RFC 9458 §6.5 leaves full replay protection to the application).
 */
const REMEMBERED_ENCAPSULATIONS = 200_000;
/** Request headers passed to the API handlers; everything else stays outside (it could identify the client). */
const PASSED_HEADERS = new Set(['accept', 'content-type', 'x-goog-api-key', 'x-goog-api-client']);

/**
 * The gateway's routes on `app`; `api`, the application whose API answers the inner requests (`app`
 * itself, or the application `app` is a scope of).
 */
export function registerGatewayRoutes(app: FastifyInstance, keys: GatewayKeys, api: FastifyInstance = app): void {
  const seen = new BoundedMap<string, true>(REMEMBERED_ENCAPSULATIONS);

  app.get('/ohttp-keys', async (_request, reply) => {
    let configs;
    try {
      configs = await keys.configs();
    } catch (error) {
      if (!(error instanceof GatewayKeysUnavailableError)) throw error;
      return keysUnavailable(reply, error);
    }
    return reply
      .header('content-type', 'application/ohttp-keys')
      .header('cache-control', `public, max-age=${keys.secondsUntilRotation()}`)
      .send(Buffer.from(encodeKeyConfigs(configs)));
  });

  app.post('/ohttp-gateway', async (request, reply) => {
    if (request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() !== 'message/ohttp-req') {
      return refusal(reply, 415, new OhttpError('media-type', 'send the encapsulated request as Content-Type: message/ohttp-req'));
    }
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (body.length > MAX_REQUEST_BYTES)
      return refusal(reply, 413, new OhttpError('too-large', `an encapsulated request has at most ${MAX_REQUEST_BYTES} bytes`));
    let decapsulated;
    try {
      decapsulated = await decapsulateRequest(await keys.keys(), body);
    } catch (error) {
      if (error instanceof GatewayKeysUnavailableError) return keysUnavailable(reply, error);
      if (!(error instanceof OhttpError)) throw error;
      // RFC 9458 §5.3: an unknown key is told apart, so that clients fetch the configuration again.
      return refusal(reply, 400, error, error.reason === 'unknown-key' ? KEY_PROBLEM_TYPE : undefined);
    }
    const enc = Buffer.from(decapsulated.context.enc).toString('base64');
    let fresh = false;
    seen.getOrCompute(enc, () => {
      fresh = true;
      return true;
    });
    if (!fresh)
      return refusal(reply, 400, new OhttpError('replay', 'this encapsulated request was received before; a replay is not served'));
    let inner: BinaryHttpResponse;
    try {
      inner = await serveInner(api, decapsulated.request, outerOrigin(request));
    } catch {
      // Whatever failed, its message may hold the request's bytes: the client is told no more than this.
      const failure = new WireError('INTERNAL', 'the gateway failed to serve the encapsulated request; try again later');
      inner = innerProblem(500, failure.message, failure.code);
    }
    // Padded (RFC 9292 §3.8): a hit and a miss must not differ in size on the relay's wire.
    const response = await encapsulateResponse(decapsulated.context, padded(encodeBinaryHttpResponse(inner)));
    return reply.header('content-type', 'message/ohttp-res').send(Buffer.from(response));
  });
}

/**
 * Where the encapsulating request came from, for the inner request to carry: budgets that follow the
 * client's address (a proxy's share of its upstream) must not lump every OHTTP user into one. Only the
 * gateway sets these headers: the inner request's own are filtered to PASSED_HEADERS first, and no
 * outside request has INNER_REQUEST_ADDRESS as its peer.
 */
function outerOrigin(request: FastifyRequest): Record<string, string> {
  const forwardedFor = request.headers['x-forwarded-for'];
  return {
    [OUTER_PEER_HEADER]: request.socket.remoteAddress ?? '',
    ...(forwardedFor === undefined ? {} : { [OUTER_FORWARDED_FOR_HEADER]: String(forwardedFor) }),
  };
}

/** The answer to a decrypted request, to be encapsulated: the API's, or a problem that does not quote the request. */
async function serveInner(app: FastifyInstance, request: Uint8Array, origin: Record<string, string>): Promise<BinaryHttpResponse> {
  let inner;
  try {
    inner = decodeBinaryHttpRequest(request);
  } catch (error) {
    if (!(error instanceof BinaryHttpError)) throw error;
    // The reader's message says where it stopped, and may quote what it found there (a method's letters).
    return innerProblem(400, 'the encapsulated request is not a known-length binary HTTP request (RFC 9292)', error.code);
  }
  const path = apiPath(inner.path);
  if (path === undefined) {
    return { status: 404, headers: [], content: Buffer.from('only the Safe Browsing API (/v5/…, /v4/…) is served through the gateway') };
  }
  if (inner.method !== 'GET' && inner.method !== 'POST') {
    return { status: 405, headers: [], content: Buffer.from('the Safe Browsing API takes GET and POST') };
  }
  const answer = await app.inject({
    method: inner.method,
    url: path,
    headers: { ...Object.fromEntries(inner.headers.filter(([name]) => PASSED_HEADERS.has(name))), ...origin },
    payload: Buffer.from(inner.content),
    remoteAddress: INNER_REQUEST_ADDRESS,
  });
  const headers = ['content-type', 'cache-control', 'retry-after'].flatMap((name) => {
    const value = answer.headers[name];
    return value === undefined ? [] : [[name, String(value)] as [string, string]];
  });
  return { status: answer.statusCode, headers, content: answer.rawPayload };
}

/** An RFC 9457 problem as the inner answer, with the sbkit code as in every error body. */
function innerProblem(status: number, detail: string, code: string): BinaryHttpResponse {
  const body = { title: status >= 500 ? 'Oblivious HTTP request failed' : 'Oblivious HTTP request refused', status, detail, code };
  return { status, headers: [['content-type', 'application/problem+json']], content: Buffer.from(JSON.stringify(body)) };
}

/**
 * The inner request's path and query if it names the API and nothing else: `.` and `..` segments and
 * escaped slashes or dots could make the router serve another path than the one checked.
 */
function apiPath(path: string): string | undefined {
  const queryStart = path.indexOf('?');
  const pathname = queryStart < 0 ? path : path.slice(0, queryStart);
  // The v4 paths that carry a request in the path itself: base64 in the last segment, `/`, `+` and `=`
  // percent-escaped by clients; no dot or slash can hide there.
  if (/^\/v4\/encoded(?:FullHashes|Updates)\/[A-Za-z0-9_+%=-]+$/.test(pathname) && !/%2e|%5c/i.test(pathname)) return path;
  if (!API_PATH.test(pathname) || /(?:^|\/)\.{1,2}(?:\/|$)|%2e|%2f|%5c|\\/i.test(pathname)) return undefined;
  return path;
}

const KEYS_RETRY_AFTER_SECONDS = 10;

/** The keys' keeper says what failed (once); the client is told to come back, not why. */
function keysUnavailable(reply: FastifyReply, error: GatewayKeysUnavailableError): FastifyReply {
  return problem(
    reply.header('retry-after', String(KEYS_RETRY_AFTER_SECONDS)),
    503,
    'the gateway cannot reach its keys just now; try again shortly',
    error.code,
  );
}

function refusal(reply: FastifyReply, status: number, error: OhttpError, type?: string): FastifyReply {
  return problem(reply, status, error.message, error.code, type);
}

/** An RFC 9457 problem; `code`, an extension member (§3.2), is the sbkit code as in every error body. */
function problem(reply: FastifyReply, status: number, detail: string, code: string, type?: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/problem+json')
    .send(JSON.stringify({ ...(type === undefined ? {} : { type }), title: 'Oblivious HTTP request refused', status, detail, code }));
}
