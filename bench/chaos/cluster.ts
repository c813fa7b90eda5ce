// The parts of the chaos run, as an operator runs them: a private redis-server (no persistence) that can
// be killed and started again, `sbkit serve` instances of the built CLI on fixed ports that can be
// killed (-9), stopped (SIGTERM) and started again, and nginx as the round-robin front, configured as
// docs/operations.md "Several machines" shows, logging each answer's status and Retry-After.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NGINX } from '../../test/server/nginx-fixture.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist', 'cli', 'bin.js');
const DOCS = join(ROOT, 'docs', 'operations.md');
const HOST = '127.0.0.1';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, HOST);
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

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A redis-server of the run's own on a free port, keeping nothing: a restart comes back empty. */
export class ChaosRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<ChaosRedis> {
    const redis = new ChaosRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://${HOST}:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', HOST, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    const deadline = Date.now() + 5000;
    while (!(await pings(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start`);
      await sleep(20);
    }
  }

  /** SIGKILL: Redis gone, and all it held with it. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await exitOf(child);
  }
}

/** One `sbkit serve` of the built CLI, on a fixed port so that the front keeps finding it across restarts. */
export class Instance {
  private child: ChildProcess | undefined;
  private stderr = '';
  /** Everything every run of this instance wrote to standard error. */
  log = '';

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly args: string[],
  ) {}

  static async create(name: string, args: string[]): Promise<Instance> {
    return new Instance(name, await freePort(), args);
  }

  get url(): string {
    return `http://${HOST}:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts the instance and resolves once it listens. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(this.port), ...this.args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    this.stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      this.log += chunk.toString();
    });
    const deadline = Date.now() + 30_000;
    while (!/listening on http/.test(this.stderr)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`${this.name} did not start (exit ${child.exitCode}):\n${this.stderr}`);
      }
      await sleep(20);
    }
  }

  /** kill -9: no goodbye, requests under way cut. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await exitOf(child);
  }

  /** SIGTERM, as a deploy stops it; resolves to its exit status. */
  async stop(): Promise<number | null> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined) return null;
    child.kill('SIGTERM');
    await exitOf(child);
    return child.exitCode;
  }
}

/** The load balancer block of docs/operations.md "## Several machines", for these instances and this port. */
function documentedBalancer(instances: readonly Instance[], port: number): string {
  const docs = readFileSync(DOCS, 'utf8');
  const section = docs.slice(docs.indexOf('\n## Several machines'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('docs/operations.md "## Several machines" has no nginx block');
  const servers = /^(\s*)server 10\.0\.0\.11:8080( [^;]*)?;\n\s*server 10\.0\.0\.12:8080[^;]*;\n/m;
  const match = servers.exec(block);
  if (match === null) throw new Error('the documented balancer names two instances, 10.0.0.11:8080 and 10.0.0.12:8080');
  const [, indent, parameters] = match;
  const ours = instances.map((instance) => `${indent}server ${HOST}:${instance.port}${parameters ?? ''};\n`).join('');
  const replaced = block.replace(servers, ours).replace(/^(\s*)listen 80;/m, `$1listen ${HOST}:${port};`);
  if (!replaced.includes(`listen ${HOST}:${port};`)) throw new Error('the documented balancer listens on port 80');
  return replaced;
}

/** One line of the front's access log. */
export interface FrontAnswer {
  status: number;
  retryAfter: string | undefined;
  /** What each instance tried answered, e.g. ["502", "200"] when nginx went on to the next one. */
  upstreamStatuses: string[];
  uri: string;
}

/** nginx in the foreground, its files in `dir`, logging every answer in a form the run can read. */
export class Front {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly accessLog: string,
  ) {}

  static async start(dir: string, instances: readonly Instance[]): Promise<Front> {
    if (NGINX === undefined) throw new Error('nginx is not installed (apt-get install nginx)');
    const port = await freePort();
    // As root, nginx's workers would run as nobody, who cannot write to a temporary folder of root's.
    const user = process.getuid?.() === 0 ? `user ${userInfo().username};` : '';
    await writeFile(join(dir, 'balancer.conf'), documentedBalancer(instances, port));
    await writeFile(
      join(dir, 'nginx.conf'),
      `daemon off;
${user}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  log_format chaos '$status "$sent_http_retry_after" "$upstream_status" $request_uri';
  access_log ${dir}/access.log chaos;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi_temp;
  uwsgi_temp_path ${dir}/uwsgi_temp;
  scgi_temp_path ${dir}/scgi_temp;
  include ${dir}/balancer.conf;
}
`,
    );
    const child = spawn(NGINX, ['-p', `${dir}/`, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
    const front = new Front(child, `http://${HOST}:${port}`, join(dir, 'access.log'));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && child.exitCode === null) {
      try {
        if ((await fetch(`${front.url}/healthz`)).ok) return front;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    child.kill('SIGKILL');
    let log = '';
    try {
      log = readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      // nothing logged
    }
    throw new Error(`nginx did not answer on ${front.url} within 10 s (exit ${child.exitCode}): ${log}`);
  }

  /** Every answer the front gave so far. */
  answers(): FrontAnswer[] {
    const lines = readFileSync(this.accessLog, 'utf8').split('\n');
    const answers: FrontAnswer[] = [];
    for (const line of lines) {
      const match = /^(\d{3}) "([^"]*)" "([^"]*)" (\S*)$/.exec(line);
      if (match === null) continue;
      const [, status, retryAfter, upstream, uri] = match;
      answers.push({
        status: Number(status),
        retryAfter: retryAfter === '-' || retryAfter === '' ? undefined : retryAfter,
        upstreamStatuses: upstream === '-' ? [] : upstream!.split(/[,:] /),
        uri: uri!,
      });
    }
    return answers;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = exitOf(this.child);
    this.child.kill('SIGQUIT');
    await Promise.race([exited, sleep(5000).then(() => this.child.kill('SIGKILL'))]);
  }
}
