// One IPv6 delegation posing as many clients (issue 26, property 2, the load-control part): an ISP gives
// a customer a /56, 256 /64s, and load control keyed IPv6 clients by /64 alone, so each /64 brought its
// own budget and its own share of the places. The clients stand behind a trusted proxy on loopback
// (127.0.0.1, as nginx would be), which names them in X-Forwarded-For. Before the second tier, 100 /64s
// of one /56 got 100 of 100 requests in one window, and 15 of them held every place, so that programs
// elsewhere were refused; now a /56 gets `neighbourhoodBurstMax` + 1 requests per window and
// `neighbourhoodConcurrentMax` places, and clients of other neighbourhoods are served.

import assert from 'node:assert/strict';
import { get } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';
import { until } from '../support/waiting.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';
/** The /64s of one /56, 2001:db8:0:1200::/56. */
const ofTheDelegation = (i: number) => `2001:db8:0:12${i.toString(16).padStart(2, '0')}::1`;

let server: SafeBrowsingServer;
let loadControl: LoadControl;
let port: number;
const releases: (() => void)[] = [];

before(async () => {
  loadControl = await LoadControl.create({ settings: { delayMs: 50, trustedProxies: ['127.0.0.1'] } });
  server = createServer({ catalog: demoCatalog(), loadControl, port: 0 });
  // Work that takes long (a slow upstream, say): held until the test lets it go.
  server.app.get('/held', async () => {
    await new Promise<void>((resolve) => releases.push(resolve));
    return { done: true };
  });
  port = Number(new URL(await server.listen()).port);
});
after(async () => {
  for (const release of releases) release();
  await server.close();
  await loadControl.close();
});

/** A GET of `path` for the client `forwardedFor` names: its status once answered. */
function ask(path: string, forwardedFor: string, userAgent: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'user-agent': userAgent, 'x-forwarded-for': forwardedFor };
    const request = get({ host: '127.0.0.1', port, path, agent: false, headers }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

describe("one IPv6 delegation's many /64s", () => {
  it('share one budget of requests per window, and a browser of another neighbourhood is served', async (t) => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push(await ask(SEARCH, ofTheDelegation(i), i % 2 === 0 ? `${FIREFOX} n/${i}` : `tool/${i}`));
    const admitted = statuses.filter((status) => status === 200).length;
    t.diagnostic(`100 /64s of one /56: ${admitted} of 100 requests admitted in one window`);
    // neighbourhoodBurstMax is 2 × addressBurstMax (30): the 61st request of the window is served.
    assert.equal(admitted, 61);
    assert.equal(await ask(SEARCH, '2001:db8:0:1300::1', FIREFOX), 200, 'a browser of the next /56 is served');
  });

  it('share the places of requests under way, so programs of other neighbourhoods are served', async (t) => {
    // Another /56 than the test before, whose budget is spent: 2001:db8:0:2200::/56.
    const held = Array.from({ length: 15 }, (_, i) => ask('/held', `2001:db8:0:22${i.toString(16).padStart(2, '0')}::1`, `slow/${i}`));
    const refusedAtOnce: number[] = [];
    for (const answer of held) void answer.then((status) => refusedAtOnce.push(status));
    // Each /64 asks once, so no address share binds: only the neighbourhood's can.
    await until(3000, 'every held request decided', () => loadControl.gate.load + refusedAtOnce.length === 15);
    t.diagnostic(`15 /64s of one /56 hold ${loadControl.gate.load} places`);
    assert.equal(loadControl.gate.load, 10, 'maxConcurrentPerNeighbourhood: 2 × maxConcurrentPerAddress');
    assert.deepEqual(refusedAtOnce, Array<number>(5).fill(503));
    assert.equal(await ask(SEARCH, '2001:db8:0:3300::1', 'sbkit/0.9'), 200, 'a program of another neighbourhood is served');
    for (const release of releases.splice(0)) release();
    await Promise.all(held);
    await until(1000, 'every place given back', () => loadControl.gate.load === 0);
  });
});
