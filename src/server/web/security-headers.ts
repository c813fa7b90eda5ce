// Headers that keep browsers from doing what the pages never need: running script (the pages have none),
// loading anything from elsewhere, being framed by another site (clickjacking), guessing a type other
// than the one declared, and telling the sites a page links to which lookup the person made.

import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { REFUSAL_STYLE } from '../guard/refusal.ts';
import { INNER_REQUEST_ADDRESS } from '../inner-request.ts';
import { EVERY_ANSWER_HEADERS } from '../http/replies.ts';
import { PAGE_STYLE } from './pages.ts';

const styleHash = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/**
 * Nothing but the pages' own stylesheets, by hash, the empty icon (`data:`), and the lookup form sent
 * to this server. `frame-ancestors 'none'` with X-Frame-Options for browsers older than CSP 2.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${styleHash(PAGE_STYLE)} ${styleHash(REFUSAL_STYLE)}`,
  'img-src data:',
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on HTML answers (the pages, the refusal page). */
const PAGES = { 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-frame-options': 'DENY' };

/**
 * Adds the headers to every answer of the routes of `app` (but the inner answers of the Oblivious HTTP
 * gateway, which are no pages). The API's routes set theirs where their answers are made, without a
 * hook on their path (app.ts).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.socket.remoteAddress !== INNER_REQUEST_ADDRESS) {
      reply.headers(EVERY_ANSWER_HEADERS);
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) reply.headers(PAGES);
    }
    done(null, payload);
  });
}
