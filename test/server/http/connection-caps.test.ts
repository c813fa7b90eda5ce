import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, it } from 'node:test';
import { TrustedProxies } from '../../../src/server/guard/client-address.ts';
import { type ConnectionCaps, capConnections } from '../../../src/server/http/connection-caps.ts';

/** A socket as the caps see it: its peer, and whether it was closed. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(
    readonly remoteAddress: string,
    readonly remotePort: number,
  ) {
    super();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

/** A server with `caps` on it: `connect` hands it a connection, `serve` a request on one with its answer's status. */
function capped(caps: Partial<ConnectionCaps>, trusted: string[] = []) {
  const server = new EventEmitter() as EventEmitter & { maxConnections?: number };
  capConnections(
    server as unknown as Server,
    { maxConnections: 100, maxConnectionsPerAddress: 100, maxConnectionsPerNeighbourhood: 400, ...caps },
    new TrustedProxies(trusted),
  );
  let port = 1000;
  return {
    server,
    connect: (address: string): FakeSocket => {
      const socket = new FakeSocket(address, port++);
      server.emit('connection', socket);
      return socket;
    },
    serve: (socket: FakeSocket, status = 200): void => {
      const answer = Object.assign(new EventEmitter(), { statusCode: status });
      server.emit('request', { socket }, answer);
      answer.emit('finish');
    },
  };
}

const closed = (sockets: FakeSocket[]) => sockets.map((socket) => socket.destroyed);

describe('capConnections', () => {
  it("caps an IPv6 client's /64 and its /56, and an IPv4 address by its own cap alone", () => {
    const { connect } = capped({ maxConnectionsPerAddress: 3, maxConnectionsPerNeighbourhood: 5 });
    const first = [1, 2, 3, 4].map((host) => connect(`2001:db8:0:1::${host}`));
    assert.deepEqual(closed(first), [false, false, false, true], 'three of one /64');
    const second = [1, 2, 3].map((host) => connect(`2001:db8:0:2::${host}`));
    assert.deepEqual(closed(second), [false, false, true], 'two more of the same /56 make five');
    assert.equal(connect('2001:db8:0:100::1').destroyed, false, 'the next /56 has its own');
    const v4 = [1, 2, 3, 4].map(() => connect('192.0.2.7'));
    assert.deepEqual(closed(v4), [false, false, false, true]);
  });

  it('counts a closed connection out of its shares', () => {
    const { connect } = capped({ maxConnectionsPerAddress: 1 });
    const one = connect('192.0.2.1');
    assert.equal(connect('192.0.2.1').destroyed, true);
    one.destroy();
    assert.equal(connect('192.0.2.1').destroyed, false);
  });

  it('lets a newcomer displace the oldest unserved connection when all are taken, and turns it away when all are served', () => {
    const { connect, serve } = capped({ maxConnections: 3 });
    const [a, b, c] = ['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((address) => connect(address)) as [FakeSocket, FakeSocket, FakeSocket];
    serve(a);
    const d = connect('192.0.2.4');
    assert.deepEqual(closed([a, b, c, d]), [false, true, false, false], 'b, the oldest never served, gave way');
    serve(c);
    serve(d);
    const e = connect('192.0.2.5');
    assert.equal(e.destroyed, true, 'every connection has been served: the newcomer is turned away');
    serve(a, 503);
    const f = connect('192.0.2.6');
    assert.deepEqual(closed([a, f]), [true, false], 'a connection whose last answer was a refusal counts as unserved');
  });

  it('caps a trusted proxy by the total alone, and never displaces it', () => {
    const { connect } = capped({ maxConnections: 3, maxConnectionsPerAddress: 1 }, ['192.0.2.9']);
    const proxy = [1, 2, 3].map(() => connect('192.0.2.9'));
    assert.deepEqual(closed(proxy), [false, false, false]);
    assert.equal(connect('192.0.2.1').destroyed, true);
    assert.deepEqual(closed(proxy), [false, false, false]);
  });

  it("leaves Node's own cap above its own, so that newcomers reach it", () => {
    const { server } = capped({ maxConnections: 50 });
    assert.equal(server.maxConnections, 100);
  });
});
