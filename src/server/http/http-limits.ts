// What one connection may hold, and how many connections there may be. Node's HTTP server and fastify
// wait for nothing by default: a client that sends its headers and one byte of body keeps its request,
// and the load-control place it was admitted to, for ever, and 15 such clients refuse every program
// (LC-5 load_defer). So every phase has a deadline; the sockets a client may keep open are counted in
// connection-caps.ts.
//
//   connect ─ head (headersTimeout) ─ body (requestTimeout, from the first byte) ─ answer ─ idle (keepAliveTimeout)
//             └─ nothing moving either way for idleTimeout: closed (a client that stops reading its answer)
//
// Node's own deadlines for the head and the request are kept by a periodic sweep of its connections.
// The idle deadline is too (closeStalledConnections), rather than by Node's per-socket timer
// (`server.timeout`), which re-arms a timer at every read and write of every request: a third of what a
// bare request costs the server.
//
// A request that times out has its socket destroyed, which closes its reply: load control counts it
// out on that 'close' (load-control.ts), so its place is free at once.

import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { every, type MonotonicClock, systemClock } from '../../time/clock.ts';
import { sentBytes } from './sent-bytes.ts';

/** Deadlines of a connection's phases and caps on connections, for `sbkit serve` and `sbkit relay`. */
export interface HttpLimits {
  /** Longest a request's line and headers may take to arrive, from its first byte (or from the connection). */
  headersTimeoutMs: number;
  /** Longest a whole request, head and body, may take to arrive. */
  requestTimeoutMs: number;
  /** How long a connection may wait for its next request after an answer. */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing moves either way for this long is closed: a client that stops reading its answer. */
  idleTimeoutMs: number;
  /** Open connections at most; further ones are closed as they arrive. */
  maxConnections: number;
  /** Open connections of one client address at most (IPv6: of one /64), trusted proxies and relays aside. */
  maxConnectionsPerAddress: number;
  /** Open connections of one neighbourhood at most (IPv6: of one /56; an IPv4 address is its own), trusted proxies and relays aside. */
  maxConnectionsPerNeighbourhood: number;
  /** Each answer under way, past a grace of `idleTimeoutMs`, must be taken at this many bytes a second at least (answer-pace.ts). */
  minAnswerBytesPerSecond: number;
}

/**
 * The defaults, for a server that people and programs reach over the Internet. A request head is one
 * packet for every real client: 10 s is room for the slowest mobile link. The largest body (256 KiB)
 * crosses a 100 kbit/s link in about 21 s: 30 s. Clients ask minutes apart (RF-2, SB-12), so a kept
 * connection is worth little after 5 s (Node's own default). A client that takes
 * nothing of an answer for 30 s has stopped reading it. 100 connections per address leave room for a
 * household or an office behind one NAT; 10,000 in all stay below the open-file limit Node raises itself
 * to on common systems. 16 KiB/s is a 128 kbit/s link, the slowest that mobile plans throttle to: a
 * client that takes a 9 MB list more slowly holds a load-control place for more than nine minutes.
 */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 100,
  maxConnectionsPerNeighbourhood: 400,
  minAnswerBytesPerSecond: 16 * 1024,
};

/** fastify's options for `limits`: the deadlines, also given to Node's server as it is made. */
export function httpServerOptions(limits: HttpLimits): {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
} {
  // Node refuses a head deadline past the whole request's; the request's holds for the head too.
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    // The idle deadline is closeStalledConnections'.
    connectionTimeout: 0,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node looks for requests past their deadlines every 30 s unless told: a tenth of the shorter
      // deadline keeps the overshoot small, at most a second.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 10))),
    },
  };
}

/** How often the open connections are looked at, for a deadline of `idleTimeoutMs`: a tenth of it, at most a second. */
export function stallSweepMs(idleTimeoutMs: number): number {
  return Math.max(10, Math.min(1000, Math.floor(idleTimeoutMs / 10)));
}

/** What has moved on a connection: bytes read, and bytes written that the client has taken (sent-bytes.ts). */
interface Movement {
  read: number;
  sent: number;
  /** When one of them last changed, or the connection last waited between requests. */
  at: number;
  /** The connection's latest answer: from its start to its end, the connection is under the idle deadline. */
  answer: ServerResponse | undefined;
}

/**
 * Closes the connections of `server` on which an answer has started and nothing has moved either way
 * for `idleTimeoutMs`: no byte read, none written, none of what was written taken by the client (a
 * client that stops reading its answer). Between requests a connection is the keep-alive deadline's,
 * before its first request the head deadline's, while its request arrives the request deadline's; from
 * then until the answer starts only the server is at work (an operator's reload of a million-line feed
 * may take longer than the deadline), and nothing the client does is waited for. The connections are looked at every tenth of the
 * deadline (at most every second), so one is closed within 110 % of it; per request this only notes the
 * connection's answer. Time is `clock`'s monotonic reading; the sweeps are its timers.
 */
export function closeStalledConnections(server: Server, idleTimeoutMs: number, clock: MonotonicClock = systemClock): void {
  const connections = new Map<Socket, Movement>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { read: 0, sent: 0, at: clock.monotonic(), answer: undefined });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const moved = connections.get(request.socket);
    if (moved !== undefined) moved.answer = response;
  });
  const sweep = () => {
    const time = clock.monotonic();
    for (const [socket, moved] of connections) {
      const { bytesRead: read } = socket;
      const sent = sentBytes(socket);
      const { answer } = moved;
      const waiting = answer === undefined || !answer.headersSent || answer.writableFinished;
      if (waiting || read !== moved.read || sent !== moved.sent) {
        moved.read = read;
        moved.sent = sent;
        moved.at = time;
      } else if (time - moved.at >= idleTimeoutMs) {
        socket.destroy();
      }
    }
  };
  let stop: (() => void) | undefined;
  server.on('listening', () => {
    stop?.();
    stop = every(clock, stallSweepMs(idleTimeoutMs), sweep);
  });
  server.on('close', () => stop?.());
}
