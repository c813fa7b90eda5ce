// `sbkit serve` under real signals, as an orchestrator or an operator sends them, in a child process
// running the built CLI: SIGTERM while a request is under way, a second one, SIGTERM after its Redis
// died or hung, SIGHUP with a broken and then a changed configuration, and SIGHUP after a certificate's
// renewal with connections open across it.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { EXIT } from '../../src/cli/io.ts';
import { PrivateRedis } from '../server/redis-fixture.ts';
import { TestCa } from '../server/tls-fixture.ts';
import { run } from './run.ts';

const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
/** --shutdown-timeout 1 and the time a loaded machine takes to end a process. */
const STOP_BOUND_MS = 1000 + 2500;
const children: ChildProcess[] = [];
const dirs: string[] = [];
const redises: PrivateRedis[] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const redis of redises) await redis.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  url: string;
  port: number;
  stderr: () => string;
  /** Resolves once standard error matches `pattern` (from the start), or fails after `ms`. */
  logged: (pattern: RegExp, ms?: number) => Promise<void>;
  exited: Promise<{ code: number | null; atMs: number }>;
}

async function serve(...args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const watcher of watchers) watcher();
  });
  const exited = new Promise<{ code: number | null; atMs: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, atMs: performance.now() })),
  );
  const logged = (pattern: RegExp, ms = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`not logged within ${ms} ms: ${pattern}; standard error:\n${stderr}`));
      }, ms);
      const check = () => {
        if (!pattern.test(stderr)) return;
        clearTimeout(timer);
        watchers.delete(check);
        resolve();
      };
      watchers.add(check);
      check();
      void exited.then(() => check());
    });
  await logged(/listening on https?:\/\/\S+? with/, 20_000);
  const url = /listening on (https?:\/\/\S+?) with/.exec(stderr)![1]!;
  return { child, url, port: Number(new URL(url).port), stderr: () => stderr, logged, exited };
}

/** The requests load control has admitted and not yet answered, from /metrics. */
async function inProgress(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^sbkit_requests_in_progress (\d+)/m.exec(text)?.[1] ?? NaN);
}

