// Slow and idle clients against a real server on loopback (http/http-limits.ts): requests that never
// finish arriving, connections kept open doing nothing, a client that stops reading its answer, and
// many connections from one address. Deadlines are set short (a few hundred ms) so that waiting for
// the server's own timers, the behaviour under test, stays quick.

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import type { HttpLimits } from '../../src/server/http/http-limits.ts';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { startConfiguredService } from '../server/service-fixture.ts';
import { demoCatalog } from '../server/fixture.ts';
import { until, within } from '../support/waiting.ts';

const SHORT: Partial<HttpLimits> = { headersTimeoutMs: 300, requestTimeoutMs: 1000, keepAliveTimeoutMs: 300, idleTimeoutMs: 5000 };
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';

const opened: { close(): Promise<unknown> }[] = [];
const sockets: Socket[] = [];
after(async () => {
  for (const socket of sockets) socket.destroy();
  for (const part of opened.reverse()) await part.close();
});

async function start(options: Partial<Parameters<typeof createServer>[0]> = {}): Promise<{ server: SafeBrowsingServer; port: number }> {
  const server = createServer({ catalog: demoCatalog(), port: 0, httpLimits: SHORT, ...options });
  opened.push(server);
  const url = await server.listen();
  return { server, port: Number(new URL(url).port) };
}

type Connection = Socket & { closedAt: Promise<number> };

/** A raw connection from `localAddress` (any 127/8 address is this machine's), with when it closed. */
function open(port: number, localAddress = '127.0.0.1'): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }) as Connection;
    sockets.push(socket);
    socket.closedAt = new Promise((done) => socket.once('close', () => done(performance.now())));
    socket.on('error', () => undefined);
    // Flowing, so that the server's closing is seen even when nothing reads what came before it.
    socket.once('connect', () => resolve(socket.resume()));
    socket.once('error', reject);
  });
}

