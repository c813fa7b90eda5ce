// The Oblivious Relay Resource (SB-2, RFC 9458 §6): forwards opaque `message/ohttp-req` bodies to the
// one gateway it is configured for, and the answers back. It sees who asks, never what: nothing of a
// request but its size passes through its hands readably, nothing about the client (address,
// User-Agent, cookies, any header) goes on to the gateway, and it logs nothing of either.

import type { IncomingHttpHeaders } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { LoadControl } from '../guard/load-control.ts';

/** What {@link createRelayApp} forwards to, and who it admits. */
export interface RelayOptions {
  /** The gateway's URL, e.g. https://sb.example/ohttp-gateway. */
  gateway: string;
  /** Load control in front of the relay (LC-1..5, per client: the relay is where clients are known). */
  loadControl?: LoadControl | undefined;
  /** Bound on the gateway's answer. */
  timeoutMs?: number;
}

const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * `sbkit relay` as a library: a fastify application whose `POST /ohttp-relay` forwards Oblivious HTTP
 * requests to one gateway and its answers back, learning who asks but never what. Not yet listening.
 *
 * @throws TypeError when `options.gateway` is not a URL.
 */
export function createRelayApp(options: RelayOptions): FastifyInstance {
  const gateway = new URL(options.gateway);
  const app = Fastify({ logger: false, bodyLimit: MAX_REQUEST_BYTES });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  options.loadControl?.register(app, () => false, false);
  app.get('/healthz', async () => ({ status: 'ok' }));

  const relay = async (request: { headers: IncomingHttpHeaders; body: unknown }, reply: FastifyReply) => {
    if ((request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() !== 'message/ohttp-req') {
      return reply.code(415).header('content-type', 'text/plain').send('a relay forwards Content-Type: message/ohttp-req only');
    }
    let answer: Response;
    let body: Buffer;
    try {
      answer = await fetch(gateway, {
        method: 'POST',
        // Only what the gateway needs: nothing that could tell it who the client is.
        headers: { 'content-type': 'message/ohttp-req', 'user-agent': 'sbkit-relay' },
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        redirect: 'error',
      });
      if (Number(answer.headers.get('content-length') ?? 0) > MAX_RESPONSE_BYTES) {
        await answer.body?.cancel();
        return reply.code(502).header('content-type', 'text/plain').send('the gateway answered more than a relay passes on');
      }
      body = Buffer.from(await answer.arrayBuffer());
    } catch {
      return reply.code(502).header('content-type', 'text/plain').send('the gateway cannot be reached');
    }
    if (body.length > MAX_RESPONSE_BYTES)
      return reply.code(502).header('content-type', 'text/plain').send('the gateway answered more than a relay passes on');
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
