// A Redis primary with one replica (or more) behind three Sentinels, all real processes of the test's own on free
// ports, keeping nothing on disk but the Sentinels' configuration files (which Sentinel rewrites) in a
// temporary folder removed at stop. Every wait is bounded and says what it waited for.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';
import { until } from '../support/waiting.ts';

const HOST = '127.0.0.1';
/** The name the Sentinels know the primary by. */
const SENTINEL_NAME = 'mymaster';
const START_WAIT_MS = 5000;
/** The Sentinels agree on a primary, and a replica in sync, within this. */
const SETTLE_WAIT_MS = 15_000;

/**
 * One redis-cli command against `port`: its output, trimmed, or '' when the server did not answer.
 * Not waited for synchronously: the chaos run's clients go on meanwhile in the same process.
 */
export function redisCli(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('redis-cli', ['-h', HOST, '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 }, (_error, stdout) =>
      resolve((stdout ?? '').trim()),
    );
  });
}

/** The redis-server processes of a test, started on free ports and killed at stop. */
export class RedisProcesses {
  private readonly children = new Map<number, ChildProcess>();

  /** Starts `redis-server` with `args` on `port`, and waits until it answers. */
  async start(port: number, args: readonly string[]): Promise<void> {
    const program = 'redis-server';
    const child = spawn(program, [...args], { stdio: 'ignore' });
    this.children.set(port, child);
    await until(START_WAIT_MS, `${program} on port ${port} answering`, async () => {
      if (child.exitCode !== null) throw new Error(`${program} on port ${port} exited with ${child.exitCode}`);
      return (await redisCli(port, 'PING')) === 'PONG';
    });
  }

  /** SIGKILL: the process is gone with all it held, as a crashed host is. */
  async kill(port: number): Promise<void> {
    const child = this.children.get(port);
    this.children.delete(port);
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP (`true`) or SIGCONT (`false`): a process that stops answering, its connections open, and resumes. */
  pause(port: number, paused: boolean): void {
    this.children.get(port)?.kill(paused ? 'SIGSTOP' : 'SIGCONT');
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.children.keys()].map((port) => this.kill(port)));
  }
}

/** A primary, its replicas (one by default) and three Sentinels watching them. */
export class SentinelSet {
  private readonly processes = new RedisProcesses();

  private constructor(
    private readonly dir: string,
    /** The ports of the data nodes: the primary at start, then its replicas. */
    readonly dataPorts: readonly number[],
    readonly sentinelPorts: readonly number[],
  ) {}

  /** Starts the set and waits until every Sentinel knows the primary and its replicas. */
  static async start(replicas = 1): Promise<SentinelSet> {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-sentinel-'));
    const dataPorts: number[] = [];
    for (let i = 0; i <= replicas; i++) dataPorts.push(await freePort());
    const set = new SentinelSet(dir, dataPorts, [await freePort(), await freePort(), await freePort()]);
    try {
      await set.launch();
    } catch (error) {
      await set.stop();
      throw error;
    }
    return set;
  }

  /** `redis+sentinel://` of the three Sentinels. */
  get url(): string {
    return `redis+sentinel://${this.sentinelPorts.map((port) => `${HOST}:${port}`).join(',')}/${SENTINEL_NAME}`;
  }