/** The status of the answer that comes on `socket` to what was already sent, or 0 when it closes unanswered. */
function statusAnswered(socket: Connection): Promise<number> {
  return Promise.race([
    new Promise<number>((resolve) =>
      socket.once('data', (chunk: Buffer) => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1'))?.[1] ?? -1))),
    ),
    socket.closedAt.then(() => 0),
  ]);
}

/** The connections `server` has open, as it counts them. */
function connectionsOf(server: SafeBrowsingServer): Promise<number> {
  return new Promise((resolve, reject) => server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** One complete request on a connection of its own, answered: the status line's code, or 0 when closed unanswered. */
async function statusOn(socket: Connection, path = '/healthz'): Promise<number> {
  const answer = new Promise<number>((resolve) =>
    socket.once('data', (chunk: Buffer) => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1'))?.[1] ?? -1))),
  );
  socket.write(`GET ${path} HTTP/1.1\r\nHost: sb\r\nUser-Agent: probe\r\n\r\n`);
  return within(2000, 'an answer or a close', Promise.race([answer, socket.closedAt.then(() => 0)]));
}

describe('slow clients (slowloris) against sbkit serve', () => {
  it('gives no load-control place to requests whose bodies never arrive, and closes them at the request deadline', async (t) => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const { server, port } = await start({ loadControl, httpLimits: { ...SHORT, requestTimeoutMs: 1500 } });
    const url = `http://127.0.0.1:${port}`;
    // The attack: LOAD_MAX (15) requests, each its own client (own User-Agent, so no rate rule binds),
    // that send their headers and one byte of a 1000-byte body, and then nothing. Before a place was
    // taken only once the body is in (issue 26, S1), they held every place until the deadline.
    const started = performance.now();
    const slow = await Promise.all(Array.from({ length: 15 }, (_, i) => open(port, `127.0.0.${11 + (i % 3)}`)));
    slow.forEach((socket, i) =>
      socket.write(
        `POST /v5/hashes:search HTTP/1.1\r\nHost: sb\r\nUser-Agent: slow/${i}\r\nContent-Type: application/x-protobuf\r\nContent-Length: 1000\r\n\r\nx`,
      ),
    );
    const during = await fetch(`${url}${SEARCH}`, { headers: { 'user-agent': 'honest-client/1' } });
    assert.equal(during.status, 200, 'while they wait for their bodies, a program is served');
    assert.equal(loadControl.gate.load, 0, 'no place is taken by a request whose body is not in');

    const closedAt = await within(4000, 'the slow requests closed by the server', Promise.all(slow.map((socket) => socket.closedAt)));
    const heldMs = Math.max(...closedAt) - started;
    assert.ok(heldMs >= 1400 && heldMs < 3500, `held for ${Math.round(heldMs)} ms, the request deadline being 1500 ms`);
    t.diagnostic(`15 slow requests held their connections ${Math.round(heldMs)} ms, and no place`);
    assert.equal(server.app.server.listening, true);
  });

  it('lets one address hold at most a third of the places with requests under way, so programs elsewhere are served', async () => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const server = createServer({ catalog: demoCatalog(), port: 0, httpLimits: { ...SHORT, requestTimeoutMs: 3000 }, loadControl });
    opened.push(server);
    // Work that takes long (a slow upstream, say): held until the client goes.
    server.app.get('/held', async (_request, reply) => {
      await new Promise((resolve) => reply.raw.once('close', resolve));
      return reply;
    });
    const port = Number(new URL(await server.listen()).port);
    const held = await Promise.all(Array.from({ length: 15 }, () => open(port, '127.0.0.21')));
    held.forEach((socket, i) => socket.write(`GET /held HTTP/1.1\r\nHost: sb\r\nUser-Agent: slow/${i}\r\n\r\n`));
    // The ten over the cap are answered 503 at once, whichever arrive last; five hold their places.
    const statuses: number[] = [];
    for (const socket of held) void statusAnswered(socket).then((status) => statuses.push(status));
    await until(2000, 'ten refusals', () => statuses.length === 10);
    assert.deepEqual(statuses, Array<number>(10).fill(503));
    assert.equal(loadControl.gate.load, 5);
    const elsewhere = await statusOn(await open(port, '127.0.0.22'), SEARCH);
    assert.equal(elsewhere, 200, 'a program at another address is admitted during the attack');
    for (const socket of held) socket.destroy();
    await until(1000, 'every place freed', () => loadControl.gate.load === 0);
  });

  it('closes a connection whose request head never ends, and one that never sends anything', async () => {
    const { port } = await start();
    const started = performance.now();
    const partial = await open(port);
    partial.write('GET /healthz HTTP/1.1\r\nHost: sb\r\nX-Slow: ');
    const silent = await open(port);
    const [partialAt, silentAt] = await within(2500, 'both closed', Promise.all([partial.closedAt, silent.closedAt]));
    for (const at of [partialAt, silentAt]) assert.ok(at - started < 1500, `closed after ${Math.round(at - started)} ms (deadline 300 ms)`);
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    const { port } = await start();
    const socket = await open(port);
    assert.equal(await statusOn(socket), 200);
    const answeredAt = performance.now();
    // Node adds one second to the keep-alive deadline, so that a client's reuse never races the close.
    const closedAt = await within(3000, 'the idle connection closed', socket.closedAt);
    assert.ok(closedAt - answeredAt < 2000, `closed ${Math.round(closedAt - answeredAt)} ms after the answer`);
  });

  it('closes a connection whose client stops reading its answer, and frees its place', async (t) => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const server = createServer({ catalog: demoCatalog(), port: 0, httpLimits: { ...SHORT, idleTimeoutMs: 600 }, loadControl });
    opened.push(server);
    // An answer far larger than what loopback's socket buffers hold, so that its writing stalls.
    const big = Buffer.alloc(64 * 1024 * 1024);
    server.app.get('/big', async (_request, reply) => reply.header('content-type', 'application/octet-stream').send(big));
    const port = Number(new URL(await server.listen()).port);
    const socket = await open(port);
    socket.write('GET /big HTTP/1.1\r\nHost: sb\r\nUser-Agent: slow-reader/1\r\n\r\n');
    await within(2000, 'the answer started', new Promise((resolve) => socket.once('data', resolve)));
    socket.pause();
    assert.equal(loadControl.gate.load, 1, 'the stalled answer holds a place');
    const stalledAt = performance.now();
    await until(3000, 'the stalled answer counted out', () => loadControl.gate.load === 0);
    const heldMs = performance.now() - stalledAt;
    t.diagnostic(`the stalled answer held its place ${Math.round(heldMs)} ms`);
    assert.ok(heldMs < 3000, `held ${Math.round(heldMs)} ms, the idle deadline being 600 ms`);
  });
});

describe('connection caps', () => {
  it('caps the connections of one address, not those of others, and all connections together', async () => {
    const { server, port } = await start({
      httpLimits: {
        ...SHORT,
        headersTimeoutMs: 5000,
        keepAliveTimeoutMs: 5000,
        idleTimeoutMs: 5000,
        maxConnectionsPerAddress: 5,
        maxConnections: 8,
      },
    });
    const first = await Promise.all(Array.from({ length: 5 }, () => open(port)));
    for (const socket of first) assert.equal(await statusOn(socket), 200);
    const sixth = await open(port);
    assert.equal(await statusOn(sixth), 0, 'the sixth connection of 127.0.0.1 is closed unanswered');
    const other = await open(port, '127.0.0.2');
    assert.equal(await statusOn(other), 200, 'another address is not held back by the first');
    first[0]!.destroy();
    await until(1000, 'the server counting the closed connection out', async () => (await connectionsOf(server)) === 5);
    const again = await open(port);
    assert.equal(await statusOn(again), 200, 'a connection closed makes room for the next');
    // 5 of 127.0.0.1 and 1 of 127.0.0.2 are open: two more fill the cap of 8.
    for (const socket of [await open(port, '127.0.0.3'), await open(port, '127.0.0.3')]) assert.equal(await statusOn(socket), 200);
    assert.equal(await statusOn(await open(port, '127.0.0.4')), 0, 'the ninth connection is closed, whoever asks');
  });

  it('does not cap per address a trusted proxy, which carries many clients', async () => {
    const { port } = await start({
      httpLimits: { ...SHORT, headersTimeoutMs: 5000, keepAliveTimeoutMs: 5000, idleTimeoutMs: 5000, maxConnectionsPerAddress: 5 },
      trustedPeers: ['127.0.0.1'],
    });
    const proxy = await Promise.all(Array.from({ length: 8 }, () => open(port)));
    for (const socket of proxy) assert.equal(await statusOn(socket), 200);
    const client = await Promise.all(Array.from({ length: 6 }, () => open(port, '127.0.0.2')));
    const statuses = [];
    for (const socket of client) statuses.push(await statusOn(socket));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 0], 'an untrusted address still is');
  });

  it("takes sbkit serve's caps from the configuration's http section, a flag over it, and its trusted proxies", async () => {
    const config = parseServerConfig(
      {
        http: { maxConnectionsPerAddress: 2, maxConnections: 50, headersTimeoutSeconds: 5 },
        loadControl: { trustedProxies: ['127.0.0.3'] },
        lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }],
      },
      '/etc/sbkit',
    );
    const service = await startConfiguredService(config, { trustedRelays: ['127.0.0.4'], httpLimits: { maxConnectionsPerAddress: 3 } });
    opened.push(service);
    const port = Number(new URL(service.url).port);
    const served = async (from: string, count: number) => {
      const connections = await Promise.all(Array.from({ length: count }, () => open(port, from)));
      const statuses = [];
      for (const socket of connections) statuses.push(await statusOn(socket));
      return statuses;
    };
    assert.deepEqual(await served('127.0.0.1', 4), [200, 200, 200, 0], 'the flag (3) over the file (2)');
    assert.deepEqual(await served('127.0.0.3', 5), [200, 200, 200, 200, 200], "the configuration's trusted proxy");
    assert.deepEqual(await served('127.0.0.4', 5), [200, 200, 200, 200, 200], 'the trusted relay');
  });
});
