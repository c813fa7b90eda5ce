// Stopping a real server on loopback while requests are under way (connection-drain.ts, through
// createServer's close()): HTTP/1.1 plain and over TLS, and HTTP/2.

import assert from 'node:assert/strict';
import http, { type IncomingMessage } from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { connect } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServer, type ServerOptions } from '../../../src/server/http/server.ts';
import { demoCatalog } from '../fixture.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { within } from '../../support/waiting.ts';
import { TestCa } from '../tls-fixture.ts';

let dir: string;
let ca: TestCa;
let credentials: { cert: Buffer; key: Buffer };
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-drain-'));
  ca = await TestCa.create(dir);
  const files = await ca.issue('drain.test');
  credentials = { cert: await readFile(files.cert), key: await readFile(files.key) };
});
after(() => rm(dir, { recursive: true, force: true }));

/** A server with `/slow`, which answers when the test says so; `arrived` resolves as a request reaches it. */
async function slowServer(options: Partial<ServerOptions> = {}) {
  const server = createServer({ catalog: demoCatalog(), port: 0, ...options });
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived = () => {};
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  server.app.get('/slow', async () => {
    arrived();
    await released;
    return { slow: 'answered' };
  });
  const url = await server.listen();
  return { server, url, release, arrival };
}

/** An HTTP/1.1 GET over `agent`: status, `connection` header, body, and when its socket closed. */
function get(url: string, agent: http.Agent, ca?: Buffer) {
  return new Promise<{ status: number; connection: string | undefined; body: string; socketClosed: Promise<void> }>((resolve, reject) => {
    const request = (url.startsWith('https:') ? https : http).get(
      url,
      { agent, ...(ca === undefined ? {} : { ca }) },
      (response: IncomingMessage) => {
        const socketClosed = new Promise<void>((done) => response.socket.once('close', () => done()));
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body, socketClosed }),
        );
      },
    );
    request.on('error', reject);
  });
}

describe('stopping a server', () => {
  it('over HTTP/1.1: closes idle connections at once, answers the request under way with Connection: close, refuses new ones', async () => {
    const { server, url, release, arrival } = await slowServer();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const idle = await get(`${url}/healthz`, agent);
      assert.equal(idle.connection, 'keep-alive');
      const busyAgent = new http.Agent({ keepAlive: true });
      const slow = get(`${url}/slow`, busyAgent);
      await arrival;
      const started = performance.now();
      const closed = server.close();
      await within(1000, 'the idle connection closed', idle.socketClosed);
      await assert.rejects(get(`${url}/healthz`, new http.Agent()), { code: 'ECONNREFUSED' }, 'no new connections');
      release();
      const answer = await slow;
      assert.deepEqual([answer.status, answer.connection, answer.body], [200, 'close', '{"slow":"answered"}']);
      await within(1000, 'close() resolved', closed);
      // Without the drain, the answered connection stays kept alive, and close() waits for its keep-alive deadline (5 s).
      assert.ok(performance.now() - started < 2000, `stopped in ${Math.round(performance.now() - started)} ms`);
      busyAgent.destroy();
    } finally {
      agent.destroy();
    }
  });

  it('over TLS: the HTTP/2 session gets GOAWAY and its stream under way finishes, as does an HTTP/1.1 request', async () => {
    const { server, url, release, arrival } = await slowServer({ tls: credentials });
    const session = http2.connect(url, { ca: ca.cert });
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const sessionClosed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    const stream = session.request({ ':path': '/slow' });
    stream.end();
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    const status = new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
    const streamEnded = new Promise<void>((resolve) => stream.once('end', () => resolve()));
    await arrival;
    const agent = new https.Agent({ keepAlive: true });
    // The HTTP/1.1 request also waits at /slow: both are under way as the server stops.
    const h1 = get(`${url}/slow`, agent, ca.cert);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const closed = server.close();
    await within(1000, 'GOAWAY', goaway);
    release();
    assert.equal(await status, 200);
    await streamEnded;
    assert.equal(body, '{"slow":"answered"}');
    const answer = await h1;
    assert.deepEqual([answer.status, answer.connection], [200, 'close']);
    await within(1000, 'close() resolved', closed);
    await within(1000, 'the session closed', sessionClosed);
    assert.ok(performance.now() - started < 2000, `stopped in ${Math.round(performance.now() - started)} ms`);
    agent.destroy();
  });

  it('answers a request that arrives while stopping with 503, Retry-After and no-store, so that clients come back soon', async () => {
    const { server, url } = await slowServer();
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Part of a head: the connection is not idle, so stopping leaves it open, as it would a balancer's
    // connection whose next request is on its way.
    socket.write('GET /v5/hashLists HTTP/1.1\r\nHost: sb\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = server.close();
    await assert.rejects(
      get(`${url}/healthz`, new http.Agent()),
      (error: NodeJS.ErrnoException) => ['ECONNREFUSED', 'ECONNRESET'].includes(error.code ?? ''),
      'new connections are refused: stopping has begun',
    );
    socket.write('User-Agent: sbkit-test\r\n\r\n');
    await within(5000, 'the answer', ended);
    await closed;
    const head = received.slice(0, received.indexOf('\r\n\r\n')).toLowerCase();
    assert.match(head, /^http\/1\.1 503 /);
    assert.match(head, /\r\nretry-after: 1\r\n/, `Retry-After: without it, a client backs off for 15 minutes or more\n${head}`);
    assert.match(head, /\r\ncache-control: no-store\r\n/);
  });

  it('cuts what is still under way at the shutdown deadline, and says how many connections it cut', async () => {
    const lines: string[] = [];
    const clock = new FakeClock();
    const { server, url, release, arrival } = await slowServer({ shutdownTimeoutMs: 300, log: (line) => lines.push(line), clock });
    const failed = get(`${url}/slow`, new http.Agent()).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await arrival;
    let stopped = false;
    const closed = server.close().then(() => (stopped = true));
    await clock.advanceAsync(299);
    assert.equal(stopped, false, 'the request under way may go on until the deadline');
    assert.deepEqual(lines, []);
    await clock.advanceAsync(1);
    await within(2000, 'close() resolved', closed);
    assert.equal(await failed, 'ECONNRESET');
    assert.deepEqual(lines, ['1 connections still busy after 0.3 s were cut']);
    release();
  });
});
