// Cross-origin requests to the API, for clients that run in web pages and browser extensions: off unless
// the operator names the origins allowed. A preflight (OPTIONS) is answered here, before load control,
// so that one lookup does not spend the client's budget twice; it costs the server a header check.

import type { FastifyInstance, FastifyReply } from 'fastify';

/** The paths a page's script may call: the APIs and the Oblivious HTTP resources. */
const API_PATH = /^\/(?:v(?:1|4|5|5alpha1)\/|ohttp-(?:keys|gateway)(?:\?|$))/;
/** Request headers a client of the API sends besides the CORS-safelisted ones. */
const ALLOWED_HEADERS = ['content-type', 'x-goog-api-key', 'x-goog-api-client', 'x-http-method-override'];
/** Answer headers a script may read besides the safelisted ones: when to come back, and the validator. */
const EXPOSED_HEADERS = 'retry-after, etag';
/** How long a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const WEB_ORIGIN = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
/** Extensions' origins name the extension by its ID (Chromium: 32 letters a–p; Firefox: a UUID). */
const EXTENSION_ORIGIN = /^(?:chrome-extension|moz-extension|safari-web-extension):\/\/[A-Za-z0-9-]{1,64}$/;

/**
 * Why `origin` cannot be an allowed origin, or undefined when it can: `*` (any origin), a web origin
 * (`https://mail.example`, scheme, host and port only, lower case), or an extension's
 * (`chrome-extension://<id>`, `moz-extension://<uuid>`).
 */
export function corsOriginProblem(origin: string): string | undefined {
  if (origin === '*' || WEB_ORIGIN.test(origin) || EXTENSION_ORIGIN.test(origin)) return undefined;
  return `${JSON.stringify(origin.slice(0, 100))} is no origin: write "*", a web origin such as "https://mail.example" (scheme, host and port, in lower case, no path), or an extension's such as "chrome-extension://<id>"`;
}

/** Answers cross-origin calls of the API from `origins` (each as corsOriginProblem accepts); none: nothing is added. */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  const allowed = new Set(origins);
  app.addHook('onRequest', async (request, reply) => {
    if (!API_PATH.test(request.url)) return undefined;
    // Every API answer varies by Origin, those to requests without one too (200, 304, errors): list
    // answers are public for listCacheSeconds, and a shared cache that kept one asked without an Origin,
    // so without Access-Control-Allow-Origin, must not hand it to a page's script.
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    const permitted = any || allowed.has(origin);
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!permitted) return preflight ? refusePreflight(reply, origin) : undefined;
    reply.header('access-control-allow-origin', any ? '*' : origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    if (!preflight) return undefined;
    return reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', ALLOWED_HEADERS.join(', '))
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .send();
  });
}

function refusePreflight(reply: FastifyReply, origin: string): FastifyReply {
  return reply
    .code(403)
    .header('content-type', 'text/plain; charset=utf-8')
    .send(`this server does not answer scripts of ${origin.slice(0, 100)}; its operator lists the origins it does (cors.origins)`);
}
