// Who holds load control's places, against `sbkit serve`'s service on loopback (issue 26).
//
// S1: a few addresses claim to be browsers and hold the places with request bodies that trickle in a
// byte at a time, reopening each request when the server's deadline ends it. When the gate took a place
// before the body (the onRequest hook), 3 addresses × 5 such POSTs kept all 15 places taken and every
// program was refused with 503: 19 of 20 API requests, 15 of 15 users of a trusted Oblivious HTTP relay.
// A place is now taken once the body is in, so both are served throughout. The attack's pace is scaled
// down: a byte every 100 ms against a request deadline of 1.5 s, where the finding had 5 s and 30 s.
//
// S8: the operator's `POST /admin/lists/NAME/entries` passed load control like a program's request: 503
// while paused or under S1, and 503 after 11 edits in 15 s. Every `/admin/` request with a valid token
// now passes by load control and the pause, its token checked first; without one it gets no bypass.

import assert from 'node:assert/strict';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { createRelayApp } from '../../src/server/ohttp/relay.ts';
import type { Service } from '../../src/server/service.ts';
import { startConfiguredService } from '../server/service-fixture.ts';

const TOKEN = '4f0c9a2e7b1d63a8c5e0f2b94d7a1c36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';
const ATTACKERS = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
const POSTS_PER_ATTACKER = 5;
const TRICKLE_MS = 100;
const REQUEST_DEADLINE_MS = 1500;

let service: Service;
let port: number;
let relay: FastifyInstance;
let relayUrl: string;
/** The gateway's key configurations, fetched once, as a relay user's application ships them. */
let keys: Uint8Array;

before(async () => {
  const config = parseServerConfig(
    {
      adminToken: TOKEN,
      // The relay forwards from 127.0.0.1, which the gateway trusts as a relay; the attack comes from elsewhere.
      loadControl: { waitMilliseconds: 50, trustedRelays: ['127.0.0.1'] },
      lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }],
    },
    '/etc/sbkit',
  );
  service = await startConfiguredService(config, {
    httpLimits: { headersTimeoutMs: 1000, requestTimeoutMs: REQUEST_DEADLINE_MS, keepAliveTimeoutMs: 300 },
  });
  port = Number(new URL(service.url).port);
  relay = createRelayApp({ gateway: `${service.url}/ohttp-gateway` });
  await relay.listen({ host: '127.0.0.1', port: 0 });
  const address = relay.server.address();
  relayUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/ohttp-relay`;
  keys = new Uint8Array(await (await fetch(`${service.url}/ohttp-keys`)).arrayBuffer());
});
after(async () => {
  await relay.close();
  await service.close();
});

/**
 * The attack: from each address, POSTS_PER_ATTACKER searches with a browser's User-Agent whose bodies
 * arrive a byte every TRICKLE_MS, each reopened when the server closes it. Runs until `stop()`.
 */
function trickle(): { stop(): void; opened(): number } {
  let running = true;
  let opened = 0;
  const sockets = new Set<Socket>();
  const one = (from: string) => {
    if (!running) return;
    // A User-Agent of its own for each request, so that no client's own rate binds before its address's.
    const userAgent = `${FIREFOX} n/${opened++}`;
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.resume();
    let timer: NodeJS.Timeout | undefined;
    socket.once('connect', () => {
      socket.write(
        `POST /v5/hashes:search HTTP/1.1\r\nHost: sb\r\nUser-Agent: ${userAgent}\r\nContent-Type: application/x-protobuf\r\nContent-Length: 1000\r\n\r\nx`,
      );
      timer = setInterval(() => socket.write('x'), TRICKLE_MS);
    });
    socket.once('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      one(from);
    });
  };
  for (const from of ATTACKERS) for (let i = 0; i < POSTS_PER_ATTACKER; i++) one(from);
  return {
    stop() {
      running = false;
      for (const socket of sockets) socket.destroy();
    },
    opened: () => opened,
  };
}

/** A program's search from `from`: its status. */
function programSearch(from: string, userAgent: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path: SEARCH, localAddress: from, agent: false, headers: { 'user-agent': userAgent } };
    const request = get(options, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

/** A relay user's look-up of the listed URL through `sbkit relay`: true when it got its verdict. */
async function relayedCheck(): Promise<boolean> {
  const client = new SafeBrowsingClient({ server: service.url, mode: 'nostorage', ohttp: { relay: relayUrl, keys } });
  try {
    const result = await client.checkUrl('http://evil.example/');
    return result.error === undefined && result.verdict === 'UNSAFE';
  } finally {
    await client.close();
  }
}

/** The operator's edit of se-4b's entries, with `token`: the answer's status. */
async function edit(token: string, add: string): Promise<number> {
  const answer = await fetch(`${service.url}/admin/lists/se-4b/entries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
    body: JSON.stringify({ add: [add] }),
  });
  await answer.arrayBuffer();
  return answer.status;
}