async function until(ms: number, what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`${what} not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const LOOKUP = JSON.stringify({
  client: { clientId: 'lifecycle-test', clientVersion: '1' },
  threatInfo: {
    threatTypes: ['SOCIAL_ENGINEERING'],
    platformTypes: ['ANY_PLATFORM'],
    threatEntryTypes: ['URL'],
    threatEntries: [{ url: 'http://testsafebrowsing.appspot.com/s/phishing.html' }],
  },
});

/**
 * A v4 Lookup API request whose body is sent in two parts: it is under way (admitted, reading its body)
 * until `finish()`. Resolves to the raw socket and the answer's status line and body.
 */
async function slowLookup(port: number): Promise<{ finish: () => void; answer: Promise<string>; socket: Socket }> {
  const socket = connect({ port, host: '127.0.0.1' });
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.once('close', () => resolve(received));
  });
  const half = Math.floor(LOOKUP.length / 2);
  socket.write(
    `POST /v4/threatMatches:find HTTP/1.1\r\nHost: sb\r\nUser-Agent: slow-lookup/1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${LOOKUP.length}\r\n\r\n${LOOKUP.slice(0, half)}`,
  );
  return { finish: () => socket.write(LOOKUP.slice(half)), answer, socket };
}

describe('sbkit serve and signals', () => {
  it('on SIGTERM stops accepting, finishes the request under way, and exits 0', async () => {
    const server = await serve();
    const slow = await slowLookup(server.port);
    await until(5000, 'the slow request admitted', async () => (await inProgress(server.url)) === 1);
    server.child.kill('SIGTERM');
    await server.logged(/SIGTERM: stopping; requests under way have 10 s to finish/);
    await assert.rejects(fetch(`${server.url}/healthz`), 'no new connections once stopping');
    assert.equal(server.child.exitCode, null, 'still running: the request is under way');
    slow.finish();
    const answer = await slow.answer;
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /\r\nconnection: close\r\n/i, 'its connection closed after the answer');
    assert.match(answer, /"threatType":"SOCIAL_ENGINEERING"/);
    const { code } = await server.exited;
    assert.equal(code, EXIT.SAFE);
    assert.match(server.stderr(), /sbkit serve: stopped\n$/);
  });

  it('stops gracefully on a SIGTERM sent the moment it says it listens', async () => {
    // The handlers are in place before the line is written: a signal right after it must not find
    // Node's default action, which ends the process at once (exit by signal, no status).
    for (let i = 0; i < 3; i++) {
      const server = await serve();
      server.child.kill('SIGTERM');
      const { code } = await server.exited;
      assert.equal(code, EXIT.SAFE, server.stderr());
      assert.match(server.stderr(), /sbkit serve: stopped\n$/);
    }
  });

  it('cuts a request still under way at --shutdown-timeout and exits 0; a second signal exits at once', async () => {
    const bounded = await serve('--shutdown-timeout', '0.5');
    const stuck = await slowLookup(bounded.port);
    await until(5000, 'the stuck request admitted', async () => (await inProgress(bounded.url)) === 1);
    const signalledAt = performance.now();
    bounded.child.kill('SIGINT');
    const { code, atMs } = await bounded.exited;
    assert.equal(code, EXIT.SAFE);
    assert.ok(atMs - signalledAt >= 450 && atMs - signalledAt < 5000, `exited ${Math.round(atMs - signalledAt)} ms after SIGINT`);
    assert.match(
      bounded.stderr(),
      /SIGINT: stopping; requests under way have 0\.5 s to finish\n.*1 connections still busy after 0\.5 s were cut\n/,
    );
    assert.equal(await stuck.answer, '', 'cut unanswered');

    const impatient = await serve();
    const held = await slowLookup(impatient.port);
    await until(5000, 'the held request admitted', async () => (await inProgress(impatient.url)) === 1);
    impatient.child.kill('SIGTERM');
    await impatient.logged(/SIGTERM: stopping/);
    impatient.child.kill('SIGTERM');
    assert.equal((await impatient.exited).code, EXIT.FAILED);
    assert.match(impatient.stderr(), /SIGTERM while stopping: exiting now/);
    held.socket.destroy();
  });

  it('on SIGHUP refuses a broken configuration and serves on, then publishes a changed feed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-sighup-'));
    dirs.push(dir);
    const config = join(dir, 'sbkit.json');
    const good = JSON.stringify({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: 'feed.txt', format: 'urls' }] }] });
    await writeFile(config, good);
    await writeFile(join(dir, 'feed.txt'), 'http://first.example/\n');
    const server = await serve('--config', config);
    const version = async () => ((await (await fetch(`${server.url}/v5/hashList/mw-4b?$alt=json`)).json()) as { version: string }).version;
    const first = await version();
    const verdict = async (url: string) => (await run(['check', '--server', server.url, url])).status;
    assert.equal(await verdict('http://second.example/'), EXIT.SAFE);

    await writeFile(config, good.slice(0, -3));
    server.child.kill('SIGHUP');
    await server.logged(/reload refused, the running configuration is kept: .*sbkit\.json: is not valid JSON/);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'serving on');
    assert.equal(await version(), first);

    await writeFile(config, good);
    await writeFile(join(dir, 'feed.txt'), 'http://first.example/\nhttp://second.example/\n');
    server.child.kill('SIGHUP');
    await server.logged(/reloaded \S*sbkit\.json; flags take a restart/);
    assert.match(server.stderr(), /list mw-4b: 2 entries, 0 bad lines\n/);
    assert.notEqual(await version(), first, 'a new version is published');
    assert.equal(await verdict('http://second.example/'), EXIT.UNSAFE);
    assert.equal(server.child.exitCode, null, 'SIGHUP does not end the process');
  });

  it('stops within --shutdown-timeout and exits 0 when its Redis was killed, or stopped answering', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-redis-gone-'));
    dirs.push(dir);
    const config = join(dir, 'sbkit.json');
    await writeFile(
      config,
      JSON.stringify({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: ['bad.example/'] }] }] }),
    );
    for (const fault of ['killed', 'frozen'] as const) {
      const redis = await PrivateRedis.start();
      redises.push(redis);
      const server = await serve('--config', config, '--redis', redis.url, '--redis-prefix', 'lifecycle:', '--shutdown-timeout', '1');
      await until(10_000, 'the lists joined Redis', async () => (await fetch(`${server.url}/readyz`)).status === 200);
      // Killed: every connection refused from now on. Frozen (SIGSTOP): connections stay open and a
      // command waits unanswered (the lists' look for publications, every second), which holds closing
      // the lists' connection until nothing but the shutdown timeout ends it.
      if (fault === 'killed') await redis.stop();
      else {
        redis.freeze();
        await until(10_000, 'a command waiting in the frozen Redis', async () => (await redis.unreadBytes()) > 0);
      }
      const signalledAt = performance.now();
      server.child.kill('SIGTERM');
      const timer = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000).unref());
      const exited = await Promise.race([server.exited, timer]);
      assert.ok(exited !== undefined, `Redis ${fault}: still running 15 s after SIGTERM\n${server.stderr()}`);
      assert.equal(exited.code, EXIT.SAFE, server.stderr());
      const ms = exited.atMs - signalledAt;
      assert.ok(ms < STOP_BOUND_MS, `Redis ${fault}: exited ${Math.round(ms)} ms after SIGTERM (--shutdown-timeout 1)\n${server.stderr()}`);
      assert.match(server.stderr(), /sbkit serve: stopped\n$/);
      if (fault === 'frozen')
        assert.match(server.stderr(), /stopped without waiting for the lists in Redis to close: the 1 s to stop had passed\n/);
      await redis.stop();
    }
  });

  it('serves HTTPS with --tls-cert and --tls-key, and a renewed certificate after SIGHUP without dropping open connections', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-tls-serve-'));
    dirs.push(dir);
    const ca = await TestCa.create(dir);
    const cert = join(dir, 'fullchain.pem');
    const key = join(dir, 'privkey.pem');
    const install = async (name: string) => {
      const issued = await ca.issue(name);
      await copyFile(issued.cert, cert);
      await copyFile(issued.key, key);
    };
    await install('first.test');
    // Idle connections live a minute: only the reload could close the ones held open across it.
    const server = await serve('--tls-cert', cert, '--tls-key', key, '--keep-alive-timeout', '60');
    assert.match(server.url, /^https:/);
    assert.match(server.stderr(), /TLS certificate CN=first\.test, valid until /);
    /** The status of /healthz on an HTTP/2 session, and the name on the certificate it was served. */
    const healthOn = (session: http2.ClientHttp2Session) =>
      new Promise<[string, number]>((resolve, reject) => {
        const stream = session.request({ ':path': '/healthz' });
        stream.on('response', (headers) => {
          stream.resume();
          resolve([String((session.socket as TLSSocket).getPeerCertificate().subject.CN), Number(headers[':status'])]);
        });
        stream.on('error', reject);
      });
    const served = async () => {
      const session = http2.connect(server.url, { ca: ca.cert });
      try {
        return await healthOn(session);
      } finally {
        session.destroy();
      }
    };
    /** One HTTP/1.1 keep-alive connection: the status of /healthz, the certificate's name, and the connection used. */
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: ca.cert, ALPNProtocols: ['http/1.1'] });
    const overHttp1 = () =>
      new Promise<{ name: string; status: number; socket: TLSSocket; reused: boolean }>((resolve, reject) => {
        const request = https.get(`${server.url}/healthz`, { agent }, (response) => {
          response.resume();
          const socket = response.socket as TLSSocket;
          response.on('end', () =>
            resolve({
              name: String(socket.getPeerCertificate().subject.CN),
              status: response.statusCode!,
              socket,
              reused: request.reusedSocket,
            }),
          );
        });
        request.on('error', reject);
      });
    assert.deepEqual(await served(), ['first.test', 200]);
    const openSession = http2.connect(server.url, { ca: ca.cert });
    try {
      assert.deepEqual(await healthOn(openSession), ['first.test', 200]);
      const before = await overHttp1();
      assert.equal(before.socket.alpnProtocol, 'http/1.1');
      assert.equal(before.name, 'first.test');

      await install('second.test');
      server.child.kill('SIGHUP');
      await server.logged(/reloaded the certificate; flags take a restart/);
      assert.deepEqual(await served(), ['second.test', 200], 'new connections get the renewed certificate');
      assert.deepEqual(await healthOn(openSession), ['first.test', 200], 'the HTTP/2 session open across the reload still answers');
      assert.equal(openSession.closed || openSession.destroyed, false);
      const after = await overHttp1();
      assert.equal(after.status, 200);
      assert.equal(after.reused, true, 'the HTTP/1.1 connection open across the reload still answers');
      assert.equal(after.socket, before.socket);
      assert.equal(after.name, 'first.test');
    } finally {
      openSession.destroy();
      agent.destroy();
    }
  });

  it('refuses certificate files it cannot serve, and a bad --shutdown-timeout, with exit status 4', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-tls-bad-'));
    dirs.push(dir);
    const ca = await TestCa.create(dir);
    const issued = await ca.issue('bad.test');
    const other = await ca.issue('other.test');
    const missing = await run(['serve', '--port', '0', '--tls-cert', join(dir, 'none.pem'), '--tls-key', issued.key]);
    assert.equal(missing.status, EXIT.INVALID_INPUT);
    assert.match(missing.err, /--tls-cert: cannot read \S*none\.pem/);
    const mismatch = await run(['serve', '--port', '0', '--tls-cert', issued.cert, '--tls-key', other.key]);
    assert.equal(mismatch.status, EXIT.INVALID_INPUT);
    assert.match(mismatch.err, /--tls-key: \S+ is not the key of the certificate in \S+/);
    const alone = await run(['serve', '--port', '0', '--tls-cert', issued.cert]);
    assert.equal(alone.status, EXIT.INVALID_INPUT);
    assert.match(alone.err, /--tls-cert and --tls-key go together/);
    const timeout = await run(['serve', '--port', '0', '--shutdown-timeout', 'soon']);
    assert.equal(timeout.status, EXIT.INVALID_INPUT);
    assert.match(timeout.err, /--shutdown-timeout is a number of seconds from 0 to 3600, not "soon"/);
  });
});
