// Readers that take a large answer a little at a time against a real server on loopback
// (http/answer-pace.ts): an HTTP/2 client with a small window that opens it a few KiB at a time moves
// often enough for the idle deadline, and before answers had a pace it held its load-control place for
// the whole answer (issue 26, S2: a 9 MB list, 64 KiB every 20 s, ~47 minutes). Deadlines and the pace
// are scaled down (1 s of grace, 1 MiB/s) so that the server's own timers, under test, act quickly.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { after, describe, it } from 'node:test';
import type { HttpLimits } from '../../src/server/http/http-limits.ts';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { createServer, type ServerOptions } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';
import { until } from '../support/waiting.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const tls = { cert: fixture('loopback-cert.pem'), key: fixture('loopback-key.pem') };
const LIMITS: Partial<HttpLimits> = {
  headersTimeoutMs: 1000,
  requestTimeoutMs: 2000,
  keepAliveTimeoutMs: 1000,
  idleTimeoutMs: 1000,
  minAnswerBytesPerSecond: 1024 * 1024,
};
/** A large list answer, as a proxy of Google's lists serves one. */
const ANSWER = Buffer.alloc(8 * 1024 * 1024, 7);

const opened: { close(): Promise<unknown> | void }[] = [];
after(async () => {
  for (const part of opened.reverse()) await part.close();
});

/** A server with load control and a `/list` route answering {@link ANSWER}, behind the gate like every route. */
async function start(options: Partial<ServerOptions> = {}): Promise<{ url: string; loadControl: LoadControl }> {
  const loadControl = await LoadControl.create({ settings: { delayMs: 50 } });
  opened.push(loadControl);
  const server = createServer({ catalog: demoCatalog(), port: 0, httpLimits: LIMITS, loadControl, ...options });
  server.app.get('/list', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(ANSWER));
  opened.push(server);
  return { url: await server.listen(), loadControl };
}

function session(url: string, settings: http2.Settings = {}): ClientHttp2Session {
  const client = http2.connect(url, { ca: tls.cert, settings });
  client.on('error', () => undefined);
  opened.push({ close: () => void client.destroy() });
  return client;
}

/**
 * Takes what has arrived on `stream` every `everyMs`, which lets the client's HTTP/2 window open by as
 * much: with a 16 KiB window, a few tens of KiB at a time. Stops when the stream closes.
 */
function trickle(stream: ClientHttp2Stream, everyMs: number): { taken: () => number } {
  let taken = 0;
  stream.pause();
  const timer = setInterval(() => {
    for (let chunk: Buffer | null; (chunk = stream.read() as Buffer | null) !== null;) taken += chunk.length;
  }, everyMs);
  stream.once('close', () => clearInterval(timer));
  return { taken: () => taken };
}

describe('answers taken a little at a time (S2)', () => {
  it('frees the place of an HTTP/2 answer whose reader opens its window a little at a time, and serves one that reads', async (t) => {
    const { url, loadControl } = await start({ tls });
    const stream = session(url, { initialWindowSize: 16 * 1024 }).request({ ':path': '/list', 'user-agent': 'trickle/1' });
    stream.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(performance.now())));
    await new Promise((resolve) => stream.once('response', resolve));
    const startedAt = performance.now();
    const reader = trickle(stream, 100);
    assert.equal(loadControl.gate.load, 1, 'the answer holds a place');
    // Well inside the idle deadline between reads, a few hundred KiB a second: about 50 s for the whole
    // answer, all of it with the place held, unless the pace (1 MiB/s past 1 s) ends it.
    await until(6000, 'the trickled answer counted out', () => loadControl.gate.load === 0);
    const heldMs = performance.now() - startedAt;
    await closed;
    t.diagnostic(`the trickled answer held its place ${Math.round(heldMs)} ms, ${reader.taken()} of ${ANSWER.length} bytes taken`);
    assert.ok(reader.taken() < ANSWER.length, 'the answer was cut, not finished');

    const honest = session(url).request({ ':path': '/list', 'user-agent': 'honest/1' });
    let bytes = 0;
    honest.on('data', (chunk: Buffer) => (bytes += chunk.length));
    await new Promise((resolve) => honest.once('end', resolve));
    assert.equal(bytes, ANSWER.length, 'a client that reads takes the whole answer');
  });
});