/** The operator's pause switch. */
async function setPaused(paused: boolean): Promise<void> {
  const answer = await fetch(`${service.url}/admin/${paused ? 'pause' : 'resume'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(answer.status, 200);
}

/** A gauge of /metrics: `sbkit_requests_in_progress` (LC-5 `load`), `sbkit_requests_receiving`. */
async function gauge(name: string): Promise<number> {
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? -1);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once every attacking request has sent its head and the start of its body, as the server counts them. */
async function attackUnderWay(): Promise<void> {
  const deadline = performance.now() + 5000;
  while ((await gauge('sbkit_requests_receiving')) < ATTACKERS.length * POSTS_PER_ATTACKER) {
    if (performance.now() > deadline) throw new Error('the trickling requests did not all reach the server within 5 s');
    await pause(20);
  }
}

describe('S1: browsers trickling request bodies', () => {
  it('take no load-control place, so programs and relay users are served throughout', { timeout: 20_000 }, async (t) => {
    const attack = trickle();
    try {
      await attackUnderWay();
      const programs: number[] = [];
      const relayed: boolean[] = [];
      // Over more than a request deadline, so that the attack's reopened requests are under way too.
      for (let round = 0; round < 20; round++) {
        programs.push(await programSearch(`127.0.0.${30 + round}`, round % 2 === 0 ? 'sbkit/0.9' : 'curl/8.5.0'));
        if (round < 15) relayed.push(await relayedCheck());
        await pause(REQUEST_DEADLINE_MS / 10);
      }
      const refused = programs.filter((status) => status === 503).length;
      const relayFailed = relayed.filter((ok) => !ok).length;
      const inProgress = await gauge('sbkit_requests_in_progress');
      t.diagnostic(
        `${attack.opened()} trickling requests opened; programs refused ${refused}/20, relay users failed ${relayFailed}/15; load ${inProgress}`,
      );
      assert.ok(attack.opened() > ATTACKERS.length * POSTS_PER_ATTACKER, 'the attack reopened requests the deadline ended');
      assert.deepEqual(programs, Array<number>(20).fill(200), 'every program is served');
      assert.equal(relayFailed, 0, 'every relay user gets a verdict');
      assert.equal(inProgress, 0, 'no trickling request holds a place');
    } finally {
      attack.stop();
    }
  });
});

describe("S8: the operator's entry edits", () => {
  it('pass by the pause with the admin token, and without it are refused, not passed by', async () => {
    await setPaused(true);
    try {
      assert.equal(await edit(TOKEN, 'paused-edit.example/'), 200, 'an edit while paused');
      assert.equal(await edit('not-the-token-but-long-enough-0000', 'intruder.example/'), 401, 'no token, no bypass');
    } finally {
      await setPaused(false);
    }
    // The listed URLs as a user sees them: the operator's edit holds, the intruder's does not.
    const client = new SafeBrowsingClient({ server: service.url, mode: 'nostorage', userAgent: 'sbkit-test/1' });
    const [edited, intruded] = await client.checkUrls(['http://paused-edit.example/', 'http://intruder.example/']);
    await client.close();
    assert.deepEqual([edited?.verdict, intruded?.verdict], ['UNSAFE', 'SAFE']);
  });

  it('are not rate-limited like a program', async (t) => {
    // An incident's batch: more edits in a row than a program's budget (11 in 15 s) allows.
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push(await edit(TOKEN, `incident-${i}.example/`));
    t.diagnostic(`operator's edits in a row: ${statuses.filter((s) => s === 200).length}/15 served`);
    assert.deepEqual(statuses, Array<number>(15).fill(200));
  });

  it('pass during S1, and without the token get the failure throttle, not the bypass', { timeout: 20_000 }, async (t) => {
    const attack = trickle();
    try {
      await attackUnderWay();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await edit(TOKEN, `under-attack-${i}.example/`));
      t.diagnostic(`operator's edits under S1: ${statuses.filter((s) => s === 200).length}/5 served`);
      assert.deepEqual(statuses, Array<number>(5).fill(200));
    } finally {
      attack.stop();
    }
    // Without the token the failure throttle answers, and nothing passes.
    const guesses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const answer = await fetch(`${service.url}/admin/lists/se-4b/entries`, {
        method: 'POST',
        headers: { authorization: `Bearer guess-${i}`, 'content-type': 'application/json' },
        body: JSON.stringify({ add: ['guessed.example/'] }),
      });
      await answer.arrayBuffer();
      guesses.push(answer.status);
    }
    assert.deepEqual(guesses, [401, 401, 401, 401, 401, 429, 429]);
  });
});
