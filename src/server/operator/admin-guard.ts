// Who may use the operator's endpoints: a request with `Authorization: Bearer <admin token>`, compared in
// constant time (admin-token.ts). A client that keeps failing is refused with 429 for a time that doubles
// with each block (failure-throttle.ts), even with the right token, so that the answers to a blocked
// client say nothing about its guesses; failures are logged, at most ten lines a minute. One guard serves
// both places that ask: load control's gate, which lets a checked operator pass by before any body is
// read (guard/request-gate.ts), and each admin route, which asks again.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../time/clock.ts';
import { WireError } from '../../wire/wire-error.ts';
import { bearerToken, tokenMatches } from './admin-token.ts';
import { FailureThrottle } from './failure-throttle.ts';
import { excerpt } from '../feeds/formats/excerpt.ts';
import { addressKey, clientAddress, TrustedProxies } from '../guard/client-address.ts';
import { rateLimitedLog } from '../rate-limited-log.ts';
import { sendWireError } from '../http/replies.ts';
import { type LogSink, loggerOf } from '../logger.ts';

export interface AdminGuardOptions {
  /** The bearer token the endpoints answer, read at each request (a reload may replace it). */
  adminToken: () => string | undefined;
  /** Proxies whose X-Forwarded-For names the client whose failures are counted. */
  trustedProxies?: readonly string[] | undefined;
  /** Where failed attempts and blocks are told. */
  log?: LogSink | undefined;
  /** The failure counts; a fresh one with ADMIN_THROTTLE_RULES by default. */
  throttle?: FailureThrottle | undefined;
  /** The time of the default throttle and of the log's rate; the system's by default. */
  clock?: Clock | undefined;
}

/**
 * The check of an operator's request: true when its token is right and its client not blocked;
 * otherwise false, having answered it (401, or 429 with Retry-After) and counted the failure.
 */
export type AdminGuard = (request: FastifyRequest, reply: FastifyReply) => boolean;

export function adminGuard(options: AdminGuardOptions): AdminGuard {
  const throttle = options.throttle ?? new FailureThrottle(undefined, options.clock);
  const trusted = new TrustedProxies(options.trustedProxies ?? []);
  const logger = loggerOf(options.log);
  const log = rateLimitedLog((message) => logger.warn(message), options.clock);
  return (request, reply) => {
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
}
