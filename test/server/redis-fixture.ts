import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { freePort } from '../support/ports.ts';

/** The Redis the tests use (docs/architecture.md "Scale": a real Redis on the development and CI machines). */
const REDIS_HOST = '127.0.0.1';
const REDIS_PORT = 6379;
export const REDIS_URL = `redis://${REDIS_HOST}:${REDIS_PORT}`;

/** The command .ci/run starts Redis with: no persistence, loopback only. */
const START_ARGS = [
  '--daemonize',
  'yes',
  '--bind',
  '127.0.0.1',
  '-::1',
  '--port',
  String(REDIS_PORT),
  '--save',
  '',
  '--appendonly',
  'no',
  '--dir',
  '/var/lib/redis',
  '--logfile',
  '/var/log/redis/ci.log',
];
const START_WAIT_MS = 5000;

/** True when Redis answers PING on 127.0.0.1:`port` within a second. */
function pings(port = REDIS_PORT): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, REDIS_HOST);
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString('latin1').startsWith('+PONG')));
  });
}

/**
 * Makes sure Redis runs on 127.0.0.1:6379: starts it as .ci/run does when it is not running and
 * `redis-server` is installed, and fails with what to do otherwise.
 */
export async function ensureRedis(): Promise<void> {
  if (await pings()) return;
  if (spawnSync('redis-server', ['--version']).error !== undefined) {
    throw new Error(
      `Redis is not running on ${REDIS_HOST}:${REDIS_PORT} and redis-server is not installed: install Redis (Debian: apt-get install redis-server) or start one there, then run the tests again`,
    );
  }
  for (const dir of ['/var/lib/redis', '/var/log/redis']) mkdirSync(dir, { recursive: true });
  const started = spawnSync('redis-server', START_ARGS, { encoding: 'utf8' });
  if (started.status !== 0)
    throw new Error(
      `Redis is not running on ${REDIS_HOST}:${REDIS_PORT} and redis-server ${START_ARGS.join(' ')} failed: ${started.stderr || started.stdout}`,
    );
  const deadline = Date.now() + START_WAIT_MS;
  while (!(await pings())) {
    if (Date.now() > deadline)
      throw new Error(
        `redis-server started but does not answer on ${REDIS_HOST}:${REDIS_PORT} after ${START_WAIT_MS} ms; see /var/log/redis/ci.log`,
      );
    await sleep(50);
  }
}

/** A key prefix no other test run uses. */
export function uniqueKeyPrefix(): string {
  return `sbkit-test:${randomUUID()}:`;
}

/** Deletes every key under `prefix` (a test run's namespace). */
export async function deleteKeys(prefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.del(keys);
    }
  } finally {
    await client.close();
  }
}

/** The keys under `prefix`, sorted. */
export async function keysUnder(prefix: string): Promise<string[]> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    return (await client.keys(`${prefix}*`)).sort();
  } finally {
    await client.close();
  }
}

/**
 * A TCP relay to Redis that the test can cut (every connection dropped, the port closed) and restore
 * on the same port: Redis going away and coming back, for one client only, without stopping Redis. Or
 * stall: the connections open go silent, as through a host gone without a word, while new ones pass.
 */
export class RedisRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private port = 0;

  static async start(): Promise<RedisRelay> {
    const relay = new RedisRelay();
    relay.port = await relay.listen(0);
    return relay;
  }

  get url(): string {
    return `redis://${REDIS_HOST}:${this.port}`;
  }

  /** Redis goes away: open connections drop, new ones are refused. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Redis is back, on the same port. */
  async restore(): Promise<void> {
    await this.listen(this.port);
  }

  /** The connections open carry nothing more either way, and stay open; connections made later pass. */
  stall(): void {
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    this.pairs.clear();
  }

  private listen(port: number): Promise<number> {
    const server = createServer((client) => {
      const upstream = connect(REDIS_PORT, REDIS_HOST);
      const pair = { client, upstream };
      this.pairs.add(pair);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          this.pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, REDIS_HOST, () => {
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }
}

/**
 * A Redis server of the test's own, on a free port, that the test can really stop and start again:
 * the shared Redis on 6379 stays up for the tests that run beside it. Keeps nothing on disk.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://${REDIS_HOST}:${this.port}`;
  }

  /** Starts the server (again) on its port and waits until it answers. */
  async restart(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', REDIS_HOST, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    const deadline = Date.now() + START_WAIT_MS;
    while (!(await pings(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`a private redis-server on port ${this.port} did not start`);
      await sleep(20);
    }
  }

  /** SIGSTOP: the server keeps its connections open and answers nothing, as a hung host does; stop() still ends it. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT: a frozen server goes on, reading what it was sent meanwhile. */
  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /**
   * Bytes clients sent that the server has not read, from the kernel's table of TCP connections (Linux):
   * above 0 once a command waits in a frozen server.
   */
  async unreadBytes(): Promise<number> {
    const port = this.port.toString(16).toUpperCase().padStart(4, '0');
    let unread = 0;
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const row of (await readFile(table, 'utf8')).split('\n').slice(1)) {
        // sl local_address rem_address st tx_queue:rx_queue …
        const [, local, , , queues] = row.trim().split(/\s+/);
        if (local?.endsWith(`:${port}`) && queues !== undefined) unread += Number.parseInt(queues.split(':')[1]!, 16);
      }
    }
    return unread;
  }

  /** Stops the server, as a crash or an operator would. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * A stand-in for Redis, on a free port, that answers every command +OK and each EVAL with what `answer`
 * gives for the script (as RESP text): answers no real Redis running sbkit's scripts gives, for the
 * checks that take such an answer as Redis's failure. It reads the commands node-redis sends (arrays of
 * bulk strings), nothing more.
 */
export class ScriptedRedis {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;

  private constructor(answer: (script: string) => string) {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {});
      let pending = Buffer.alloc(0);
      socket.on('data', (data) => {
        pending = Buffer.concat([pending, data]);
        for (let command = nextCommand(pending); command !== undefined; command = nextCommand(pending)) {
          pending = pending.subarray(command.length);
          const [name, script] = command.args;
          socket.write(name?.toUpperCase() === 'EVAL' ? answer(script ?? '') : '+OK\r\n');
        }
      });
    });
  }

  static async start(answer: (script: string) => string): Promise<ScriptedRedis> {
    const scripted = new ScriptedRedis(answer);
    await new Promise<void>((resolve, reject) => {
      scripted.server.once('error', reject);
      scripted.server.listen(0, REDIS_HOST, resolve);
    });
    scripted.port = (scripted.server.address() as { port: number }).port;
    return scripted;
  }

  get url(): string {
    return `redis://${REDIS_HOST}:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The first whole command in `bytes` (`*N` then N `$len` bulk strings) and its length in bytes; undefined until it is all there. */
function nextCommand(bytes: Buffer): { args: string[]; length: number } | undefined {
  const line = (from: number) => {
    const end = bytes.indexOf('\r\n', from);
    return end < 0 ? undefined : { text: bytes.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(0);
  if (head === undefined) return undefined;
  const args: string[] = [];
  let at = head.next;
  for (let i = 0; i < Number(head.text.slice(1)); i++) {
    const size = line(at);
    if (size === undefined) return undefined;
    const end = size.next + Number(size.text.slice(1));
    if (bytes.length < end + 2) return undefined;
    args.push(bytes.toString('utf8', size.next, end));
    at = end + 2;
  }
  return { args, length: at };
}
