// The server's HTTP application, not yet listening: one fastify application that createApp composes in
// the order a request meets it (the connection's deadlines and caps, cross-origin preflights, load
// control's gate or the pause switch, then the operator's routes, the pages and the Oblivious HTTP
// gateway in a scope with their headers, and the API on every other path), and createOperatorApp, the
// operator's routes on a listener of their own. The request path as a whole, and the file of each step:
// docs/architecture.md, "The server's request path".

import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import { type MonotonicClock, systemClock } from '../../time/clock.ts';
import { decodeWireRequest, DEFAULT_MAX_BODY_BYTES } from '../../wire/rest/server-request.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { ListOperations } from '../operator/admin-entries.ts';
import { type AdminGuard, adminGuard } from '../operator/admin-guard.ts';
import { type ListUnavailable, registerApiRoute } from '../api/api-route.ts';
import { registerCors } from '../api/cors.ts';
import { catalogFullHashes, type FullHashSource } from '../api/full-hash-source.ts';
import type { ApiSettings } from '../api/settings.ts';
import { LiveAccess } from '../api/access.ts';
import type { ListCatalog } from '../catalog.ts';
import type { FeedSourceStatus } from '../feeds/sources/source-status.ts';
import { clientAddress, TrustedProxies } from '../guard/client-address.ts';
import { closeStalledConnections, DEFAULT_HTTP_LIMITS, type HttpLimits, httpServerOptions } from './http-limits.ts';
import { capConnections } from './connection-caps.ts';
import { limitSecureServer, secureServerOptions } from './http2-limits.ts';
import { paceAnswers } from './answer-pace.ts';
import type { LoadControl } from '../guard/load-control.ts';
import { refusal } from '../guard/refusal.ts';
import { isOperatorPath } from '../guard/request-gate.ts';
import { requesterOf } from '../guard/requester.ts';
import { registerGatewayRoutes } from '../ohttp/gateway-routes.ts';
import type { GatewayKeys } from '../ohttp/key-ring.ts';
import type { FailureThrottle } from '../operator/failure-throttle.ts';
import { registerOperatorRoutes } from '../operator/operator-routes.ts';
import { Submissions } from '../operator/submissions.ts';
import { registerNoStoreOnErrors, sendWireError } from './replies.ts';
import type { TlsCredentials } from './tls.ts';
import { registerSecurityHeaders } from '../web/security-headers.ts';
import { RequestHistory } from '../web/request-history.ts';
import { registerWebRoutes } from '../web/web-routes.ts';
import { type LogSink, loggerOf } from '../logger.ts';
import { registerRequestLog, requestIds } from './request-log.ts';

