// Many addresses each holding as many silent or trickling connections as their cap allows, against a
// real server on loopback (http/connection-caps.ts). Issue 26, S6: 100 addresses × 100 slow
// connections fill `maxConnections` (10,000), and browsers elsewhere were refused (16 of 19 tries).
// Scaled down, the ratio kept: 10 addresses × 20 connections fill a server of 200.

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import type { HttpLimits } from '../../src/server/http/http-limits.ts';
import { createServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';

// Head and keep-alive deadlines past the test's length: the attack's connections stay as long as it needs.
const LIMITS: Partial<HttpLimits> = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 20_000,
  keepAliveTimeoutMs: 20_000,
  idleTimeoutMs: 20_000,
  maxConnections: 200,
  maxConnectionsPerAddress: 20,
};
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';

/** Every connection the test opens, closed when it ends. */
const sockets: Socket[] = [];

type Connection = Socket & { gone: Promise<void> };

/** A raw connection from `localAddress` (any 127/8 address is this machine's). */
function open(port: number, localAddress: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }) as Connection;
    sockets.push(socket);
    socket.gone = new Promise((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve(socket.resume()));
    socket.once('error', reject);
  });
}

/** A browser's try: a new connection, kept open as browsers keep theirs, and a search on it; the answer's status, or 0 when closed unanswered. */
async function browse(port: number, localAddress: string): Promise<number> {
  const socket = await open(port, localAddress);
  const answer = new Promise<number>((resolve) =>
    socket.once('data', (chunk: Buffer) => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1'))?.[1] ?? -1))),
  );
  socket.write(`GET ${SEARCH} HTTP/1.1\r\nHost: sb\r\nUser-Agent: ${BROWSER}\r\n\r\n`);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-2), 3000)));
  try {
    return await Promise.race([answer, socket.gone.then(() => 0), late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('many addresses filling the connections (S6)', () => {
  it('lets browsers elsewhere in while 10 addresses hold 20 silent or trickling connections each', async (t) => {
    const server = createServer({ catalog: demoCatalog(), port: 0, httpLimits: LIMITS });
    t.after(async () => {
      for (const socket of sockets) socket.destroy();
      await server.close();
    });
    const port = Number(new URL(await server.listen()).port);
    // The attack: every address at its cap, half of its connections silent, half sending a request
    // head a few bytes at a time, never finishing it.
    const attack: Connection[] = [];
    for (let a = 0; a < 10; a++) {
      attack.push(...(await Promise.all(Array.from({ length: 20 }, () => open(port, `127.0.2.${a + 1}`)))));
    }
    attack.forEach((socket, i) => {
      if (i % 2 === 1) socket.write(`GET ${SEARCH} HTTP/1.1\r\nHost: sb\r\nX-Slow: `);
    });
    const trickle = setInterval(() => attack.forEach((socket, i) => i % 2 === 1 && !socket.destroyed && socket.write('a')), 200);
    t.after(() => clearInterval(trickle));

    let displaced = 0;
    for (const socket of attack) void socket.gone.then(() => displaced++);
    const statuses: number[] = [];
    for (let i = 0; i < 19; i++) statuses.push(await browse(port, `127.0.3.${i + 1}`));
    const refused = statuses.filter((status) => status !== 200).length;
    t.diagnostic(`${refused} of 19 browser tries refused; ${displaced} of the attack's 200 connections displaced`);
    assert.deepEqual(statuses, Array<number>(19).fill(200), 'every browser try is served');
    assert.ok(displaced <= 19, 'each browser takes the place of one attack connection at most');
  });
});
