// The operator's endpoints, behind the admin token (admin-guard.ts): pause (LC-5 `service_paused`),
// resume, reload (of every list, or of one with `?list=NAME`), edits of a list's entries
// (admin-entries.ts) and the Web Risk submissions (submissions.ts). Without a token configured they do
// not exist.

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../../time/clock.ts';
import { WireError } from '../../wire/wire-error.ts';
import { type ListOperations, registerEntryRoutes } from './admin-entries.ts';
import type { AdminGuard } from './admin-guard.ts';
import { quotedExcerpt } from '../feeds/formats/excerpt.ts';
import { rateLimitedLog } from '../rate-limited-log.ts';
import { sendWireError } from '../http/replies.ts';
import type { Submissions } from './submissions.ts';
import { type LogSink, loggerOf } from '../logger.ts';

export interface OperatorOptions {
  /**
   * The bearer token the endpoints answer; the endpoints exist only when there is one as they are
   * registered.
   */
  adminToken: () => string | undefined;
  /** The check of the token and of failed attempts, which load control's gate asks too. */
  guard: AdminGuard;
  /** What `/admin/reload` does: load the lists' feeds again. */
  reload: (() => Promise<unknown>) | undefined;
  /** A configuration's lists: `/admin/reload?list=NAME` and `/admin/lists/NAME/entries`. */
  lists?: ListOperations | undefined;
  /** The pause switch the request path reads. */
  pause(): void;
  resume(): void;
  /** Where entry edits are told. */
  log?: LogSink | undefined;
  /** The time the log's rate is counted in; the system's by default. */
  clock?: Clock | undefined;
  /** Web Risk submissions, for `GET /admin/submissions`. */
  submissions?: Submissions | undefined;
}

export function registerOperatorRoutes(app: FastifyInstance, options: OperatorOptions): void {
  if (options.adminToken() === undefined) return;
  const { guard } = options;
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
  const { submissions } = options;
  if (submissions !== undefined) {
    // What clients reported, newest first: for the operator to review, never published (submissions.ts).
    app.get('/admin/submissions', async (request, reply) => {
      if (!guard(request, reply)) return reply;
      return reply.header('cache-control', 'no-store').send({ ...submissions.counts(), submissions: submissions.newestFirst() });
    });
  }
  if (options.lists !== undefined) {
    const logger = loggerOf(options.log);
    registerEntryRoutes(
      app,
      guard,
      options.lists,
      rateLimitedLog((message) => logger.info(message), options.clock),
    );
  }
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
