// What `sbkit relay` holds, on loopback: a gateway's answer that never ends (chunked, so no length is
// announced) or never finishes, a client's request that is too large or never finishes arriving.

import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createRelayApp } from '../../src/server/ohttp/relay.ts';

/** What a gateway wrote before its answer was cut off, and when it was cut off. */
interface GatewayRun {
  written: number;
  closed: Promise<number>;
}

let gateway: Server;
let gatewayUrl: string;
const runs: GatewayRun[] = [];
const relays: FastifyInstance[] = [];

before(async () => {
  // Two gateways in one: `/endless` streams 64 KiB chunks for as long as anyone reads, `/trickle` sends
  // its headers and then a byte every 100 ms.
  gateway = createHttpServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'message/ohttp-res' });
    const run: GatewayRun = { written: 0, closed: new Promise((done) => response.once('close', () => done(performance.now()))) };
    runs.push(run);
    const chunk = Buffer.alloc(64 * 1024, 1);
    if (request.url === '/trickle') {
      const timer = setInterval(() => response.write('x'), 100);
      response.once('close', () => clearInterval(timer));
      return;
    }
    const more = () => {
      while (!response.destroyed && response.write(chunk)) run.written += chunk.length;
      if (!response.destroyed) {
        run.written += chunk.length;
        response.once('drain', more);
      }
    };
    more();
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const address = gateway.address();
  gatewayUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
after(async () => {
  for (const relay of relays) await relay.close();
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
});

async function startRelay(options: Omit<Parameters<typeof createRelayApp>[0], 'gateway'> & { path: string }): Promise<string> {
  const relay = createRelayApp({ gateway: `${gatewayUrl}${options.path}`, ...options });
  relays.push(relay);
  await relay.listen({ host: '127.0.0.1', port: 0 });
  const address = relay.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/ohttp-relay`;
}

const post = (url: string, body: Uint8Array = Buffer.from('encapsulated')) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'message/ohttp-req' }, body });

describe("the relay's reading of the gateway", () => {
  it('stops reading an endless chunked answer at its cap, answers 502, and closes the gateway connection', async (t) => {
    const relayUrl = await startRelay({ path: '/endless', timeoutMs: 3000 });
    const started = performance.now();
    const answer = await post(relayUrl);
    const tookMs = performance.now() - started;
    assert.equal(answer.status, 502);
    assert.match(await answer.text(), /more than a relay passes on/);
    const run = runs.at(-1)!;
    const closedAt = await run.closed;
    t.diagnostic(`gateway wrote ${run.written} bytes; relay answered 502 after ${Math.round(tookMs)} ms`);
    // The cap is 1 MiB; what more the gateway wrote sits in the two sockets' buffers, never in the relay.
    assert.ok(run.written < 16 * 1024 * 1024, `the gateway wrote ${(run.written / 1024 / 1024).toFixed(1)} MiB before it was cut off`);
    assert.ok(tookMs < 2000, `answered after ${Math.round(tookMs)} ms, before the 3000 ms timeout`);
    assert.ok(closedAt - started < 2500, 'the relay let go of the gateway connection');
  });

  it('gives up on a gateway that trickles its answer, at the timeout', async () => {
    const relayUrl = await startRelay({ path: '/trickle', timeoutMs: 500 });
    const started = performance.now();
    const answer = await post(relayUrl);
    const tookMs = performance.now() - started;
    assert.equal(answer.status, 504);
    assert.ok(tookMs >= 450 && tookMs < 2000, `answered after ${Math.round(tookMs)} ms, the timeout being 500 ms`);
    await runs.at(-1)!.closed;
  });
});

describe("the relay's reading of its clients", () => {
  it('refuses a request body over 64 KiB without forwarding it', async () => {
    const relayUrl = await startRelay({ path: '/endless' });
    const before = runs.length;
    const answer = await post(relayUrl, Buffer.alloc(64 * 1024 + 1));
    assert.equal(answer.status, 413);
    assert.equal(runs.length, before, 'nothing reached the gateway');
  });

  it('closes a request whose body never finishes arriving, at the request deadline', async () => {
    const relayUrl = new URL(
      await startRelay({ path: '/endless', httpLimits: { headersTimeoutMs: 300, requestTimeoutMs: 500, idleTimeoutMs: 5000 } }),
    );
    const started = performance.now();
    const socket = connect(Number(relayUrl.port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`POST /ohttp-relay HTTP/1.1\r\nHost: relay\r\nContent-Type: message/ohttp-req\r\nContent-Length: 1000\r\n\r\nx`);
    socket.resume();
    const closedAt = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the relay kept the slow request for 3 s')), 3000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(performance.now());
      });
    });
    assert.ok(closedAt - started >= 450 && closedAt - started < 2000, `closed after ${Math.round(closedAt - started)} ms`);
  });
});
