// The Oblivious Relay Resource (SB-2, RFC 9458 §6): forwards opaque `message/ohttp-req` bodies to the
// one gateway it is configured for, and the answers back. It sees who asks, never what: nothing of a
// request but its size passes through its hands readably, nothing about the client (address,
// User-Agent, cookies, any header) goes on to the gateway, and it logs nothing of either. What it
// holds is bounded both ways: a client's request in size and time (http/http-limits.ts), the
// gateway's answer in size as it streams in, and in time.

import type { IncomingHttpHeaders } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { TrustedProxies } from '../guard/client-address.ts';
import { closeStalledConnections, DEFAULT_HTTP_LIMITS, type HttpLimits, httpServerOptions } from '../http/http-limits.ts';
import { capConnections } from '../http/connection-caps.ts';
import { paceAnswers } from '../http/answer-pace.ts';
import type { LoadControl } from '../guard/load-control.ts';
import { type Clock, deadline, systemClock } from '../../time/clock.ts';

/** What {@link createRelayApp} forwards to, and who it admits. */
export interface RelayOptions {
  /** The gateway's URL, e.g. https://sb.example/ohttp-gateway. */
  gateway: string;
  /** Load control in front of the relay (LC-1..5, per client: the relay is where clients are known). */
  loadControl?: LoadControl | undefined;
  /** Bound on the gateway's answer, from the request to its last byte; 10 s by default. */
  timeoutMs?: number;
  /** Deadlines of a client connection's phases and caps on connections; {@link DEFAULT_HTTP_LIMITS} for the others. */
  httpLimits?: Partial<HttpLimits>;
  /** Load balancers in front of the relay (addresses and CIDR blocks): no cap on their connections per address. */
  trustedProxies?: readonly string[];
  /** What the gateway's deadline runs on; the system's clock by default. */
  clock?: Clock;
}

const MAX_REQUEST_BYTES = 64 * 1024;
/** An encapsulated search answer is a few KiB (padded to 256 bytes); a MiB is far past any honest one. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const TOO_LARGE = 'the gateway answered more than a relay passes on';
const DEFAULT_GATEWAY_TIMEOUT_MS = 10_000;

/**
 * `sbkit relay` as a library: a fastify application whose `POST /ohttp-relay` forwards Oblivious HTTP
 * requests to one gateway and its answers back, learning who asks but never what. Not yet listening.
 *
 * @throws TypeError when `options.gateway` is not a URL.
 */
export function createRelayApp(options: RelayOptions): FastifyInstance {
  const gateway = new URL(options.gateway);
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const app = Fastify({ logger: false, bodyLimit: MAX_REQUEST_BYTES, ...httpServerOptions(limits) });
  capConnections(app.server, limits, new TrustedProxies(options.trustedProxies ?? []));
  closeStalledConnections(app.server, limits.idleTimeoutMs);
  paceAnswers(app.server, limits);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  options.loadControl?.register(app, () => false, undefined);
  app.get('/healthz', async () => ({ status: 'ok' }));

  const relay = async (request: { headers: IncomingHttpHeaders; body: unknown }, reply: FastifyReply) => {
    if ((request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() !== 'message/ohttp-req') {
      return reply.code(415).header('content-type', 'text/plain').send('a relay forwards Content-Type: message/ohttp-req only');
    }
    let answer: Response;
    let body: Buffer | undefined;
    const timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
    const { signal, clear } = deadline(options.clock ?? systemClock, timeoutMs);
    try {
      answer = await fetch(gateway, {
        method: 'POST',
        // Only what the gateway needs: nothing that could tell it who the client is.
        headers: { 'content-type': 'message/ohttp-req', 'user-agent': 'sbkit-relay' },
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        // Covers the answer's body too: a gateway that trickles its bytes is cut off as well.
        signal,
        redirect: 'error',
      });
      body = await readCapped(answer);
    } catch {
      if (signal.aborted)
        return reply.code(504).header('content-type', 'text/plain').send(`the gateway did not answer within ${timeoutMs} ms`);
      return reply.code(502).header('content-type', 'text/plain').send('the gateway cannot be reached');
    } finally {
      clear();
    }
    if (body === undefined) return reply.code(502).header('content-type', 'text/plain').send(TOO_LARGE);
    const retryAfter = answer.headers.get('retry-after');
    if (retryAfter !== null) reply.header('retry-after', retryAfter);
    return reply
      .code(answer.status)
      .header('content-type', answer.headers.get('content-type') ?? 'application/octet-stream')
      .send(body);
  };
  app.post('/', relay);
  app.post('/ohttp-relay', relay);
  return app;
}

/**
 * The answer's bytes as they stream in, or undefined as soon as they pass {@link MAX_RESPONSE_BYTES}: a
 * chunked answer says nothing of its length up front, and must not be held whole before it is measured.
 */
async function readCapped(answer: Response): Promise<Buffer | undefined> {
  const stream: ReadableStream<Uint8Array> | null = answer.body;
  if (stream === null) return Buffer.alloc(0);
  if (Number(answer.headers.get('content-length') ?? 0) > MAX_RESPONSE_BYTES) {
    await stream.cancel();
    return undefined;
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, length);
    length += value.length;
    if (length > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}
