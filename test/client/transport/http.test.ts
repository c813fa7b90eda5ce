import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { type HttpSettings, sendRequest } from '../../../src/client/transport/http.ts';
import { TransportError } from '../../../src/client/client-errors.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { until } from '../../support/waiting.ts';

const SETTINGS = { userAgent: 'sbkit-test/1', timeoutMs: 2_000, maxResponseBytes: 1_000 };

/** What the loopback server saw of each request. */
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let server: Server;
let base: string;

/** Answers by path: each route is one behaviour of a server, well-behaved or not. */
const ROUTES: Record<string, (res: ServerResponse) => void> = {
  '/plain': (res) => res.writeHead(200, { 'content-type': 'application/x-protobuf', 'cache-control': 'public, max-age=300' }).end('hello'),
  '/gzip': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('compressed hello')),
  '/br': (res) => res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync('brotli hello')),
  '/deflate-unasked': (res) => res.writeHead(200, { 'content-encoding': 'zstd' }).end('?'),
  // 1 MB of zeros is about 1 KB gzipped: the limit holds for what it inflates to.
  '/bomb': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(1_000_000))),
  '/declared-large': (res) => res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000)),
  '/streamed-large': (res) => {
    res.writeHead(200);
    for (let i = 0; i < 10; i++) res.write(Buffer.alloc(500));
    res.end();
  },
  // Raw answers Node's server would not write: a body past its Content-Length, lengths past 2^64 bytes.
  '/longer-than-declared': (res) => res.socket?.end(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n${'x'.repeat(5000)}`),
  '/length-overflow': (res) => res.socket?.end(`HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999999\r\n\r\n${'x'.repeat(50)}`),
  '/chunk-overflow': (res) =>
    res.socket?.end(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nffffffffffffffffffff\r\n${'x'.repeat(50)}`),
  '/two-lengths': (res) => res.socket?.end(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\ncontent-length: 20\r\n\r\n${'x'.repeat(20)}`),
  '/retry-after': (res) => res.writeHead(503, { 'retry-after': '5' }).end(),
  '/redirect': (res) => res.writeHead(302, { location: '/plain' }).end(),
  '/hang': () => {},
  '/cut': (res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('only part of it');
    res.socket?.destroy();
  },
};

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      (ROUTES[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string, settings: HttpSettings = SETTINGS) =>
  sendRequest({ method: 'GET', url: `${base}${path}`, headers: {}, body: undefined }, settings);

async function rejectsWith(promise: Promise<unknown>, kind: TransportError['kind'], message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof TransportError, `not a TransportError: ${String(err)}`);
    assert.equal(err.kind, kind);
    assert.match(err.message, message);
    return true;
  });
}

describe('sendRequest', () => {
  it('gives the status, content type, body and max-age, and names the client and the codings it reads', async () => {
    const answer = await get('/plain');
    assert.equal(answer.httpStatus, 200);
    assert.equal(answer.contentType, 'application/x-protobuf');
    assert.equal(Buffer.from(answer.body).toString(), 'hello');
    assert.equal(answer.maxAgeSeconds, 300);
    const request = seen.at(-1)!;
    assert.equal(request.headers['user-agent'], 'sbkit-test/1');
    assert.equal(request.headers['accept-encoding'], 'gzip, br');
  });

  it('posts a body with its length', async () => {
    await sendRequest(
      { method: 'POST', url: `${base}/plain`, headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array([1, 2, 3]) },
      SETTINGS,
    );
    const request = seen.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.headers['content-length'], '3');
    assert.equal(request.body, '\u0001\u0002\u0003');
  });

  it('decompresses gzip and brotli answers', async () => {
    assert.equal(Buffer.from((await get('/gzip')).body).toString(), 'compressed hello');
    assert.equal(Buffer.from((await get('/br')).body).toString(), 'brotli hello');
  });

  it('refuses a content coding it did not ask for', async () => {
    await rejectsWith(get('/deflate-unasked'), 'network', /content coding "zstd"/);
  });

  it('bounds the answer as it inflates, not as it travels', async () => {
    await rejectsWith(get('/bomb'), 'too-large', /more than the 1000 bytes allowed/);
  });

  it('refuses an answer announced as too large before reading it, and one that grows too large', async () => {
    await rejectsWith(get('/declared-large'), 'too-large', /answered 5000 bytes, more than the 1000 allowed/);
    await rejectsWith(get('/streamed-large'), 'too-large', /more than the 1000 bytes allowed/);
  });

  it('reports the size as the fault when the HTTP parser refuses an answer for its size', async () => {
    await rejectsWith(get('/longer-than-declared'), 'too-large', /sent more than the 10 bytes its Content-Length declared/);
    await rejectsWith(get('/length-overflow'), 'too-large', /declared a length past 2\^64 bytes/);
    await rejectsWith(get('/chunk-overflow'), 'too-large', /declared a length past 2\^64 bytes/);
    await rejectsWith(get('/two-lengths'), 'network', /Duplicate Content-Length/);
  });

  it('carries Retry-After up with the answer', async () => {
    const answer = await get('/retry-after');
    assert.equal(answer.httpStatus, 503);
    assert.equal(answer.retryAfter, '5');
    assert.equal((await get('/plain')).retryAfter, undefined);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const before = seen.length;
    const answer = await get('/redirect');
    assert.equal(answer.httpStatus, 302);
    assert.equal(seen.length, before + 1);
  });

  it("times out a server that never answers, on the client's clock", async () => {
    const clock = new FakeClock(0);
    const before = seen.length;
    const answer = get('/hang', { ...SETTINGS, timeoutMs: 10_000, clock });
    await until(5_000, 'the request at the server', () => seen.length > before);
    clock.advance(9_999);
    clock.advance(1);
    await rejectsWith(answer, 'timeout', /did not answer within 10000 ms/);
  });

  it('leaves no deadline behind once answered', async () => {
    const clock = new FakeClock(0);
    await get('/plain', { ...SETTINGS, clock });
    assert.equal(clock.pending, 0);
  });

  it('reports an answer cut short, and a server that is not there, as network failures', async () => {
    await rejectsWith(get('/cut'), 'network', /cannot reach/);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await rejectsWith(
      sendRequest({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {}, body: undefined }, SETTINGS),
      'network',
      /cannot reach http:\/\/127\.0\.0\.1/,
    );
  });

  it('refuses, as a network failure, a request Node cannot write', async () => {
    await rejectsWith(
      sendRequest({ method: 'GET', url: `${base}/plain`, headers: { 'x-bad': 'line\nbreak' }, body: undefined }, SETTINGS),
      'network',
      /cannot reach/,
    );
  });
});