  /** The port of the primary, as the first Sentinel tells it. */
  async primaryPort(): Promise<number> {
    const [, port] = (await redisCli(this.sentinelPorts[0]!, 'SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME)).split('\n');
    return Number(port);
  }

  /** Has the Sentinels promote the replica, and waits until they all name it and it takes writes. */
  async failover(): Promise<number> {
    const before = await this.primaryPort();
    const answer = await redisCli(this.sentinelPorts[0]!, 'SENTINEL', 'FAILOVER', SENTINEL_NAME);
    if (answer !== 'OK') throw new Error(`SENTINEL FAILOVER answered ${answer}`);
    return this.promotedAfter(before);
  }

  /**
   * kill -9 of the primary, as a crashed host: the Sentinels find it down and promote a replica. Waits
   * until they all name the promoted one and it takes writes; resolves to its port.
   */
  async killPrimary(): Promise<number> {
    // Sentinels agree that a primary is down (quorum) and elect the one that promotes a replica only
    // once they know each other, which they learn from the primary's hello channel.
    await until(SETTLE_WAIT_MS, 'every Sentinel knowing the other Sentinels', async () =>
      (await Promise.all(this.sentinelPorts.map((port) => redisCli(port, 'SENTINEL', 'master', SENTINEL_NAME)))).every((answer) => {
        const fields = answer.split('\n');
        return Number(fields[fields.indexOf('num-other-sentinels') + 1]) === this.sentinelPorts.length - 1;
      }),
    );
    const before = await this.primaryPort();
    await this.processes.kill(before);
    return this.promotedAfter(before);
  }

  /** kill -9 of the primary without waiting for a promotion: with no replica, the set stays without one. Resolves to its port. */
  /** SIGSTOP of the replicas (`true`), or SIGCONT (`false`): replication stops, and catches up when they resume. */
  pauseReplicas(paused: boolean): void {
    for (const port of this.dataPorts.slice(1)) this.processes.pause(port, paused);
  }

  async crashPrimary(): Promise<number> {
    const port = await this.primaryPort();
    await this.processes.kill(port);
    return port;
  }

  /**
   * Starts a data node killed before on its port again, empty (nothing is kept on disk), and waits until
   * it answers and every Sentinel names it as the primary, not down: a crashed primary restarted.
   */
  async restart(port: number): Promise<void> {
    await this.processes.start(port, this.dataNodeArgs(port));
    await until(SETTLE_WAIT_MS, `the Sentinels finding ${port} up as the primary`, async () =>
      (await Promise.all(this.sentinelPorts.map((sentinel) => redisCli(sentinel, 'SENTINEL', 'master', SENTINEL_NAME)))).every((answer) => {
        const fields = answer.split('\n');
        return fields[fields.indexOf('port') + 1] === String(port) && fields[fields.indexOf('flags') + 1] === 'master';
      }),
    );
  }

  /** Waits until every Sentinel names another primary than `before`, the same one, and it takes writes. */
  private async promotedAfter(before: number): Promise<number> {
    const named = () =>
      Promise.all(
        this.sentinelPorts.map(async (port) => (await redisCli(port, 'SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME)).split('\n')[1]),
      );
    let promoted = 0;
    await until(SETTLE_WAIT_MS, `the Sentinels agreeing on a primary other than ${before}`, async () => {
      const ports = new Set(await named());
      promoted = Number([...ports][0]);
      return ports.size === 1 && promoted !== before && this.dataPorts.includes(promoted);
    });
    await until(SETTLE_WAIT_MS, `${promoted} answering as a primary`, async () =>
      /role:master/.test(await redisCli(promoted, 'INFO', 'replication')),
    );
    return promoted;
  }

  async stop(): Promise<void> {
    await this.processes.stopAll();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** The arguments of a data node on `port`: no persistence, loopback only. */
  private dataNodeArgs(port: number): string[] {
    return ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', this.dir];
  }

  private async launch(): Promise<void> {
    const [primary, ...replicas] = this.dataPorts as [number, ...number[]];
    await this.processes.start(primary, this.dataNodeArgs(primary));
    await Promise.all(
      replicas.map((replica) => this.processes.start(replica, [...this.dataNodeArgs(replica), '--replicaof', HOST, String(primary)])),
    );
    await until(SETTLE_WAIT_MS, 'the replicas in sync with the primary', async () =>
      (await Promise.all(replicas.map((replica) => redisCli(replica, 'INFO', 'replication')))).every((info) =>
        /master_link_status:up/.test(info),
      ),
    );
    // The Sentinels started together, as the replicas: each only waits to answer.
    await Promise.all(
      this.sentinelPorts.map(async (port) => {
        const file = join(this.dir, `sentinel-${port}.conf`);
        await writeFile(
          file,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${this.dir}`,
            `sentinel monitor ${SENTINEL_NAME} ${HOST} ${primary} 2`,
            `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
            `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
            '',
          ].join('\n'),
        );
        // redis-server in Sentinel mode: Debian's redis-server package alone has it (redis-sentinel is another package).
        await this.processes.start(port, [file, '--sentinel']);
      }),
    );
    // A failover needs replicas the Sentinels know; they learn of them from the primary's INFO.
    await until(SETTLE_WAIT_MS, 'every Sentinel knowing the replicas', async () =>
      (await Promise.all(this.sentinelPorts.map((port) => redisCli(port, 'SENTINEL', 'replicas', SENTINEL_NAME)))).every((known) =>
        replicas.every((replica) => known.includes(String(replica))),
      ),
    );
  }
}
