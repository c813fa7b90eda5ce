// `sbkit serve` under real signals, as an orchestrator or an operator sends them, in a child process
// running the built CLI: SIGTERM while a request is under way, a second one, SIGTERM after its Redis
// died or hung, SIGHUP with a broken and then a changed configuration, and SIGHUP after a certificate's
// renewal with connections open across it. And its start: SIGTERM and SIGINT while it waits for a feed
// or a Redis that never answers (loopback listeners that accept and say nothing), and each part that
// cannot start ending it at once with its exit status and a line that says what to do.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { EXIT } from '../../src/cli/io.ts';
import { PrivateRedis } from '../server/redis-fixture.ts';
import { TestCa } from '../server/tls-fixture.ts';
import { until, within } from '../support/waiting.ts';
import { run } from './run.ts';

const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
/** --shutdown-timeout 1 and the time a loaded machine takes to end a process. */
const STOP_BOUND_MS = 1000 + 2500;
/** How long a stop during start-up may take: nothing is waited for but what is opened already. */
const ABANDON_BOUND_MS = 3000;
/** How long a process given a part that cannot start may take to say so and end, on a loaded machine. */
const FAIL_BOUND_MS = 10_000;
const children: ChildProcess[] = [];
const dirs: string[] = [];
const redises: PrivateRedis[] = [];
const stallers: Staller[] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const redis of redises) await redis.stop();
  for (const staller of stallers) await staller.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A folder of the test's, removed after the tests. */
async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `sbkit-${name}-`));
  dirs.push(dir);
  return dir;
}

/**
 * A loopback listener that accepts connections and never answers: a feed's server or a Redis that hangs.
 * `reached` resolves at its first connection, once whoever connects waits on it.
 */
class Staller {
  private readonly sockets = new Set<Socket>();
  private arrived: () => void = () => {};
  readonly reached = new Promise<void>((resolve) => (this.arrived = resolve));
  private readonly server: Server = createServer((socket) => {
    this.sockets.add(socket);
    this.arrived();
  });

  static async start(): Promise<Staller> {
    const staller = new Staller();
    stallers.push(staller);
    await new Promise<void>((resolve) => staller.server.listen(0, '127.0.0.1', resolve));
    return staller;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

interface Running {
  child: ChildProcess;
  /** When the process was started, on performance.now()'s clock. */
  startedAtMs: number;
  url: string;
  port: number;
  stderr: () => string;
  /** Resolves once standard error matches `pattern` (from the start), or fails after `ms`. */
  logged: (pattern: RegExp, ms?: number) => Promise<void>;
  exited: Promise<{ code: number | null; atMs: number }>;
}

/** `sbkit serve --port 0 ...args` started, not waited for, its log in readable lines (serve-log.ts tests the JSON form). */
function spawnServe(...args: string[]): Omit<Running, 'url' | 'port'> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--log-format', 'pretty', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const startedAtMs = performance.now();
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
  return { child, startedAtMs, stderr: () => stderr, logged, exited };
}

/** `sbkit serve --port 0 ...args`, once it listens. */
async function serve(...args: string[]): Promise<Running> {
  const started = spawnServe(...args);
  await started.logged(/listening on https?:\/\/\S+? with/, 20_000);
  const url = /listening on (https?:\/\/\S+?) with/.exec(started.stderr())![1]!;
  return { ...started, url, port: Number(new URL(url).port) };
}

/** The requests whose head is in and whose body is still arriving, from /metrics. */
async function receiving(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^sbkit_requests_receiving (\d+)/m.exec(text)?.[1] ?? NaN);
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
 * A v4 Lookup API request whose body is sent in two parts: it is under way (its body arriving)
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
    await until(5000, 'the head of the slow request', async () => (await receiving(server.url)) === 1);
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
    await until(5000, 'the head of the stuck request', async () => (await receiving(bounded.url)) === 1);
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
    await until(5000, 'the head of the held request', async () => (await receiving(impatient.url)) === 1);
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
      // command waits unanswered (the lists' look for publications, every connection's PING, every
      // second), which holds closing those connections until nothing but the shutdown timeout ends it.
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
        assert.match(server.stderr(), /stopped without waiting for [^\n]*the lists in Redis[^\n]* to close: the 1 s to stop had passed\n/);
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

/** A configuration of one list; `source` is its only source. */
async function configWith(dir: string, source: object): Promise<string> {
  const file = join(dir, 'sbkit.json');
  await writeFile(file, JSON.stringify({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [source] }] }));
  return file;
}

/**
 * The phases a start can be held in by something that does not answer, each made by a Staller: the
 * command's arguments. Binding the port holds nothing; the moment after it is the test above of a
 * SIGTERM sent as the server says it listens.
 */
