// Every answer's request id, and the access log (`--access-log`): one line per request with what an
// operator needs to see traffic and faults, and nothing of what a client looks up. A search's query
// carries the hash prefixes of the URLs someone visits, a list's path its name, a key its owner: the
// line names the route's pattern, never the URL, its query or a header.

import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { matchRoute } from '../../wire/rest/routes.ts';
import { clientClassOf } from '../guard/request-gate.ts';
import { INNER_REQUEST_ADDRESS } from '../inner-request.ts';
import type { Logger } from '../logger.ts';

/** The header every answer carries its request's id in, to match a client's report with the log. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The catch-all route the API answers on (api/api-route.ts): its requests are named by the API's own routes. */
const API_ROUTE = '/*';

/**
 * fastify's `genReqId`: ids unique across instances and restarts (a random start per application, then a
 * count), cheap enough for every request. Never the client's own `X-Request-ID`: a client writes there
 * whatever it likes, and an id it chose could pass for another's or fill the log with its words.
 */
export function requestIds(): () => string {
  const start = randomBytes(6).toString('base64url');
  let count = 0;
  return () => `${start}-${(++count).toString(36)}`;
}

/** Puts each request's id on its answer, and with `accessLog` logs a line for each answer. */
export function registerRequestLog(app: FastifyInstance, log: Logger, accessLog: boolean): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  if (!accessLog) return;
  app.addHook('onResponse', (request, reply, done) => {
    // An Oblivious HTTP gateway's inner requests: the encapsulating POST is logged; what it carried is
    // for the gateway to answer, not to tell (SB-2).
    if (request.socket.remoteAddress !== INNER_REQUEST_ADDRESS) {
      log.info('request', {
        reqId: request.id,
        method: request.method,
        route: routeOf(request),
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        client: clientClassOf(request),
      });
    }
    done();
  });
}

/** The pattern of the route that answered, e.g. `/v5/hashList/{name}`; `-` when none did (404). */
function routeOf(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route !== API_ROUTE) return route ?? '-';
  try {
    return matchRoute(request.method === 'HEAD' ? 'GET' : request.method, request.url.split('?', 1)[0]!).pattern;
  } catch {
    return '-';
  }
}
