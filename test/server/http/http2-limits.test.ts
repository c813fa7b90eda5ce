// The deadlines and caps of a TLS server (http/http2-limits.ts, http/http-limits.ts) against real
// HTTP/2 and HTTP/1.1 clients on loopback, with load control in front: HTTP/2 streams share one
// connection, so what HTTP/1.1 gets from its socket (the peer's address, a close that frees a
// load-control place, a connection cap) must hold per session and stream. Deadlines are set short.

import assert from 'node:assert/strict';
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import https from 'node:https';
import { connect } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { MAX_CONCURRENT_STREAMS, secureServerOptions } from '../../../src/server/http/http2-limits.ts';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../../../src/server/http/http-limits.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { createServer, type ServerOptions } from '../../../src/server/http/server.ts';
import { demoCatalog } from '../fixture.ts';
import { TestCa } from '../tls-fixture.ts';
import { until, within } from '../../support/waiting.ts';

const SHORT: Partial<HttpLimits> = { headersTimeoutMs: 300, requestTimeoutMs: 1000, keepAliveTimeoutMs: 300, idleTimeoutMs: 5000 };
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';

let dir: string;
let ca: TestCa;
let tls: { cert: Buffer; key: Buffer };
const opened: { close(): Promise<void> | void }[] = [];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-h2-limits-'));
  ca = await TestCa.create(dir);
  const files = await ca.issue('limits.test');
  tls = { cert: await readFile(files.cert), key: await readFile(files.key) };
});
after(async () => {
  for (const part of opened.reverse()) await part.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(options: Partial<ServerOptions> = {}, routes: (server: ReturnType<typeof createServer>) => void = () => {}) {
  const server = createServer({ catalog: demoCatalog(), port: 0, httpLimits: SHORT, tls, ...options });
  routes(server);
  opened.push(server);
  return { server, url: await server.listen() };
}

/** An HTTP/2 session trusting the test CA, from `localAddress`; closed after the tests. */
function session(url: string, localAddress = '127.0.0.1'): ClientHttp2Session & { closed_: Promise<number> } {
  const client = http2.connect(url, { ca: ca.cert, localAddress } as http2.SecureClientSessionOptions) as ClientHttp2Session & {
    closed_: Promise<number>;
  };
  client.on('error', () => undefined);
  client.closed_ = new Promise((resolve) => client.once('close', () => resolve(performance.now())));
  opened.push({ close: () => void client.destroy() });
  return client;
}

/** A request on `client`; resolves to the answer's status and body, or to the code of the stream's reset. */
function ask(client: ClientHttp2Session, path: string, headers: http2.OutgoingHttpHeaders = {}, end = true) {
  const stream = client.request({ ':path': path, 'user-agent': 'h2-test/1', ...headers }, { endStream: end });
  const answer = new Promise<{ status: number; body: string } | { reset: number }>((resolve) => {
    let status = 0;
    let body = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) resolve({ reset: stream.rstCode ?? -1 });
    });
  });
  return { stream, answer };
}

/** A route whose work lasts until its client goes (a slow upstream, say): an admitted request holds its place so long. */
function heldRoute(server: ReturnType<typeof createServer>): void {
  server.app.get('/held', async (_request, reply) => {
    await new Promise((resolve) => reply.raw.once('close', resolve));
    return reply;
  });
}

/** A request of the held route: admitted by load control, it holds a place until its stream goes. */
function held(client: ClientHttp2Session, agent: string): ClientHttp2Stream {
  return ask(client, '/held', { 'user-agent': agent }).stream;
}

/** A POST whose body never ends: it takes no load-control place while the body is awaited. */
function slowPost(client: ClientHttp2Session, agent: string): ClientHttp2Stream {
  const { stream } = ask(
    client,
    '/v5/hashes:search',
    { ':method': 'POST', 'user-agent': agent, 'content-type': 'application/x-protobuf', 'content-length': '1000' },
    false,
  );
  stream.write('x');
  return stream;
}

