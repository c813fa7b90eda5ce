import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { sendWithFetch } from '../../../src/client/transport/fetch-http.ts';
import { TransportError } from '../../../src/client/client-errors.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { until } from '../../support/waiting.ts';

const SETTINGS = { userAgent: 'sbkit-test/1', timeoutMs: 1_000, maxResponseBytes: 1_000 };

const ROUTES: Record<string, (res: ServerResponse) => void> = {
  '/plain': (res) =>
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'cache-control': 'max-age=300', 'retry-after': '7' }).end('hello'),
  '/gzip': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('compressed hello')),
  '/bomb': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(1_000_000))),
  '/declared-large': (res) => res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000)),
  '/redirect': (res) => res.writeHead(302, { location: '/plain' }).end(),
  '/silent': () => {},
};

let server: Server;
let base: string;
const seen: { method: string; body: string }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    req.on('end', () => {
      seen.push({ method: req.method!, body });
      ROUTES[new URL(req.url!, 'http://x').pathname]!(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const get = (path: string) => sendWithFetch({ method: 'GET', url: base + path, headers: {}, body: undefined }, SETTINGS);
const failsWith = (kind: string) => (err: unknown) => err instanceof TransportError && err.kind === kind;

describe('sendWithFetch', () => {
  it('reads an answer, its type, max-age and Retry-After; sends POST bodies', async () => {
    const answer = await get('/plain');
    assert.equal(new TextDecoder().decode(answer.body), 'hello');
    assert.deepEqual(
      [answer.httpStatus, answer.contentType, answer.maxAgeSeconds, answer.retryAfter],
      [200, 'application/x-protobuf', 300, '7'],
    );
    await sendWithFetch({ method: 'POST', url: `${base}/plain`, headers: {}, body: new Uint8Array([104, 105]) }, SETTINGS);
    assert.deepEqual(seen.at(-1), { method: 'POST', body: 'hi' });
  });

  it('decodes a content coding, and caps what it inflates to', async () => {
    assert.equal(new TextDecoder().decode((await get('/gzip')).body), 'compressed hello');
    await assert.rejects(get('/bomb'), failsWith('too-large'));
    await assert.rejects(get('/declared-large'), failsWith('too-large'));
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    assert.equal((await get('/redirect')).httpStatus, 302);
  });

  it("gives up after the timeout on the client's clock, leaves no deadline behind, and names an unreachable server", async () => {
    const clock = new FakeClock(0);
    const before = seen.length;
    const silent = sendWithFetch({ method: 'GET', url: `${base}/silent`, headers: {}, body: undefined }, { ...SETTINGS, clock });
    await until(5_000, 'the request at the server', () => seen.length > before);
    clock.advance(SETTINGS.timeoutMs);
    await assert.rejects(silent, failsWith('timeout'));
    assert.equal(clock.pending, 0);
    await assert.rejects(
      sendWithFetch({ method: 'GET', url: 'http://127.0.0.1:9/', headers: {}, body: undefined }, SETTINGS),
      failsWith('network'),
    );
  });
});