const STALLED_PHASES: { phase: string; args: (staller: Staller, dir: string) => Promise<string[]> }[] = [
  {
    phase: 'downloading a feed, its data folder open',
    args: async (staller, dir) => [
      '--config',
      await configWith(dir, { url: `http://127.0.0.1:${staller.port}/feed.txt`, format: 'urls', allowPrivateAddresses: true }),
      '--data',
      join(dir, 'data'),
    ],
  },
  {
    phase: 'connecting to Redis',
    args: async (staller, dir) => [
      '--config',
      await configWith(dir, { entries: ['bad.example/'] }),
      '--redis',
      `redis://127.0.0.1:${staller.port}`,
    ],
  },
];

describe('sbkit serve stopped while it starts', { concurrency: true }, () => {
  for (const { phase, args } of STALLED_PHASES) {
    it(`abandons the start at once on SIGTERM, SIGINT or both while ${phase}, and exits 0`, async () => {
      const signalled = async (signals: NodeJS.Signals[]) => {
        const staller = await Staller.start();
        const server = spawnServe(...(await args(staller, await tempDir('stalled'))));
        await within(FAIL_BOUND_MS, `${phase}: the stall reached`, staller.reached);
        const signalledAt = performance.now();
        for (const signal of signals) server.child.kill(signal);
        const { code, atMs } = await within(ABANDON_BOUND_MS, `${phase}: exit after ${signals.join(' and ')}`, server.exited);
        return { signals, code, ms: atMs - signalledAt, stderr: server.stderr() };
      };
      const runs = await Promise.all(
        [['SIGTERM'], ['SIGINT'], ['SIGTERM', 'SIGINT']].map((signals) => signalled(signals as NodeJS.Signals[])),
      );
      for (const { signals, code, ms, stderr } of runs) {
        const what = `${phase}, ${signals.join(' and ')}: exited ${code} after ${Math.round(ms)} ms\n${stderr}`;
        // Signals pending together are delivered lowest number first: SIGINT before SIGTERM.
        assert.match(stderr, new RegExp(`sbkit serve: (${signals.join('|')}) while starting: abandoning the start\\n`), what);
        assert.doesNotMatch(stderr, /listening on/, what);
        // A second signal exits at once with 2, unless the first stop was done before it came: never
        // Node's default action (killed, no status) nor a wait.
        if (signals.length === 2 && code === EXIT.FAILED) assert.match(stderr, /SIGINT while stopping: exiting now\n$/, what);
        else {
          assert.equal(code, EXIT.SAFE, what);
          assert.match(stderr, /sbkit serve: stopped before serving\n$/, what);
        }
      }
    });
  }

  it('exits at once on a second signal while the abandoned start waits for a hung Redis to close', { timeout: 30_000 }, async () => {
    const dir = await tempDir('stalled-redis');
    const feed = await Staller.start();
    const redis = await PrivateRedis.start();
    redises.push(redis);
    const config = await configWith(dir, { url: `http://127.0.0.1:${feed.port}/feed.txt`, format: 'urls', allowPrivateAddresses: true });
    const server = spawnServe('--config', config, '--redis', redis.url, '--redis-prefix', 'startup:', '--shutdown-timeout', '60');
    // The lists joined Redis before the feeds are read: the start waits for the feed, with Redis open.
    await within(FAIL_BOUND_MS, 'the feed asked', feed.reached);
    redis.freeze();
    await until(5000, 'a command waiting in the frozen Redis', async () => (await redis.unreadBytes()) > 0);
    server.child.kill('SIGTERM');
    await server.logged(/SIGTERM while starting: abandoning the start\n/);
    assert.equal(server.child.exitCode, null, 'the first stop waits for Redis to close, up to --shutdown-timeout');
    const signalledAt = performance.now();
    server.child.kill('SIGINT');
    const { code, atMs } = await within(ABANDON_BOUND_MS, 'exit after the second signal', server.exited);
    assert.equal(code, EXIT.FAILED, server.stderr());
    assert.ok(atMs - signalledAt < ABANDON_BOUND_MS);
    assert.match(server.stderr(), /SIGINT while stopping: exiting now\n$/);
    await redis.stop();
  });
});

