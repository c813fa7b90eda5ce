// Stopping a server without cutting the requests under way. Node's server.close() only stops accepting:
// a kept-alive HTTP/1.1 connection that answers a request after it stays open until its keep-alive
// deadline, and an HTTP/2 session until it times out, so close() waits that long. While draining:
//
//   HTTP/1.1  idle connections closed at once (Node's closeIdleConnections); a request under way is answered
//             with `Connection: close` (when its head is not sent yet), and its connection closed after the answer
//   HTTP/2    GOAWAY on every session: streams under way finish, no new ones start, then the session closes
//   deadline  whatever is still open is destroyed, so that stopping takes a bounded time
//
// Requests that arrive on an open connection while draining are answered 503 by fastify, which stops
// routing once closing (`return503OnClosing`); the drain adds `Retry-After` and `Cache-Control: no-store`
// to them, which fastify's bare 503 lacks.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from 'node:http2';
import type { Server, Socket } from 'node:net';
import { type Clock, systemClock } from '../../time/clock.ts';

/**
 * How long requests under way may take to finish when the server stops, unless told: past any answer's
 * time (an upstream's search is bounded at 10 s), and short enough for an orchestrator's grace period
 * (Kubernetes waits 30 s before it kills).
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * `Retry-After` of requests that arrive while stopping. Without one, a client takes the 503 for a failure
 * and backs off for RF-4's 15 minutes or more (sbkit's clients, browsers); one second sends it back
 * soon, to another instance through the load balancer.
 */
const STOPPING_RETRY_AFTER_SECONDS = 1;

/** How a drain ended. */
export interface DrainOutcome {
  /** Connections destroyed at the deadline, with what they still carried. */
  forced: number;
}

/** The connections of one server, followed from its start, so that it can be stopped gracefully. */
export class ConnectionDrain {
  /** Every connection, as accepted (for TLS, before its handshake). */
  private readonly sockets = new Set<Socket>();
  /** The TLS sockets of the connections, once their handshake is done. */
  private readonly secureSockets = new Set<Socket>();
  private readonly sessions = new Set<Http2Session>();
  /**
   * Each HTTP/1.1 connection's latest answer. Answers on a connection end in order, so when the latest has
   * ended the connection carries none; kept weakly, and without a listener, since every request passes here.
   */
  private readonly latest = new WeakMap<Socket, ServerResponse>();
  private draining = false;

  /** `clock` times the drain's deadline. */
  constructor(
    private readonly server: Server & { closeIdleConnections?: () => void },
    private readonly clock: Clock = systemClock,
  ) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Over TLS, HTTP/1.1 requests come on the TLS socket, not on the connection's own.
    server.on('secureConnection', (socket: Socket) => {
      this.secureSockets.add(socket);
      socket.once('close', () => this.secureSockets.delete(socket));
    });
    server.on('session', (session: Http2Session) => {
      if (this.draining) session.close();
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
    // Before fastify's listener, which answers at once: its 503 then carries these headers too. (A request
    // answered normally in the moment between the drain's start and fastify's close keeps its own
    // Cache-Control, which the routes set; Retry-After means nothing beside a success.)
    server.prependListener('request', (request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) => {
      if (request.httpVersionMajor < 2) this.latest.set((request as IncomingMessage).socket, response as ServerResponse);
      if (!this.draining) return;
      response.setHeader('retry-after', String(STOPPING_RETRY_AFTER_SECONDS));
      response.setHeader('cache-control', 'no-store');
      // Node closes an HTTP/1.1 connection after an answer that says so.
      if (request.httpVersionMajor < 2) response.setHeader('connection', 'close');
    });
  }

  /**
   * Drains: stops keeping connections alive and closes them as their answers end. Resolves once every
   * connection has closed, or at `timeoutMs`, having destroyed those still open. The caller stops the
   * server listening (fastify's close()).
   */
  async drain(timeoutMs: number): Promise<DrainOutcome> {
    this.draining = true;
    for (const socket of [...this.sockets, ...this.secureSockets]) {
      const response = this.latest.get(socket);
      if (response === undefined || response.writableFinished) continue;
      // An answer under way: its connection closes once it has ended (Node's, by the header, when it is
      // not sent yet; ours otherwise).
      if (!response.headersSent) response.setHeader('connection', 'close');
      else response.once('close', () => socket.end());
    }
    this.server.closeIdleConnections?.();
    for (const session of this.sessions) session.close();
    if (this.sockets.size === 0) return { forced: 0 };
    let timer: unknown;
    const closed = new Promise<'closed'>((resolve) => {
      const check = () => {
        if (this.sockets.size === 0) resolve('closed');
      };
      for (const socket of this.sockets) socket.once('close', check);
    });
    // Unref'd like every timer of the system's clock: the connections it waits for keep the process alive.
    const late = new Promise<'late'>((resolve) => (timer = this.clock.setTimeout(() => resolve('late'), timeoutMs)));
    const outcome = await Promise.race([closed, late]);
    this.clock.clearTimeout(timer);
    if (outcome === 'closed') return { forced: 0 };
    const forced = this.sockets.size;
    for (const session of this.sessions) session.destroy();
    for (const socket of this.sockets) socket.destroy();
    return { forced };
  }
}
