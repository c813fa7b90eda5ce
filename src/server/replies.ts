// How the server answers when it refuses: a Google-style error body (the wire layer renders it), and
// bytes handed to fastify without a copy.

import type { FastifyReply } from 'fastify';
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
