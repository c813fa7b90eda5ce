// How the server answers when it refuses: a Google-style error body (the wire layer renders it), never
// kept by a cache, and bytes handed to fastify without a copy.

import type { FastifyInstance, FastifyReply } from 'fastify';
import { renderWireError, type WireError } from '../wire/wire-error.ts';

/** The bytes as a Buffer for fastify, without copying them. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Answers with the error's status, headers and Google-style body. */
export function sendWireError(reply: FastifyReply, error: WireError): FastifyReply {
  const rendered = renderWireError(error);
  return reply.code(rendered.httpStatus).headers(rendered.headers).send(asBuffer(rendered.body));
}

/**
 * `Cache-Control: no-store` on every error answer of `app` (4xx, 5xx, load control's 503): a refusal is
 * about one request at one moment (a missing key, a budget spent, a list not yet copied), and a shared
 * cache that kept it would hand it to everyone asking the same URL.
 */
export function registerNoStoreOnErrors(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
