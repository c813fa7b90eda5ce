// The attack: one address sends hundreds of heavy requests, each under a new User-Agent (some of them
// claiming to be browsers), so that every one finds a fresh per-client budget. Before the per-address
// budget, 640 of 640 were admitted in 10 s while a real browser's look-up slowed to 275 ms. Now one
// address gets addressBurstMax + 1 requests per window, and a browser elsewhere is served.

import assert from 'node:assert/strict';
import { Agent, get } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
/** A search of many prefixes: the heavy request of the finding. */
const HEAVY = `/v5/hashes:search?${Array.from({ length: 200 }, (_, i) => `hashPrefixes=${Buffer.from([0, 0, i >> 8, i & 255]).toString('base64')}`).join('&')}`;

let server: SafeBrowsingServer;
let loadControl: LoadControl;
let base: URL;

before(async () => {
  loadControl = await LoadControl.create();
  server = createServer({ catalog: demoCatalog(), loadControl, port: 0 });
  base = new URL(await server.listen());
});
after(async () => {
  await server.close();
  await loadControl.close();
});

/** GET `path` from the loopback address `from`, with a User-Agent; resolves to the status and the time taken. */
function ask(agent: Agent, path: string, from: string, userAgent: string): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const request = get(
      { host: base.hostname, port: base.port, path, agent, localAddress: from, headers: { 'user-agent': userAgent } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - start }));
      },
    );
    request.on('error', reject);
  });
}

describe('one address rotating User-Agents', () => {
  it('gets at most addressBurstMax + 1 requests per window, and a browser at another address is served', { timeout: 30_000 }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    try {
      const attack = Array.from({ length: 640 }, (_, i) =>
        ask(agent, HEAVY, '127.0.0.1', i % 3 === 0 ? `${FIREFOX} r/${i}` : `heavy-client/${i}`),
      );
      const browser = await ask(agent, '/v5/hashes:search?hashPrefixes=WwuJdQ', '127.0.0.2', FIREFOX);
      const results = await Promise.all(attack);
      const admitted = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status === 503).length;
      // LC's defaults: burstMax 10, so addressBurstMax 30; the 31st request of the window is served.
      assert.ok(admitted <= 31, `${admitted} of 640 admitted from one address`);
      assert.equal(admitted + refused, 640);
      assert.equal(browser.status, 200, 'the browser at another address is served');
      assert.equal(loadControl.gate.load, 0, 'every admitted request was counted out again');
    } finally {
      agent.destroy();
    }
  });
});