describe('secureServerOptions', () => {
  it('bounds the TLS handshake by the head deadline and caps streams and header lists', () => {
    const options = secureServerOptions(DEFAULT_HTTP_LIMITS, 65536);
    assert.equal(options.https.handshakeTimeout, 10_000, "Node's default is two minutes");
    assert.deepEqual(options.https.settings, { maxConcurrentStreams: MAX_CONCURRENT_STREAMS, maxHeaderListSize: 65536 });
    assert.equal(options.https.allowHTTP1, true);
    assert.equal(options.http2SessionTimeout, DEFAULT_HTTP_LIMITS.idleTimeoutMs);
  });
});

describe('a TLS server with HTTP/2 and HTTP/1.1', () => {
  it('answers both on one port, and takes a 1000-prefix search over each, 20 KB of query', async () => {
    const { url } = await start();
    const long = `${SEARCH}${'&hashPrefixes=WwuJdQ'.repeat(999)}`;
    assert.ok(long.length > 16 * 1024);
    const answer = await ask(session(url), long).answer;
    assert.ok('status' in answer && answer.status === 200, JSON.stringify(answer).slice(0, 200));
    const h1 = await new Promise<[number, string]>((resolve, reject) =>
      https
        .get(`${url}${long}`, { ca: ca.cert, agent: false }, (response) => {
          response.resume();
          resolve([response.statusCode ?? 0, response.httpVersion]);
        })
        .on('error', reject),
    );
    assert.deepEqual(h1, [200, '1.1'], "Node's HTTP/1 head limit (16 KB) is raised on the TLS server too");
  });

  it('frees the load-control place of a stream the client resets, at once', async () => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const { url } = await start({ loadControl, httpLimits: { ...SHORT, requestTimeoutMs: 60_000 } }, heldRoute);
    const client = session(url);
    const streams = [held(client, 'a/1'), held(client, 'b/1')];
    await until(2000, 'both admitted', () => loadControl.gate.load === 2);
    streams[0]!.close(http2.constants.NGHTTP2_CANCEL);
    await until(1000, 'the reset stream counted out', () => loadControl.gate.load === 1);
    streams[1]!.close(http2.constants.NGHTTP2_CANCEL);
    await until(1000, 'both counted out', () => loadControl.gate.load === 0);
    assert.equal(client.closed, false, 'the session goes on');
  });

  it("keys load control by the session's peer address: one address holds at most a third of the places, whatever its streams", async () => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const { url } = await start({ loadControl, httpLimits: { ...SHORT, requestTimeoutMs: 60_000 } }, heldRoute);
    const client = session(url, '127.0.0.31');
    for (let i = 0; i < 5; i++) held(client, `slow/${i}`);
    await until(2000, 'five admitted', () => loadControl.gate.load === 5);
    const sixth = await ask(client, SEARCH, { 'user-agent': 'slow/6' }).answer;
    assert.ok('status' in sixth && sixth.status === 503, `the sixth stream of 127.0.0.31: ${JSON.stringify(sixth)}`);
    const elsewhere = await ask(session(url, '127.0.0.32'), SEARCH).answer;
    assert.ok('status' in elsewhere && elsewhere.status === 200, 'another address is admitted');
  });

  it('resets a stream whose request body does not arrive within the request deadline, having given it no place', async (t) => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const { url } = await start({ loadControl, httpLimits: { ...SHORT, requestTimeoutMs: 600 } });
    const client = session(url);
    const started = performance.now();
    const stream = slowPost(client, 'slow/1');
    const reset = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
    // A later stream of the same session, answered: the POST's head has been taken in by then.
    await ask(client, SEARCH).answer;
    assert.equal(loadControl.gate.load, 0, 'no place while the body is awaited');
    const resetCode = await within(3000, 'the stream reset', reset);
    const heldMs = performance.now() - started;
    assert.equal(resetCode, http2.constants.NGHTTP2_CANCEL);
    t.diagnostic(`a body that never came held its stream ${Math.round(heldMs)} ms, and no place`);
    assert.ok(heldMs >= 550 && heldMs < 2000, `held ${Math.round(heldMs)} ms, the request deadline being 600 ms`);
    assert.equal(loadControl.gate.load, 0, 'a request takes its place once its body is in (issue 26, S1)');
  });

  it('resets a stream whose client stops reading its answer, freeing its place', async () => {
    const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
    opened.push(loadControl);
    const big = Buffer.alloc(16 * 1024 * 1024);
    const { url } = await start({ loadControl, httpLimits: { ...SHORT, idleTimeoutMs: 600 } }, (server) =>
      server.app.get('/big', async (_request, reply) => reply.header('content-type', 'application/octet-stream').send(big)),
    );
    const client = session(url);
    const stream = client.request({ ':path': '/big', 'user-agent': 'slow-reader/1' });
    stream.on('error', () => undefined);
    await within(2000, 'the answer started', new Promise((resolve) => stream.once('data', resolve)));
    stream.pause();
    assert.equal(loadControl.gate.load, 1, 'the stalled answer holds a place');
    await until(3000, 'the stalled answer counted out', () => loadControl.gate.load === 0);
  });

  it('closes a session that opens no stream within the head deadline, and one left idle after its answer', async () => {
    const { url } = await start();
    const started = performance.now();
    const silent = session(url);
    const used = session(url);
    assert.ok('status' in (await ask(used, '/healthz').answer));
    const answeredAt = performance.now();
    const [silentAt, usedAt] = await within(3000, 'both sessions closed', Promise.all([silent.closed_, used.closed_]));
    assert.ok(silentAt - started < 1500, `the silent session closed after ${Math.round(silentAt - started)} ms (deadline 300 ms)`);
    assert.ok(usedAt - answeredAt < 1500, `the idle session closed ${Math.round(usedAt - answeredAt)} ms after its answer (300 ms)`);
  });

  it('closes a connection that never starts its TLS handshake, and an HTTP/1.1 one whose head never ends', async () => {
    const { url } = await start();
    const port = Number(new URL(url).port);
    const started = performance.now();
    const raw = connect({ port, host: '127.0.0.1' });
    raw.on('error', () => undefined);
    const rawClosed = new Promise<number>((resolve) => raw.once('close', () => resolve(performance.now())));
    const partial = tlsConnect({ port, host: '127.0.0.1', ca: tls.cert, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
    partial.on('error', () => undefined);
    partial.once('secureConnect', () => partial.write('GET /healthz HTTP/1.1\r\nHost: sb\r\nX-Slow: '));
    const partialClosed = new Promise<number>((resolve) => partial.once('close', () => resolve(performance.now())));
    const [rawAt, partialAt] = await within(3000, 'both closed', Promise.all([rawClosed, partialClosed]));
    for (const at of [rawAt, partialAt]) assert.ok(at - started < 1500, `closed after ${Math.round(at - started)} ms (deadline 300 ms)`);
  });

  it('counts an HTTP/2 session as one connection against the per-address cap', async () => {
    const { url } = await start({
      httpLimits: { ...SHORT, keepAliveTimeoutMs: 10_000, headersTimeoutMs: 10_000, maxConnectionsPerAddress: 2 },
    });
    const first = session(url, '127.0.0.41');
    const second = session(url, '127.0.0.41');
    for (const client of [first, second]) {
      const answers = await Promise.all([ask(client, '/healthz').answer, ask(client, '/healthz').answer]);
      assert.ok(
        answers.every((answer) => 'status' in answer && answer.status === 200),
        'many streams on one connection',
      );
    }
    const third = session(url, '127.0.0.41');
    await within(2000, 'the third session refused', third.closed_);
    const other = await ask(session(url, '127.0.0.42'), '/healthz').answer;
    assert.ok('status' in other && other.status === 200, 'another address is not capped');
  });
});
