// S9 of issue 26: an address is blocked for guessing the admin token, then 10,000 other addresses fail
// once each, as many as the failure throttle remembers. Before, the throttle forgot the blocked address
// (least recently failed first): its block and the doubling of the next started afresh. 127.x addresses
// stand for distinct clients; the throttle's clock is a fake one, so nothing waits for a block to end.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ADMIN_THROTTLE_RULES, FailureThrottle } from '../../src/server/operator/failure-throttle.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';
import { FakeClock } from '../support/fake-clock.ts';

const TOKEN = 'c3a91f5e07b24d68a1e9f0c27b5d83e4';
const BLOCKED = '127.0.0.1';
const OTHERS = ADMIN_THROTTLE_RULES.maxClients;

interface Answer {
  status: number;
  retryAfter: number | undefined;
}

/** POST /admin/pause with `token`, on a connection of its own from `localAddress`. */
function pause(base: string, token: string, localAddress: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, connection: 'close' };
    const outgoing = request(`${base}/admin/pause`, { method: 'POST', headers, localAddress, agent: false }, (response) => {
      response.resume();
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, retryAfter: retryAfter === undefined ? undefined : Number(retryAfter) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Fails from `address` until refused; the Retry-After of the block. */
async function failUntilBlocked(base: string, address: string): Promise<number> {
  for (let attempt = 0; attempt <= ADMIN_THROTTLE_RULES.maxFailures; attempt++) {
    const answer = await pause(base, 'wrong-guess', address);
    if (answer.status === 429) return answer.retryAfter!;
    assert.equal(answer.status, 401);
  }
  assert.fail(`${address} was never blocked`);
}

/** The i-th of 65,536 addresses in 127.1.0.0/16. */
const other = (i: number) => `127.1.${i >> 8}.${i & 255}`;

describe('the admin failure throttle under 10,000 one-off failures (S9)', () => {
  const clock = new FakeClock();
  let server: SafeBrowsingServer;
  let base: string;

  before(async () => {
    const adminThrottle = new FailureThrottle(ADMIN_THROTTLE_RULES, clock);
    server = createServer({ catalog: demoCatalog(), adminToken: TOKEN, port: 0, adminThrottle, log: () => undefined });
    base = await server.listen();
  });
  after(() => server.close());

  it('keeps a blocked address blocked, and its next block doubled', async (t) => {
    assert.equal(await failUntilBlocked(base, BLOCKED), 60);
    const started = performance.now();
    for (let batch = 0; batch < OTHERS; batch += 100) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => pause(base, 'wrong-guess', other(batch + i))));
      assert.ok(answers.every((answer) => answer.status === 401));
    }
    const seconds = (performance.now() - started) / 1000;
    // Still blocked, the right token included: the answers tell nothing of the guesses.
    const after = await pause(base, TOKEN, BLOCKED);
    t.diagnostic(`after ${OTHERS} one-off failures in ${seconds.toFixed(1)} s the blocked address gets ${after.status}`);
    assert.equal(after.status, 429);
    assert.equal(after.retryAfter, 60);
    // When the block ends, the next block is twice as long.
    clock.advance(60_000);
    const next = await failUntilBlocked(base, BLOCKED);
    t.diagnostic(`its next block: ${next} s`);
    assert.equal(next, 120);
  });
});
