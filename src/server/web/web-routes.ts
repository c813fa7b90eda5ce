// The routes of the pages for people: `/` (lookup), `/advisory/{threat type}`, `/status` and
// `/status.json`, and the response counting behind the status page's chart.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { THREAT_TYPES, type ThreatTypeName } from '../../lists/threat-types.ts';
import type { Clock } from '../../time/clock.ts';
import { InvalidUrlError } from '../../url/invalid-url.ts';
import { WireError } from '../../wire/wire-error.ts';
import { type FullHashSource, searchesOf } from '../api/full-hash-source.ts';
import type { ListUnavailable } from '../api/api-route.ts';
import type { Requester } from '../guard/requester.ts';
import type { ListCatalog } from '../catalog.ts';
import type { FeedSourceStatus } from '../feeds/sources/source-status.ts';
import type { LoadControl } from '../guard/load-control.ts';
import { lookUp } from './lookup.ts';
import { advisoryPage, lookupPage, statusPage } from './pages.ts';
import type { RequestHistory } from './request-history.ts';
import type { Submissions } from '../operator/submissions.ts';
import { serverStatus } from './status.ts';

/** Retry-After of a lookup the lists' source could not answer, when it named no wait of its own. */
const LOOKUP_RETRY_AFTER_SECONDS = 60;

export interface WebOptions {
  catalog: ListCatalog;
  /** Requests per minute by outcome, counted by the application (app.ts), for the status page. */
  history: RequestHistory;
  source: FullHashSource;
  loadControl: LoadControl | undefined;
  /** What the server serves, in words, for the status page. */
  serving: string;
  /** The state of each feed source, for the status page. */
  feeds: () => FeedSourceStatus[];
  /** True when verdicts come from Google's data (a proxy of Google's server): SB-3's attribution. */
  googleData: boolean;
  /** Who a request comes from: a look-up costs what an API search of the same requester costs. */
  requesterOf: (request: FastifyRequest) => Requester;
  /** The time the status page tells, and its uptime from. */
  clock: Clock;
  /** Web Risk submissions: the status page counts them. */
  submissions: Submissions;
  /** Why a list's requests get 503 now (a proxy's list without a current copy), for the status page. */
  listUnavailable: (name: string) => ListUnavailable | undefined;
}

const THREAT_NAMES: ReadonlySet<string> = new Set(Object.values(THREAT_TYPES));
/** Longer input is no URL a person typed; it is refused before any work. */
const MAX_LOOKUP_LENGTH = 8192;

export function registerWebRoutes(app: FastifyInstance, options: WebOptions): void {
  const { history, clock } = options;
  const startedAt = clock.now();
  const html = 'text/html; charset=utf-8';
  // Who may keep a page (as answer-caching.ts decides for the API): the empty form and the advisories
  // are the same for everyone; a lookup tells what someone checks, so no cache keeps it, nor an error;
  // the status changes with every request.
  const PAGE = 'public, max-age=300';
  const ADVISORY = 'public, max-age=86400';
  const NOT_KEPT = 'no-store';

  app.get('/', async (request, reply) => {
    const url = (request.query as Record<string, unknown>).url;
    reply.header('content-type', html).header('cache-control', NOT_KEPT);
    if (typeof url !== 'string' || url.trim() === '')
      return reply.header('cache-control', PAGE).send(lookupPage({ url: '', googleData: options.googleData }));
    if (url.length > MAX_LOOKUP_LENGTH)
      return reply.code(400).send(
        lookupPage({
          url: '',
          error: `That is ${url.length} characters long; a URL to look up has at most ${MAX_LOOKUP_LENGTH}.`,
          googleData: options.googleData,
        }),
      );
    try {
      const result = await lookUp(searchesOf(options.source, options.requesterOf(request)), url);
      return lookupPage({ url, result, googleData: options.googleData });
    } catch (error) {
      if (error instanceof InvalidUrlError)
        return reply
          .code(400)
          .send(lookupPage({ url, error: `This is not a URL that can be checked: ${error.message}.`, googleData: options.googleData }));
      // Retry-After as every 503 of the server carries: the upstream's own wait, or a minute.
      if (error instanceof WireError) {
        const retryAfterSeconds = error.retryAfterSeconds ?? LOOKUP_RETRY_AFTER_SECONDS;
        return reply
          .code(503)
          .header('retry-after', String(retryAfterSeconds))
          .send(
            lookupPage({
              url,
              unknown: { reason: `the lists' source did not answer: ${error.message}`, retryAfterSeconds },
              googleData: options.googleData,
            }),
          );
      }
      throw error;
    }
  });

  app.get('/advisory/:threatType', async (request, reply) => {
    const { threatType } = request.params as { threatType: string };
    if (!THREAT_NAMES.has(threatType))
      return reply
        .code(404)
        .header('content-type', html)
        .header('cache-control', NOT_KEPT)
        .send(lookupPage({ url: '', error: `There is no advisory for "${threatType}".`, googleData: options.googleData }));
    return reply
      .header('content-type', html)
      .header('cache-control', ADVISORY)
      .send(advisoryPage(threatType as ThreatTypeName, options.googleData));
  });

  const status = async () =>
    serverStatus(
      options.catalog,
      history,
      (await options.loadControl?.summary()) ?? null,
      options.serving,
      startedAt,
      clock.now(),
      options.feeds(),
      options.submissions.counts(),
      (name) => options.listUnavailable(name)?.reason,
    );
  app.get('/status', async (_request, reply) =>
    reply
      .header('content-type', html)
      .header('cache-control', NOT_KEPT)
      .send(statusPage(await status())),
  );
  app.get('/status.json', async (_request, reply) => reply.header('cache-control', NOT_KEPT).send(await status()));
}
