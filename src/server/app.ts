import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { RpcCall } from '../wire/routes.ts';
import { decodeWireRequest, DEFAULT_MAX_BODY_BYTES } from '../wire/server-request.ts';
import { encodeWireResponse } from '../wire/server-response.ts';
import { renderWireError, WireError } from '../wire/wire-error.ts';
import { answerCall, LIST_RPCS } from './api/dispatch.ts';
import { listNameForV4 } from './api/v4.ts';
import { catalogFullHashes, type FullHashSource } from './api/full-hash-source.ts';
import { type ApiSettings, DEFAULT_API_SETTINGS } from './api/settings.ts';
import type { ListCatalog } from './catalog.ts';
import { isOperatorPath, type LoadControl } from './guard/load-control.ts';
import { refusal } from './guard/refusal.ts';
import { registerWebRoutes } from './web/web-routes.ts';
import type { GatewayKeys } from './ohttp/key-ring.ts';
import { registerGatewayRoutes } from './ohttp/gateway-routes.ts';

export interface AppOptions {
  /** The lists served, with their versions. */
  catalog: ListCatalog;
  /** Where searches find full hashes: the catalog's own lists unless a proxy passes its upstream. */
  fullHashes?: FullHashSource;
  /** The waits and cache durations the answers carry (SB-12, SB-8). */
  settings?: Partial<ApiSettings>;
  /** When non-empty, every API request must carry one of these as `key=` (as Google requires). */
  apiKeys?: readonly string[];
  /** Largest request body or `$req` payload, in bytes. */
  maxBodyBytes?: number;
  /** Operator endpoints (`/admin/pause`, `/admin/resume`, `/admin/reload`) answer only this bearer token. */
  adminToken?: string | undefined;
  /** What `/admin/reload` does: load the lists' feeds again. */
  reload?: () => Promise<unknown>;
  /** The load-control gate (LC-1..5) in front of every route, with its metrics at `/metrics`. */
  loadControl?: LoadControl;
  /** What the server serves, in words, for the status page (e.g. the configuration file). */
  serving?: string;
  /** Verdicts come from Google's data (a proxy of Google's server): the pages attribute them (SB-3). */
  googleData?: boolean;
  /**
   * False for a list not yet fit to serve (a proxy's before its first copy of the upstream's): requests
   * for it get 503 with Retry-After rather than an empty list that looks final.
   */
  listReady?: (name: string) => boolean;
  /** Serve as an Oblivious HTTP gateway (SB-2) with these keys: `/ohttp-keys`, `/ohttp-gateway`. */
  ohttpKeys?: GatewayKeys;
}

const PAUSED_RETRY_AFTER_SECONDS = 60;
/** RF-2 puts a mirror's first update within a minute of its start. */
const LISTS_PENDING_RETRY_AFTER_SECONDS = 60;
/** The lists whose contents a call asks for (by their names in the catalog; aliases resolved). */
function listsAskedFor(call: RpcCall, catalog: ListCatalog): string[] {
  let names: string[];
  if (call.rpc === 'GetHashList') names = [call.request.name];
  else if (call.rpc === 'BatchGetHashLists') names = call.request.names;
  else if (call.rpc === 'FetchThreatListUpdates')
    names = call.request.listUpdateRequests.flatMap((r) => listNameForV4(r.threatType, r.platformType, r.threatEntryType) ?? []);
  else return [];
  return names.flatMap((name) => catalog.get(name)?.definition.name ?? []);
}
/** Largest request line and headers: room for a 1000-prefix search in the query string. */
const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

/** Constant-time comparison, so that response times do not spell out the token. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The operator's endpoints, behind the admin token; without a token configured they do not exist. */
function registerOperatorEndpoints(app: FastifyInstance, options: AppOptions, switches: { pause(): void; resume(): void }): void {
  const token = options.adminToken;
  if (token === undefined) return;
  const guard = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (tokenMatches(request.headers.authorization, token)) return true;
    void sendError(reply, new WireError('UNAUTHENTICATED', 'operator endpoints need "Authorization: Bearer <admin token>"'));
    return false;
  };
  app.post('/admin/pause', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    switches.pause();
    return { status: 'paused' };
  });
  app.post('/admin/resume', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    switches.resume();
    return { status: 'ok' };
  });
  app.post('/admin/reload', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    if (options.reload === undefined)
      return sendError(
        reply,
        new WireError(
          'FAILED_PRECONDITION',
          'this server has no feeds to reload (it serves the embedded demo lists, or mirrors an upstream)',
        ),
      );
    return { reloaded: await options.reload() };
  });
}

