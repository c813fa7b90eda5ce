// The operator's endpoints, behind the admin token: pause (LC-5 `service_paused`), resume and reload.
// Without a token configured they do not exist.

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WireError } from '../wire/wire-error.ts';
import { sendWireError } from './replies.ts';

export interface OperatorOptions {
  /** The bearer token the endpoints answer. */
  adminToken: string | undefined;
  /** What `/admin/reload` does: load the lists' feeds again. */
  reload: (() => Promise<unknown>) | undefined;
  /** The pause switch the request path reads. */
  pause(): void;
  resume(): void;
}

/** Constant-time comparison, so that response times do not spell out the token. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function registerOperatorRoutes(app: FastifyInstance, options: OperatorOptions): void {
  const token = options.adminToken;
  if (token === undefined) return;
  const guard = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (tokenMatches(request.headers.authorization, token)) return true;
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
    if (options.reload === undefined) {
      return sendWireError(
        reply,
        new WireError(
          'FAILED_PRECONDITION',
          'this server has no feeds to reload (it serves the embedded demo lists, or mirrors an upstream)',
        ),
      );
    }
    return { reloaded: await options.reload() };
  });
}