describe('sbkit serve with a part that cannot start', () => {
  it('exits at once with the documented status and one line that says what to do', async () => {
    const dir = await tempDir('cannot-start');
    const config = await configWith(dir, { entries: ['bad.example/'] });
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as { port: number }).port;
    const cases: { what: string; args: string[]; status: number; says: RegExp }[] = [
      {
        what: 'a data folder under a file',
        args: ['--config', config, '--data', join(file, 'data')],
        status: EXIT.FAILED,
        says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: the list history folder \S+ cannot be used \(ENOTDIR.*\); give --data .*a folder this user may write$/,
      },
      {
        what: 'a port another process listens on',
        args: ['--port', String(takenPort)],
        status: EXIT.FAILED,
        says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE.*; another process listens there: stop it, or choose another port$/,
      },
      {
        what: 'a certificate file that does not exist',
        args: ['--tls-cert', join(dir, 'none.pem'), '--tls-key', file],
        status: EXIT.INVALID_INPUT,
        says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: --tls-cert: cannot read \S+none\.pem: ENOENT/,
      },
      {
        what: 'a key file that holds no key',
        args: ['--tls-cert', file, '--tls-key', file],
        status: EXIT.INVALID_INPUT,
        says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: --tls-cert: \S+ holds no PEM certificate/,
      },
      {
        what: 'a Redis URL that is none',
        args: ['--config', config, '--redis', 'http://127.0.0.1:6379'],
        status: EXIT.INVALID_INPUT,
        says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: http:\/\/127\.0\.0\.1:6379 is not a Redis URL \(redis:\/\/host:port[,)]/,
      },
      {
        what: 'a Redis URL whose password holds an unencoded #, which would end the host part',
        args: ['--config', config, '--redis', 'redis://default:hunter2#x@127.0.0.1:6379'],
        status: EXIT.INVALID_INPUT,
        says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: "redis:\/\/127\.0\.0\.1:6379" is not a Redis address: a '\/', '\?' or '#' in the user or password is percent-encoded \(%2F, %3F, %23\): unencoded, it ends the host part of the URL$/,
      },
    ];
    // Node's own recursive mkdir retries for ever under /proc (ENOENT for a parent that exists): Linux only.
    if (process.platform === 'linux') {
      cases.push(
        {
          what: 'a data folder that cannot be created',
          args: ['--config', config, '--data', '/proc/sbkit-data'],
          status: EXIT.FAILED,
          says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: the list history folder \/proc\/sbkit-data cannot be used \(ENOENT.*\); give --data .*a folder this user may write$/,
        },
        {
          what: 'a data folder no file can be written in, even by root',
          args: ['--config', config, '--data', '/sys/kernel'],
          status: EXIT.FAILED,
          says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: the list history folder \/sys\/kernel cannot be used \((EACCES|EROFS|EPERM).*\); give --data .*a folder this user may write$/,
        },
        {
          what: "a proxy's data folder that cannot be created",
          args: ['--upstream', `http://127.0.0.1:${takenPort}`, '--data', '/proc/sbkit-mirror'],
          status: EXIT.FAILED,
          says: /^\d\d:\d\d:\d\d\.\d{3} FATAL sbkit serve: local database \/proc\/sbkit-mirror: cannot create, read or write the folder \(ENOENT.*\); choose a folder this user may write$/,
        },
      );
    }
    try {
      await Promise.all(
        cases.map(async ({ what, args, status, says }) => {
          const server = spawnServe(...args);
          const { code, atMs } = await within(FAIL_BOUND_MS, what, server.exited);
          const lines = server.stderr().trimEnd().split('\n');
          const shown = `${what}: exited ${code} after ${Math.round(atMs - server.startedAtMs)} ms\n${server.stderr()}`;
          assert.equal(code, status, shown);
          assert.equal(lines.length, 1, shown);
          assert.match(lines[0]!, says, shown);
        }),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("sbkit serve's line to try it with", () => {
  it('names a URL its lists hold, which a check finds UNSAFE, or none when it cannot name one', { concurrency: true }, async () => {
    const dir = await tempDir('try-line');
    await writeFile(join(dir, 'feed.txt'), 'http://from-a-file.example/\n');
    const entries = await configWith(dir, { entries: ['# a comment', 'listed.example/landing'] });
    const fileOnly = join(dir, 'file-only.json');
    await writeFile(
      fileOnly,
      JSON.stringify({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: 'feed.txt', format: 'urls' }] }] }),
    );
    const cases = [
      { args: ['--config', entries], named: 'http://listed.example/landing' },
      { args: [], named: 'http://testsafebrowsing.appspot.com/s/phishing.html' },
      { args: ['--config', fileOnly], named: undefined },
    ];
    await Promise.all(
      cases.map(async ({ args, named }) => {
        const server = await serve(...args);
        try {
          if (named === undefined) {
            // The line would come before the process stops: once it has exited, its absence is certain.
            server.child.kill('SIGTERM');
            await server.exited;
            assert.doesNotMatch(server.stderr(), /^try:/m);
            return;
          }
          await server.logged(/^try: .*\n/m);
          const line = /^try: npx sbkit check --server (\S+) (\S+)$/m.exec(server.stderr());
          assert.ok(line !== null, server.stderr());
          assert.deepEqual([line[1], line[2]], [server.url, named]);
          assert.equal((await run(['check', '--server', line[1]!, line[2]!])).status, EXIT.UNSAFE, `${named} is UNSAFE`);
        } finally {
          server.child.kill('SIGTERM');
          await server.exited;
        }
      }),
    );
  });
});