/** The bytes as a Buffer for fastify, without copying them. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function sendError(reply: FastifyReply, error: WireError): FastifyReply {
  const rendered = renderWireError(error);
  return reply.code(rendered.httpStatus).headers(rendered.headers).send(Buffer.from(rendered.body));
}

/** Google refuses calls without a key with 403 and calls with an unknown key with 400. */
function checkApiKey(keys: ReadonlySet<string>, key: string | undefined): void {
  if (keys.size === 0) return;
  if (key === undefined || key === '') {
    throw new WireError('PERMISSION_DENIED', "Method doesn't allow unregistered callers. Please use an API key (key=) to call this API.");
  }
  if (!keys.has(key)) throw new WireError('INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
}

/**
 * The HTTP application: every path of the v5 and v4 REST surface goes through the wire layer, which
 * parses all request forms of docs/api.md §3 and chooses the answer's encoding; errors are Google-style.
 */
export function createApp(options: AppOptions): FastifyInstance {
  const settings: ApiSettings = { ...DEFAULT_API_SETTINGS, ...options.settings };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const keys = new Set(options.apiKeys ?? []);
  const source = options.fullHashes ?? catalogFullHashes(options.catalog, settings);
  // docs/api.md allows 1000 prefixes in one hashes:search, a GET: about 26 KB of query string, over Node's
  // 16 KB default for the request head.
  const app = Fastify({ logger: false, bodyLimit: maxBodyBytes, http: { maxHeaderSize: MAX_REQUEST_HEAD_BYTES } });
  // LC-5 `service_paused`: the operator's switch that refuses everything with 503.
  let paused = false;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error.statusCode === 413) return sendError(reply, WireError.payloadTooLarge('the request body', maxBodyBytes + 1, maxBodyBytes));
    if (error.statusCode !== undefined && error.statusCode < 500) return sendError(reply, new WireError('INVALID_ARGUMENT', error.message));
    return sendError(reply, new WireError('INTERNAL', 'the server failed to answer; try again later'));
  });

  // Methods no route takes (PUT, DELETE, OPTIONS…): the wire layer says 405 with Allow for an API path
  // and 404 for anything else, Google-style, like every other refusal.
  app.setNotFoundHandler(async (request, reply) => {
    try {
      decodeWireRequest({ method: request.method, url: request.url, headers: request.headers, body: new Uint8Array(0) }, { maxBodyBytes });
    } catch (err) {
      if (err instanceof WireError) return sendError(reply, err);
      throw err;
    }
    return sendError(reply, new WireError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]} is not served here`));
  });

  const loadControl = options.loadControl;
  const adminEndpoints = options.adminToken !== undefined;
  if (loadControl !== undefined) {
    loadControl.register(app, () => paused, adminEndpoints);
    app.get('/metrics', async (_request, reply) =>
      reply.header('content-type', loadControl.metrics.contentType).send(await loadControl.metrics.metrics()),
    );
  }
  if (loadControl === undefined) {
    // Without load control, pausing (LC-5 service_paused) still refuses everything but the operator's paths.
    app.addHook('onRequest', async (request, reply) => {
      if (!paused || isOperatorPath(request.url, adminEndpoints)) return undefined;
      const answer = refusal('paused', PAUSED_RETRY_AFTER_SECONDS, request.url, request.headers);
      return reply.code(answer.status).headers(answer.headers).send(Buffer.from(answer.body));
    });
  }
  app.get('/healthz', async () => ({ status: paused ? 'paused' : 'ok' }));
  if (options.ohttpKeys !== undefined) registerGatewayRoutes(app, options.ohttpKeys);
  registerWebRoutes(app, {
    catalog: options.catalog,
    source,
    loadControl,
    serving: options.serving ?? 'its lists',
    googleData: options.googleData ?? false,
  });
  registerOperatorEndpoints(app, options, {
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/*',
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const body = Buffer.isBuffer(request.body) ? request.body : new Uint8Array(0);
        const call = decodeWireRequest(
          { method: request.method, url: request.url, headers: request.headers, body },
          { maxBodyBytes, checkApiKey: (key) => checkApiKey(keys, key) },
        );
        const listReady = options.listReady;
        const pending = listReady === undefined ? [] : listsAskedFor(call, options.catalog).filter((name) => !listReady(name));
        if (pending.length > 0) {
          reply.header('retry-after', String(LISTS_PENDING_RETRY_AFTER_SECONDS));
          throw new WireError('UNAVAILABLE', `this server has no copy of the upstream's ${pending.join(', ')} yet; try again in a minute`);
        }
        const answer = await answerCall(options.catalog, source, call, settings);
        const payload = encodeWireResponse(call.rpc, answer as never, call.responseEncoding);
        if (LIST_RPCS.has(call.rpc)) reply.header('cache-control', `public, max-age=${settings.listCacheSeconds}`);
        return reply.code(200).header('content-type', payload.contentType).send(asBuffer(payload.body));
      } catch (err) {
        if (err instanceof WireError) return sendError(reply, err);
        throw err;
      }
    },
  });
  return app;
}
