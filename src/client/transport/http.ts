// The client's HTTP: one request, one bounded answer. Node's own http and https modules, not fetch:
// on Node 20 the first fetch() costs about 40 MB of memory and 60 ms to load its engine, which would be
// most of what a one-URL `sbkit check` spends.

import { type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type Readable, pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { type Clock, deadline, systemClock } from '../../time/clock.ts';
import type { OutgoingRequest } from '../../wire/rest/client-request.ts';
import { TransportError } from '../client-errors.ts';
import { describeConnectionFailure } from './connection-failure.ts';
import type { WireResponse } from '../../wire/rest/client-response.ts';

export interface HttpSettings {
  /** `User-Agent`; SB-14 asks clients to identify themselves by it ("client id/version"). */
  userAgent: string;
  /** Whole request, connect to last byte. */
  timeoutMs: number;
  /** Larger answers (once decompressed) are abandoned: a broken or hostile server cannot make the client buffer gigabytes. */
  maxResponseBytes: number;
  /** What the deadline runs on: the client's clock (the system's by default). */
  clock?: Clock;
}

/** Content codings the client accepts; Rice-coded lists barely shrink, JSON answers do. */
const ACCEPT_ENCODING = 'gzip, br';

/**
 * Sends a request built by the wire layer and reads the answer within the settings' bounds. Redirects
 * are not followed: a 3xx is the answer (a failure to the callers), so a server cannot send the client,
 * and its API key, elsewhere.
 */
export function sendRequest(request: OutgoingRequest, settings: HttpSettings): Promise<WireResponse> {
  const target = new URL(request.url);
  const where = `${target.origin}${target.pathname}`;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: OutgoingHttpHeaders = { ...request.headers, 'user-agent': settings.userAgent, 'accept-encoding': ACCEPT_ENCODING };
  const { signal, clear } = deadline(settings.clock ?? systemClock, settings.timeoutMs);
  return new Promise<WireResponse>((resolve, reject) => {
    let outgoing: ClientRequest | undefined;
    let incoming: IncomingMessage | undefined;
    const fail = (err: unknown) => {
      clear();
      outgoing?.destroy();
      reject(err instanceof TransportError ? err : failure(err, signal, target, settings, incoming));
    };
    try {
      outgoing = send(target, { method: request.method, headers, signal }, (response) => {
        incoming = response;
        const declared = Number(response.headers['content-length'] ?? NaN);
        if (declared > settings.maxResponseBytes) {
          fail(new TransportError('too-large', `${where} answered ${declared} bytes, more than the ${settings.maxResponseBytes} allowed`));
          return;
        }
        const body = decodedBody(response, fail);
        if (body === undefined) {
          fail(
            new TransportError(
              'network',
              `${where} answered in the content coding "${response.headers['content-encoding']}", which was not asked for`,
            ),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        body.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= settings.maxResponseBytes) {
            chunks.push(chunk);
            return;
          }
          // Stops reading, and decompressing: a small answer can inflate to gigabytes.
          body.destroy();
          fail(new TransportError('too-large', `${where} answered more than the ${settings.maxResponseBytes} bytes allowed`));
        });
        body.on('error', fail);
        body.on('end', () => {
          clear();
          const maxAge = /(?:^|[\s,])max-age=(\d+)/.exec(response.headers['cache-control'] ?? '')?.[1];
          resolve({
            httpStatus: response.statusCode ?? 0,
            contentType: response.headers['content-type'],
            body: Buffer.concat(chunks),
            maxAgeSeconds: maxAge === undefined ? undefined : Number(maxAge),
            retryAfter: response.headers['retry-after'],
          });
        });
      });
      outgoing.on('error', fail);
      outgoing.end(request.body);
    } catch (err) {
      // Node refuses some requests before sending them, e.g. a header value it cannot write.
      fail(err);
    }
  });
}

/** The answer's body as sent before its content coding; undefined for a coding not asked for. */
function decodedBody(response: IncomingMessage, fail: (err: unknown) => void): Readable | undefined {
  const coding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') {
    response.on('error', fail);
    return response;
  }
  const decoder = coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'br' ? createBrotliDecompress() : undefined;
  if (decoder === undefined) return undefined;
  return pipeline(response, decoder, (err) => {
    if (err) fail(err);
  });
}

function failure(
  err: unknown,
  signal: AbortSignal,
  target: URL,
  settings: HttpSettings,
  response: IncomingMessage | undefined,
): TransportError {
  const where = `${target.origin}${target.pathname}`;
  // The timeout aborts the request; what the request or the answer's stream then reports varies.
  if (signal.aborted) return new TransportError('timeout', `${where} did not answer within ${settings.timeoutMs} ms`, { cause: err });
  const oversize = oversizeOf(err, response);
  if (oversize !== undefined) return new TransportError('too-large', `${where} ${oversize}`, { cause: err });
  return new TransportError('network', `cannot reach ${where}: ${describeConnectionFailure(err, target)}`, { cause: err });
}

/**
 * What was too large about an answer Node's HTTP parser refused, when size was the trouble: a length
 * past 2^64 bytes (a Content-Length or a chunk size), or bytes after an answer already complete, which
 * is a Content-Length smaller than the body sent. Undefined for any other failure.
 */
function oversizeOf(err: unknown, response: IncomingMessage | undefined): string | undefined {
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !code.startsWith('HPE_')) return undefined;
  if (typeof message === 'string' && message.includes('overflow')) return `declared a length past 2^64 bytes (${message})`;
  if (response?.complete === true) {
    const declared = response.headers['content-length'];
    return declared === undefined
      ? 'sent bytes after the end of its answer'
      : `sent more than the ${declared} bytes its Content-Length declared`;
  }
  return undefined;
}