export interface AppOptions {
  /** The lists served, with their versions. */
  catalog: ListCatalog;
  /** Where searches find full hashes: the catalog's own lists unless a proxy passes its upstream. */
  fullHashes?: FullHashSource;
  /** The waits and cache durations the answers carry (SB-12, SB-8). */
  settings?: Partial<ApiSettings>;
  /** When non-empty, every API request must carry one of these as `key=` (as Google requires). */
  apiKeys?: readonly string[];
  /** Origins whose scripts may call the API (`*` for any; `https://mail.example`, `chrome-extension://<id>`); none by default. */
  corsOrigins?: readonly string[];
  /** Largest request body or `$req` payload, in bytes. */
  maxBodyBytes?: number;
  /** Operator endpoints (`/admin/pause`, `/admin/resume`, `/admin/reload`) answer only this bearer token. */
  adminToken?: string | undefined;
  /** What `/admin/reload` does: load the lists' feeds again. */
  reload?: () => Promise<unknown>;
  /** The state of each feed source, for the status page; none for the demo lists and a mirror. */
  feeds?: () => FeedSourceStatus[];
  /** A configuration's lists, for `/admin/reload?list=NAME` and `/admin/lists/NAME/entries` (admin-entries.ts). */
  lists?: ListOperations;
  /** The load-control gate (LC-1..5) in front of every route, with its metrics at `/metrics`. */
  loadControl?: LoadControl;
  /** What the server serves, in words, for the status page (e.g. the configuration file). */
  serving?: string;
  /** Verdicts come from Google's data (a proxy of Google's server): the pages attribute them (SB-3). */
  googleData?: boolean;
  /**
   * Why a list cannot be served now, or undefined when it can (a proxy's before its first copy of the
   * upstream's, or while its copy is not current): requests for its contents get 503 with Retry-After
   * rather than an empty or old list that looks final, and the status page says why.
   */
  listUnavailable?: (name: string) => ListUnavailable | undefined;
  /** Serve as an Oblivious HTTP gateway (SB-2) with these keys: `/ohttp-keys`, `/ohttp-gateway`. */
  ohttpKeys?: GatewayKeys;
  /** Deadlines of a connection's phases and caps on connections; {@link DEFAULT_HTTP_LIMITS} for the others. */
  httpLimits?: Partial<HttpLimits>;
  /**
   * Trusted proxies and Oblivious HTTP relays (addresses and CIDR blocks): each carries many clients, so
   * the cap on connections per address does not apply to them.
   */
  trustedPeers?: readonly string[];
  /** Proxies whose X-Forwarded-For names the client whose failed admin attempts are counted. */
  trustedProxies?: readonly string[];
  /** Where failed admin attempts are told (at most ten lines a minute). */
  log?: LogSink;
  /** Log a line per request (method, route pattern, status, duration, client class, request id): off by default. */
  accessLog?: boolean;
  /** The counts of failed admin attempts; a fresh one with ADMIN_THROTTLE_RULES by default (a test's has its own clock). */
  adminThrottle?: FailureThrottle;
  /**
   * Why the server should not get traffic yet (null: it should): `/readyz` answers 503 with it. Without
   * it the server is always ready. (`/healthz` says whether it runs at all.)
   */
  readiness?: () => string | null;
  /** More Prometheus metrics for `/metrics`, beside load control's (those of the service's Redis connections). */
  metrics?: Registry;
  /** Serve HTTPS with this certificate and key: HTTP/2 and HTTP/1.1 on one port, chosen by ALPN. */
  tls?: TlsCredentials;
  /** Time and timers of every part of the application (deadlines, sweeps, waits, counts); the system's by default. */
  clock?: MonotonicClock;
  /**
   * Where Web Risk submissions are kept, for `/admin/submissions` and the status page's count; shared by
   * the public and the operator's application (createServer makes one). A fresh one by default.
   */
  submissions?: Submissions;
}

/** The operator's pause switch (LC-5 `service_paused`), shared by the public and the operator's application. */
export interface PauseSwitch {
  paused: boolean;
}

/** How the public application relates to the operator's. */
interface OperatorPlacement {
  pause: PauseSwitch;
  /** True: `/admin/*` and `/metrics` are not served here (404) but by {@link createOperatorApp} on its own listener. */
  apart: boolean;
}

/** How long a paused server asks clients to wait. */
const PAUSED_RETRY_AFTER_SECONDS = 60;
/** Largest request line and headers: room for a 1000-prefix search in the query string. */
const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

