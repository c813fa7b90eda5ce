// How the server answers when it refuses: a Google-style error body (the wire layer renders it), never
// kept by a cache, and bytes handed to fastify without a copy.

import type { FastifyInstance, FastifyReply } from 'fastify';
import { renderWireError, type WireError } from '../../wire/wire-error.ts';

/**
 * Headers on every answer: no type sniffing (a binary or JSON answer is never taken for a page), no
 * Referer sent from a page. The API's answers are set with them where they are made; the pages get them,
 * with their own, from web/security-headers.ts.
 */
export const EVERY_ANSWER_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } as const;

/**
 * `Cache-Control` of every error answer (4xx, 5xx, load control's 503): a refusal is about one request at
 * one moment (a missing key, a budget spent, a list not yet copied), and a shared cache that kept it
 * would hand it to everyone asking the same URL.
 */
export const NOT_KEPT = 'no-store';

/** The bytes as a Buffer for fastify, without copying them. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Answers with the error's status, headers and Google-style body, kept by no cache. */
export function sendWireError(reply: FastifyReply, error: WireError): FastifyReply {
  const rendered = renderWireError(error);
  return reply
    .code(rendered.httpStatus)
    .headers(rendered.headers)
    .headers(EVERY_ANSWER_HEADERS)
    .header('cache-control', NOT_KEPT)
    .send(asBuffer(rendered.body));
}

/** {@link NOT_KEPT} on every error answer of the routes of `app`, for those that answer errors of their own. */
export function registerNoStoreOnErrors(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode >= 400) reply.header('cache-control', NOT_KEPT);
    done(null, payload);
  });
}
