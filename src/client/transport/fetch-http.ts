// The client's HTTP where there is no node:http: fetch, as browsers, extensions, workers and edge
// runtimes have it, with the same bounds as Node's sender (http.ts): a deadline for the whole request,
// a cap on the answer's size, no redirects followed.

import { concatenated } from '../../codec/concatenated.ts';
import { deadline, systemClock } from '../../time/clock.ts';
import type { OutgoingRequest } from '../../wire/rest/client-request.ts';
import type { WireResponse } from '../../wire/rest/client-response.ts';
import { TransportError } from '../client-errors.ts';
import type { HttpSettings } from './http.ts';

/**
 * Sends a request built by the wire layer with fetch. The runtime decodes content codings itself; the
 * size cap applies to the decoded bytes as they arrive. `User-Agent` is left to the runtime (browsers
 * do not let a page or an extension set it). A redirect is an answer, and a failure to the callers, so
 * that a server cannot send the client, and its API key, elsewhere.
 */
export async function sendWithFetch(request: OutgoingRequest, settings: HttpSettings): Promise<WireResponse> {
  const target = new URL(request.url);
  const where = `${target.origin}${target.pathname}`;
  const { signal, clear } = deadline(settings.clock ?? systemClock, settings.timeoutMs);
  try {
    const response = await fetch(target, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      // Requests carry an API key, never a cookie: credentials would only identify the user (SB-2).
      credentials: 'omit',
      signal,
    });
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > settings.maxResponseBytes) {
      await response.body?.cancel();
      throw new TransportError('too-large', `${where} answered ${declared} bytes, more than the ${settings.maxResponseBytes} allowed`);
    }
    const body = await boundedBody(response, settings.maxResponseBytes, where);
    const maxAge = /(?:^|[\s,])max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1];
    return {
      // A redirect not followed reads as status 0 ("opaqueredirect") in browsers: no answer of the server's.
      httpStatus: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      body,
      maxAgeSeconds: maxAge === undefined ? undefined : Number(maxAge),
      retryAfter: response.headers.get('retry-after') ?? undefined,
    };
  } catch (err) {
    if (err instanceof TransportError) throw err;
    if (signal.aborted) throw new TransportError('timeout', `${where} did not answer within ${settings.timeoutMs} ms`, { cause: err });
    const reason = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new TransportError('network', `cannot reach ${where}: ${reason}`, { cause: err });
  } finally {
    clear();
  }
}

async function boundedBody(response: Response, maxBytes: number, where: string): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      // Stops reading, and decompressing: a small answer can inflate to gigabytes.
      await reader.cancel();
      throw new TransportError('too-large', `${where} answered more than the ${maxBytes} bytes allowed`);
    }
    chunks.push(value);
  }
  return concatenated(Uint8Array, chunks);
}