/** `/healthz`, and the operator's `/metrics` and `/admin/*`, over the pause switch. */
function registerOperatorSurface(
  app: FastifyInstance,
  options: AppOptions,
  pause: PauseSwitch,
  adminAndMetrics: boolean,
  access: LiveAccess,
  guard = operatorGuard(options, access),
): void {
  app.get('/healthz', async () => ({ status: pause.paused ? 'paused' : 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const reason = options.readiness?.() ?? null;
    return reason === null ? { status: 'ready' } : reply.code(503).send({ status: 'not-ready', reason });
  });
  if (!adminAndMetrics) return;
  const registries = [options.loadControl?.metrics, options.metrics].filter((registry) => registry !== undefined);
  if (registries.length > 0) {
    const metrics = Registry.merge(registries);
    app.get('/metrics', async (_request, reply) => reply.header('content-type', metrics.contentType).send(await metrics.metrics()));
  }
  registerOperatorRoutes(app, {
    adminToken: () => access.adminToken,
    guard,
    reload: options.reload,
    lists: options.lists,
    submissions: options.submissions,
    pause: () => {
      pause.paused = true;
    },
    resume: () => {
      pause.paused = false;
    },
    log: options.log,
    clock: options.clock,
  });
}

/** The check of the admin token and of failed attempts, shared by load control's gate and the admin routes. */
function operatorGuard(options: AppOptions, access: LiveAccess): AdminGuard {
  return adminGuard({
    adminToken: () => access.adminToken,
    trustedProxies: options.trustedProxies,
    log: options.log,
    throttle: options.adminThrottle,
    clock: options.clock,
  });
}

/**
 * The operator's application for a listener of its own (`adminListen`): `/healthz`, `/metrics` and
 * `/admin/*` over the same pause switch as the public application made with the operator's routes apart.
 */
export function createOperatorApp(options: AppOptions, pause: PauseSwitch, access = new LiveAccess(options)): FastifyInstance {
  const app = Fastify({ logger: false, genReqId: requestIds(), requestIdHeader: false });
  registerRequestLog(app, loggerOf(options.log), options.accessLog ?? false);
  registerSecurityHeaders(app);
  registerNoStoreOnErrors(app);
  app.setNotFoundHandler(async (request, reply) =>
    sendWireError(reply, new WireError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]} is not served here`)),
  );
  registerOperatorSurface(app, options, pause, true, access);
  return app;
}

/** fastify for `limits`: plain HTTP/1.1, or with `tls` HTTPS with HTTP/2 and HTTP/1.1 on one port. */
function newFastify(limits: HttpLimits, bodyLimit: number, tls: TlsCredentials | undefined, clock: MonotonicClock): FastifyInstance {
  const timeouts = httpServerOptions(limits);
  const ids = { genReqId: requestIds(), requestIdHeader: false } as const;
  if (tls === undefined) {
    return Fastify({ logger: false, ...ids, bodyLimit, ...timeouts, http: { ...timeouts.http, maxHeaderSize: MAX_REQUEST_HEAD_BYTES } });
  }
  const secure = secureServerOptions(limits, MAX_REQUEST_HEAD_BYTES);
  const app = Fastify({ logger: false, ...ids, bodyLimit, ...secure, https: { ...secure.https, cert: tls.cert, key: tls.key } });
  limitSecureServer(app.server, limits, MAX_REQUEST_HEAD_BYTES, clock);
  // The routes use only what HTTP/1.1 and HTTP/2 requests share (method, URL, headers, the socket's
  // address, the reply's 'close'), so one application type serves both.
  return app as unknown as FastifyInstance;
}

/**
 * The HTTP application, not yet listening; with `operator.apart`, {@link createOperatorApp} serves the
 * operator's routes. `access` holds the keys, settings and admin token a reload may change.
 */
export function createApp(
  options: AppOptions,
  operator: OperatorPlacement = { pause: { paused: false }, apart: false },
  access = new LiveAccess(options),
): FastifyInstance {
  const { pause } = operator;
  const settings: ApiSettings = access.settings;
  // Web Risk's threat types name their lists through the live settings, which a reload changes in place.
  options.catalog.answerWebRiskBy(settings);
  const submissions = options.submissions ?? new Submissions();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const source = options.fullHashes ?? catalogFullHashes(options.catalog, settings);
  const { loadControl } = options;
  const clock = options.clock ?? systemClock;
  const adminHere = !operator.apart;
  const adminEndpoints = adminHere && access.adminToken !== undefined;
  // Asked first by load control's gate, so that an operator with the token passes by it (issue 26, S8).
  const admin = adminEndpoints ? operatorGuard(options, access) : undefined;
  const apiKeys: ReadonlySet<string> = access.apiKeys;
  // Whose X-Forwarded-For names the requester: load control's proxies, or without it the server's.
  const trusted = loadControl?.trusted ?? new TrustedProxies(options.trustedProxies ?? []);
  const requester = (request: FastifyRequest) =>
    requesterOf(
      { url: request.url, headers: request.headers, peer: request.socket.remoteAddress ?? '' },
      trusted,
      apiKeys,
      loadControl?.relays,
    );
  // docs/api.md allows 1000 prefixes in one hashes:search, a GET: about 26 KB of query string, over Node's
  // 16 KB default for the request head.
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const app = newFastify(limits, maxBodyBytes, options.tls, clock);
  capConnections(app.server, limits, new TrustedProxies(options.trustedPeers ?? [], 'trusted proxy or relay'));
  // With TLS, the idle deadline is the secure server's own (http/http2-limits.ts).
  if (options.tls === undefined) closeStalledConnections(app.server, limits.idleTimeoutMs, clock);
  paceAnswers(app.server, limits, clock);
  // Before every other hook: a refusal, a preflight and an error carry the request's id too.
  registerRequestLog(app, loggerOf(options.log), options.accessLog ?? false);
  // Bodies reach the wire layer as bytes, whatever their type: it decides what they are.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // What no route answers, and what fails: Google-style errors. Set before the routes, which take their
  // error handler when they are added. Methods no route takes (PUT, DELETE, OPTIONS…): the wire layer
  // says 405 with Allow for an API path, 404 for anything else.
  app.setNotFoundHandler(async (request, reply) => {
    if (refusedWhilePaused(request, reply)) return reply;
    try {
      decodeWireRequest({ method: request.method, url: request.url, headers: request.headers, body: new Uint8Array(0) }, { maxBodyBytes });
    } catch (err) {
      if (err instanceof WireError) return sendWireError(reply, err);
      throw err;
    }
    return sendWireError(reply, new WireError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]} is not served here`));
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error.statusCode === 413)
      return sendWireError(reply, WireError.payloadTooLarge('the request body', maxBodyBytes + 1, maxBodyBytes));
    if (error.statusCode !== undefined && error.statusCode < 500)
      return sendWireError(reply, new WireError('INVALID_ARGUMENT', error.message));
    return sendWireError(reply, new WireError('INTERNAL', 'the server failed to answer; try again later'));
  });

  // Requests per minute by outcome, for the status page: counted as each answer ends, by a listener on
  // Node's server rather than a hook on every route. (An Oblivious HTTP gateway's inner requests do not
  // pass there: each is counted once, as its encapsulating request.)
  const history = new RequestHistory(clock);
  // One listener function for every answer, not a closure made for each.
  function recordAnswer(this: ServerResponse): void {
    history.record(this.statusCode);
  }
  app.server.prependListener('request', (_request: unknown, response: ServerResponse) => response.on('finish', recordAnswer));

  /**
   * Without load control, pausing (LC-5 `service_paused`) refuses everything but the operator's paths:
   * sends the 503 and says so, or says nothing was sent. (Load control's gate pauses itself.)
   */
  const refusedWhilePaused = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (loadControl !== undefined || !pause.paused || isOperatorPath(request.url, adminEndpoints)) return false;
    const answer = refusal('paused', PAUSED_RETRY_AFTER_SECONDS, request.url, request.headers);
    void reply.code(answer.status).headers(answer.headers).send(Buffer.from(answer.body));
    return true;
  };

  // 0. Cross-origin preflights, answered before the gate: a lookup must not spend a budget twice.
  registerCors(app, options.corsOrigins ?? []);

  // 1. The gate. LC-5 `service_paused` is the operator's switch that refuses everything with 503.
  if (loadControl !== undefined) loadControl.register(app, () => pause.paused, admin, apiKeys);

  // 2.–4. The operator's routes, people's pages and the Oblivious HTTP gateway, in a scope of their
  // own whose hooks add the pages' security headers and `no-store` to errors, and without load control
  // refuse everything but the operator's paths while paused. The API's path has no hook (what one
  // would cost it: api/api-route.ts, answerHeaders); its handler sets those headers itself.
  void app.register(async (scope) => {
    registerSecurityHeaders(scope);
    registerNoStoreOnErrors(scope);
    if (loadControl === undefined)
      scope.addHook('onRequest', (request, reply, done) => void (refusedWhilePaused(request, reply) || done()));
    registerOperatorSurface(scope, { ...options, submissions }, pause, adminHere, access, admin);
    registerWebRoutes(scope, {
      catalog: options.catalog,
      source,
      loadControl,
      serving: options.serving ?? 'its lists',
      feeds: options.feeds ?? (() => []),
      googleData: options.googleData ?? false,
      requesterOf: requester,
      history,
      submissions,
      clock,
      listUnavailable: options.listUnavailable ?? (() => undefined),
    });
    if (options.ohttpKeys !== undefined) registerGatewayRoutes(scope, options.ohttpKeys, app);
  });

  // 5. The API, on every other path.
  registerApiRoute(app, {
    refusedWhilePaused,
    catalog: options.catalog,
    source,
    settings,
    apiKeys,
    maxBodyBytes,
    listUnavailable: options.listUnavailable,
    requesterOf: requester,
    clock,
    submissions,
    clientOf: (request) => clientAddress(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for'], trusted),
  });

  return app;
}
