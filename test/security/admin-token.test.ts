// An attacker guesses the admin token of `sbkit serve` on loopback: 5,000 guesses as fast as one
// keep-alive connection carries them, a weak token, a bare token without "Bearer", and the operator
// endpoints on a listener of their own.

import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/server/config/config-error.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { ADMIN_THROTTLE_RULES, FailureThrottle } from '../../src/server/operator/failure-throttle.ts';
import { demoCatalog } from '../server/fixture.ts';
import { FakeClock } from '../support/fake-clock.ts';

const TOKEN = 'c3a91f5e07b24d68a1e9f0c27b5d83e4';
const GUESSES = 5000;

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

/** POST `path` with these headers, from `localAddress` (any 127.0.0.0/8 address is this machine). */
function post(base: string, path: string, headers: Record<string, string>, agent: Agent, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${path}`, { method: 'POST', headers, agent, localAddress }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the admin token', () => {
  let server: SafeBrowsingServer;
  let base: string;
  const logged: string[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  // The throttle's clock stands still while the guesses arrive, however long a busy machine takes to send them.
  const adminThrottle = new FailureThrottle(ADMIN_THROTTLE_RULES, new FakeClock());

  before(async () => {
    server = createServer({ catalog: demoCatalog(), adminToken: TOKEN, port: 0, adminThrottle, log: (message) => logged.push(message) });
    base = await server.listen();
  });
  after(async () => {
    agent.destroy();
    await server.close();
  });

  it(`lets ${GUESSES} wrong guesses from one address through only a handful at a time`, async (t) => {
    const started = performance.now();
    const answers: Answer[] = [];
    for (let batch = 0; batch < GUESSES; batch += 50) {
      const guesses = Array.from({ length: 50 }, (_, i) =>
        post(base, '/admin/pause', { authorization: `Bearer guess-${batch + i}` }, agent),
      );
      answers.push(...(await Promise.all(guesses)));
    }
    const seconds = (performance.now() - started) / 1000;
    const judged = answers.filter((answer) => answer.status === 401).length;
    const refused = answers.filter((answer) => answer.status === 429);
    assert.equal(judged, 5, 'guesses whose token was compared');
    assert.equal(refused.length, GUESSES - 5);
    assert.ok(refused.every((answer) => answer.retryAfter === '60'));
    // Blocked: even the right token is refused from that address, so the answers tell nothing of the guesses.
    assert.equal((await post(base, '/admin/pause', { authorization: `Bearer ${TOKEN}` }, agent)).status, 429);
    // Another address is not blocked.
    assert.equal((await post(base, '/admin/resume', { authorization: `Bearer ${TOKEN}` }, agent, '127.0.0.2')).status, 200);
    // The log says it, briefly.
    assert.ok(logged.length <= 10, `${logged.length} log lines`);
    assert.ok(
      logged.some((line) => /127\.0\.0\.1 .*blocked for 60 s after 5 failed attempts/.test(line)),
      logged.join('\n'),
    );
    t.diagnostic(`${GUESSES} guesses in ${seconds.toFixed(2)} s: ${judged} compared, ${refused.length} refused with 429`);
  });

  it('takes only "Authorization: Bearer <token>": a bare token is refused', async () => {
    const fresh = new Agent();
    try {
      assert.equal((await post(base, '/admin/resume', { authorization: TOKEN }, fresh, '127.0.0.3')).status, 401);
      assert.equal((await post(base, '/admin/resume', { authorization: `Basic ${TOKEN}` }, fresh, '127.0.0.3')).status, 401);
      assert.equal((await post(base, '/admin/resume', { authorization: `bearer ${TOKEN}` }, fresh, '127.0.0.3')).status, 200);
    } finally {
      fresh.destroy();
    }
  });
});

describe('a weak admin token', () => {
  for (const weak of ['aaaaaaaaaaaaaaaa', 'a'.repeat(64), 'abcdefghijklmnopqrstuvwxyz0123456789', '0123456789abcdef'.repeat(2)]) {
    it(`is refused at start: ${weak.slice(0, 20)}…`, () => {
      assert.throws(
        () => createServer({ catalog: demoCatalog(), adminToken: weak }),
        (error: unknown) => error instanceof ConfigError && error.field === 'adminToken' && /openssl rand -hex 32/.test(error.message),
      );
      assert.throws(() => parseServerConfig({ adminToken: weak }, '/'), ConfigError);
    });
  }
});

describe('the operator endpoints on a listener of their own', () => {
  it('serves /admin/* and /metrics there only; the public listener answers 404', async () => {
    const loadControl = await LoadControl.create();
    const server = createServer({
      catalog: demoCatalog(),
      adminToken: TOKEN,
      loadControl,
      port: 0,
      adminListen: { host: '127.0.0.1', port: 0 },
    });
    const agent = new Agent();
    try {
      const publicBase = await server.listen();
      const adminBase = server.adminUrl!;
      assert.notEqual(adminBase, publicBase);
      const auth = { authorization: `Bearer ${TOKEN}` };
      assert.equal((await post(publicBase, '/admin/pause', auth, agent)).status, 404);
      assert.equal((await fetch(`${publicBase}/metrics`)).status, 404);
      assert.equal((await fetch(`${publicBase}/healthz`)).status, 200);
      assert.equal((await fetch(`${adminBase}/metrics`)).status, 200);
      assert.equal((await fetch(`${adminBase}/`)).status, 404);
      // The pause switch of the operator's listener is the public listener's.
      assert.equal((await post(adminBase, '/admin/pause', auth, agent)).status, 200);
      assert.equal((await fetch(`${publicBase}/v5/hashLists`)).status, 503);
      assert.equal((await post(adminBase, '/admin/resume', auth, agent)).status, 200);
      assert.equal((await fetch(`${publicBase}/healthz`)).status, 200);
    } finally {
      agent.destroy();
      await server.close();
      await loadControl.close();
    }
  });
});
