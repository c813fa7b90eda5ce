// The deadlines of http-limits.ts for a server that speaks TLS, with HTTP/2 and HTTP/1.1 on one port
// (ALPN `h2`, `http/1.1`). Node's HTTP/2 server hands HTTP/1.1 connections to its HTTP/1 code, which
// reads its deadlines from the server object; HTTP/2 has none of them, so they are rebuilt here for
// its sessions (one per connection) and streams (one per request):
//
//   connect ─ TLS handshake (headersTimeout) ─┬─ HTTP/1.1: as http-limits.ts
//                                             └─ HTTP/2 session: no request open for headersTimeout (the
//                                                first) or keepAliveTimeout (after an answer): GOAWAY
//                                                  └─ stream: request in full within requestTimeout,
//                                                     nothing moving for idleTimeout: reset
//
// A session with no stream open is closed even while frames arrive: a request's headers can be sent in
// many small frames, and Node shows a stream only once they are all there, so a client trickling them
// would otherwise hold its connection for ever. A stream that is reset closes its reply, which frees its
// load-control place (load-control.ts) as a socket's closing does for HTTP/1.1.

import { constants, type Http2SecureServer, type Http2Session, type SecureServerOptions, type ServerHttp2Stream } from 'node:http2';
import { type Clock, systemClock } from '../../time/clock.ts';
import { type HttpLimits, httpServerOptions } from './http-limits.ts';

/**
 * Streams one HTTP/2 connection may have open at once: browsers open a few, and nginx allows 128. More
 * requests of one client wait in its own queue; load control caps what one address has admitted.
 */
export const MAX_CONCURRENT_STREAMS = 100;

/** fastify's options for an HTTPS server with HTTP/2 and HTTP/1.1 under `limits`; the credentials are added by the caller. */
export function secureServerOptions(
  limits: HttpLimits,
  maxHeaderBytes: number,
): {
  http2: true;
  http2SessionTimeout: number;
  connectionTimeout: number;
  https: SecureServerOptions & { allowHTTP1: true };
} {
  return {
    http2: true,
    // fastify's own session timer (a GOAWAY when nothing moves for this long) stands for the idle deadline.
    http2SessionTimeout: limits.idleTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    https: {
      allowHTTP1: true,
      // Node waits two minutes for a TLS handshake unless told: a client's first packets, like a request head.
      handshakeTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS, maxHeaderListSize: maxHeaderBytes },
    },
  };
}

/**
 * Puts `limits` on `server` (made with {@link secureServerOptions}): the HTTP/1.1 deadlines and head size
 * on the server object, where Node's HTTP/1 code reads them, and the HTTP/2 deadlines on each session
 * and stream, on `clock`'s timers. Call before the server listens.
 */
export function limitSecureServer(server: Http2SecureServer, limits: HttpLimits, maxHeaderBytes: number, clock: Clock = systemClock): void {
  const { http } = httpServerOptions(limits);
  Object.assign(server, { ...http, maxHeaderSize: maxHeaderBytes });
  server.on('session', (session: Http2Session) => limitSession(session, limits, clock));
  server.on('stream', (stream: ServerHttp2Stream) => limitStream(stream, limits, clock));
}

/** A session with no stream open is closed after the head deadline (before its first) or the keep-alive one (after an answer). */
function limitSession(session: Http2Session, limits: HttpLimits, clock: Clock): void {
  let open = 0;
  let timer: unknown;
  const wait = (ms: number) => {
    timer = clock.setTimeout(() => {
      session.close();
      // A client that does not read the GOAWAY's way out keeps the connection only this much longer.
      clock.setTimeout(() => session.destroy(), limits.idleTimeoutMs);
    }, ms);
  };
  wait(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs));
  session.on('stream', (stream: ServerHttp2Stream) => {
    open++;
    clock.clearTimeout(timer);
    stream.once('close', () => {
      open--;
      if (open === 0 && !session.closed && !session.destroyed) wait(limits.keepAliveTimeoutMs);
    });
  });
  session.once('close', () => clock.clearTimeout(timer));
}

/** A stream's request must arrive in full within the request deadline, and something must move on it within the idle one. */
function limitStream(stream: ServerHttp2Stream, limits: HttpLimits, clock: Clock): void {
  const reset = () => {
    if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
  };
  stream.setTimeout(limits.idleTimeoutMs, reset);
  // A request without a body is whole with its headers.
  if (stream.endAfterHeaders) return;
  const timer = clock.setTimeout(reset, limits.requestTimeoutMs);
  stream.once('end', () => clock.clearTimeout(timer));
  stream.once('close', () => clock.clearTimeout(timer));
}
