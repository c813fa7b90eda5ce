// How many connections there may be, whose they are, and who gives way when all are taken. Every open
// connection costs a file descriptor, so there is a cap on all of them (`maxConnections`), and one
// client must not take them all: a cap per address (an IPv6 client's /64) and per neighbourhood (its
// /56, the smallest block an ISP hands one customer; an IPv4 address is its own neighbourhood, so the
// address cap is its only one). Trusted proxies and relays carry many clients: they are capped only
// by the total.
//
// Caps per address do not stop many addresses: 100 addresses with 100 silent or trickling connections
// each fill 10,000, and every browser is then turned away (issue 26, S6). So when all are taken, a
// newcomer takes the place of the oldest connection that has not been served: one on which no request
// has arrived whole yet, or whose last answer was a refusal (5xx). A browser sends its request as it
// connects and is served at once, so the oldest unserved connections are those that wait for nothing;
// a client keeps a connection from being displaced only by being served, which load control budgets.
// A newcomer is turned away only when every connection has been served.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2SecureServer, Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import { addressKey, neighbourhoodKey, peerAddress, type TrustedProxies } from '../guard/client-address.ts';

/** The caps {@link capConnections} holds; see HttpLimits for each. */
export interface ConnectionCaps {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  maxConnectionsPerNeighbourhood: number;
}

/** One open connection, as the caps count it. */
interface Held {
  socket: Socket;
  /** The shares it counts in; none for a trusted proxy or relay. */
  shares: readonly Share[];
  /** Counted out already: closed, or displaced and closing. */
  gone: boolean;
  /** The server's unserved connections, which a refusal puts this one back in. */
  unserved: Set<Held>;
}

/** A group of connections capped together: one address's, or one neighbourhood's. */
interface Share {
  key: string;
  cap: number;
}

const HELD = Symbol('sbkit held connection');
type Answer = (ServerResponse | Http2ServerResponse) & { [HELD]?: Held };

/** The 'finish' listener of an answer: a refusal leaves its connection unserved, to be displaced first. */
function afterAnswer(this: Answer): void {
  const connection = this[HELD];
  if (connection !== undefined && this.statusCode >= 500 && !connection.gone) connection.unserved.add(connection);
}

/** A connection's remote address and port: one TCP connection, whether seen as its socket, its TLS socket or an HTTP/2 request's. */
function endpoint(socket: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}

/**
 * Caps the connections of `server` (plain, or TLS with HTTP/2 and HTTP/1.1): all of them, those of
 * each address and of each neighbourhood, addresses in `trusted` aside. A connection over its address's
 * or neighbourhood's cap is closed before anything is read from it; one past the total displaces the
 * oldest unserved connection, or is closed when there is none. Per connection this costs two counts
 * and a table entry; per request, a lookup and a listener.
 */
export function capConnections(server: Server | Http2SecureServer, caps: ConnectionCaps, trusted: TrustedProxies): void {
  // Node closes connections past its own cap before they reach 'connection'. Ours is counted here, so
  // that a newcomer can displace an unserved connection; Node's, twice ours, bounds what newcomers
  // cost while the connections they displace close.
  server.maxConnections = caps.maxConnections * 2;
  const shares = new Map<string, number>();
  const held = new Map<string, Held>();
  /** Connections not yet served, oldest first (a Set keeps the order things were added in). */
  const unserved = new Set<Held>();
  let open = 0;

  const countOut = (connection: Held) => {
    if (connection.gone) return;
    connection.gone = true;
    open--;
    unserved.delete(connection);
    for (const { key } of connection.shares) {
      const left = (shares.get(key) ?? 1) - 1;
      if (left === 0) shares.delete(key);
      else shares.set(key, left);
    }
  };

  server.on('connection', (socket: Socket) => {
    const peer = peerAddress(socket.remoteAddress ?? '');
    const own = trusted.has(peer) ? [] : sharesOf(peer, caps);
    if (own.some(({ key, cap }) => (shares.get(key) ?? 0) >= cap)) {
      socket.destroy();
      return;
    }
    if (open >= caps.maxConnections) {
      const oldest = unserved.values().next();
      if (oldest.done === true) {
        socket.destroy();
        return;
      }
      countOut(oldest.value);
      oldest.value.socket.destroy();
    }
    const connection: Held = { socket, shares: own, gone: false, unserved };
    open++;
    for (const { key } of own) shares.set(key, (shares.get(key) ?? 0) + 1);
    // Trusted proxies and relays are never displaced: each carries many clients.
    if (own.length > 0) unserved.add(connection);
    const at = endpoint(socket);
    held.set(at, connection);
    socket.once('close', () => {
      countOut(connection);
      if (held.get(at) === connection) held.delete(at);
    });
  });

  server.on('request', (request: IncomingMessage | Http2ServerRequest, response: Answer) => {
    const connection = held.get(endpoint(request.socket));
    if (connection === undefined || connection.gone) return;
    unserved.delete(connection);
    response[HELD] = connection;
    response.once('finish', afterAnswer);
  });
}

/** The shares a connection from `peer` counts in: its address's, and its neighbourhood's when that is wider (IPv6). */
function sharesOf(peer: string, caps: ConnectionCaps): Share[] {
  const address: Share = { key: addressKey(peer), cap: caps.maxConnectionsPerAddress };
  const neighbourhood = neighbourhoodKey(peer);
  return neighbourhood === address.key ? [address] : [address, { key: neighbourhood, cap: caps.maxConnectionsPerNeighbourhood }];
}
