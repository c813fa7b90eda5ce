// The operator's endpoints, behind the admin token: pause (LC-5 `service_paused`), resume, reload (of
// every list, or of one with `?list=NAME`) and edits of a list's entries (admin-entries.ts).
// Without a token configured they do not exist. Only `Authorization: Bearer <token>` is taken, compared
// in constant time (admin-token.ts); a client that keeps failing is refused with 429 for a time that
// doubles with each block (failure-throttle.ts), even with the right token, so that the answers to a
// blocked client say nothing about its guesses; failures are logged, at most ten lines a minute.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WireError } from '../wire/wire-error.ts';
import { type ListOperations, registerEntryRoutes } from './admin-entries.ts';
import { bearerToken, tokenMatches } from './admin-token.ts';
import { FailureThrottle } from './failure-throttle.ts';
import { excerpt, quotedExcerpt } from './feeds/excerpt.ts';
import { addressKey, clientAddress, TrustedProxies } from './guard/client-address.ts';
import { rateLimitedLog } from './rate-limited-log.ts';
import { sendWireError } from './replies.ts';

export interface OperatorOptions {
  /**
   * The bearer token the endpoints answer, read at each request (a reload may replace it); the
   * endpoints exist only when there is one as they are registered.
   */
  adminToken: () => string | undefined;
  /** What `/admin/reload` does: load the lists' feeds again. */
  reload: (() => Promise<unknown>) | undefined;
  /** A configuration's lists: `/admin/reload?list=NAME` and `/admin/lists/NAME/entries`. */
  lists?: ListOperations | undefined;
  /** The pause switch the request path reads. */
  pause(): void;
  resume(): void;
  /** Proxies whose X-Forwarded-For names the client whose failures are counted. */
  trustedProxies?: readonly string[];
  /** Where failed attempts and blocks are told. */
  log?: (message: string) => void;
  /** The failure counts; a fresh one with ADMIN_THROTTLE_RULES by default. */
  throttle?: FailureThrottle;
}

export function registerOperatorRoutes(app: FastifyInstance, options: OperatorOptions): void {
  if (options.adminToken() === undefined) return;
  const throttle = options.throttle ?? new FailureThrottle();
  const trusted = new TrustedProxies(options.trustedProxies ?? []);
  const log = rateLimitedLog(options.log ?? (() => undefined));
  const guard = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const address = clientAddress(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for'], trusted);
    const client = addressKey(address);
    const waitMs = throttle.retryAfterMs(client);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      reply.header('retry-after', String(seconds));
      void sendWireError(
        reply,
        new WireError('RESOURCE_EXHAUSTED', `too many failed attempts from this address; try again in ${seconds} s`),
      );
      return false;
    }
    const token = options.adminToken();
    if (token !== undefined && tokenMatches(bearerToken(request.headers.authorization), token)) {
      throttle.succeeded(client);
      return true;
    }
    const { failures, blockedMs } = throttle.failed(client);
    const who = `${excerpt(address, 64)} (${request.method} ${excerpt(request.url.split('?')[0]!, 40)})`;
    log(
      blockedMs > 0
        ? `admin: ${who} blocked for ${Math.ceil(blockedMs / 1000)} s after ${failures} failed attempts`
        : `admin: wrong or missing token from ${who}, failure ${failures}`,
    );
    void sendWireError(reply, new WireError('UNAUTHENTICATED', 'operator endpoints need "Authorization: Bearer <admin token>"'));
    return false;
  };
  app.post('/admin/pause', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    options.pause();
    return { status: 'paused' };
  });
  app.post('/admin/resume', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    options.resume();
    return { status: 'ok' };
  });
  app.post('/admin/reload', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    const { list } = request.query as { list?: unknown };
    if (list !== undefined) return reloadOne(reply, list, options.lists);
    if (options.reload === undefined) {
      return sendWireError(reply, new WireError('FAILED_PRECONDITION', NO_FEEDS));
    }
    return { reloaded: await options.reload() };
  });
  if (options.lists !== undefined) registerEntryRoutes(app, guard, options.lists, log);
}

const NO_FEEDS = 'this server has no feeds to reload (it serves the embedded demo lists, or mirrors an upstream)';

async function reloadOne(reply: FastifyReply, list: unknown, lists: ListOperations | undefined): Promise<unknown> {
  if (typeof list !== 'string') return sendWireError(reply, new WireError('INVALID_ARGUMENT', 'list= names one list, once'));
  if (lists === undefined) return sendWireError(reply, new WireError('FAILED_PRECONDITION', NO_FEEDS));
  const report = lists.reloadOne(list);
  if (report === undefined) {
    return sendWireError(reply, new WireError('NOT_FOUND', `no list ${quotedExcerpt(list)} here; the lists are ${lists.names.join(', ')}`));
  }
  return { reloaded: [await report] };
}
