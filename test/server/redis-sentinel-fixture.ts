// A Redis primary with one replica behind three Sentinels, all real processes of the test's own on free
// ports, keeping nothing on disk but the Sentinels' configuration files (which Sentinel rewrites) in a
// temporary folder removed at stop. Every wait is bounded and says what it waited for.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
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

/** One redis-cli command against `port`: its output, trimmed, or '' when the server did not answer. */
export function redisCli(port: number, ...args: string[]): string {
  const run = spawnSync('redis-cli', ['-h', HOST, '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 });
  return (run.stdout ?? '').trim();
}

/** The redis-server processes of a test, started on free ports and killed at stop. */
export class RedisProcesses {
  private readonly children = new Map<number, ChildProcess>();

  /** Starts `redis-server` (or `redis-sentinel` for a config file's path) with `args` on `port`, and waits until it answers. */
  async start(port: number, args: readonly string[], program = 'redis-server'): Promise<void> {
    const child = spawn(program, [...args], { stdio: 'ignore' });
    this.children.set(port, child);
    await until(START_WAIT_MS, `${program} on port ${port} answering`, () => {
      if (child.exitCode !== null) throw new Error(`${program} on port ${port} exited with ${child.exitCode}`);
      return redisCli(port, 'PING') === 'PONG';
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

  async stopAll(): Promise<void> {
    await Promise.all([...this.children.keys()].map((port) => this.kill(port)));
  }
}

/** A primary, a replica and three Sentinels watching them. */
export class SentinelSet {
  private readonly processes = new RedisProcesses();

  private constructor(
    private readonly dir: string,
    /** The ports of the two data nodes: the primary at start, then its replica. */
    readonly dataPorts: readonly [number, number],
    readonly sentinelPorts: readonly number[],
  ) {}

  /** Starts the set and waits until every Sentinel knows the primary and its replica. */
  static async start(): Promise<SentinelSet> {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-sentinel-'));
    const set = new SentinelSet(dir, [await freePort(), await freePort()], [await freePort(), await freePort(), await freePort()]);
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
  primaryPort(): number {
    const [, port] = redisCli(this.sentinelPorts[0]!, 'SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME).split('\n');
    return Number(port);
  }

  /** Has the Sentinels promote the replica, and waits until they all name it and it takes writes. */
  async failover(): Promise<number> {
    const before = this.primaryPort();
    const answer = redisCli(this.sentinelPorts[0]!, 'SENTINEL', 'FAILOVER', SENTINEL_NAME);
    if (answer !== 'OK') throw new Error(`SENTINEL FAILOVER answered ${answer}`);
    const promoted = this.dataPorts.find((port) => port !== before)!;
    await until(SETTLE_WAIT_MS, `the Sentinels naming ${promoted} the primary`, () =>
      this.sentinelPorts.every((port) => redisCli(port, 'SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME).endsWith(String(promoted))),
    );
    await until(SETTLE_WAIT_MS, `${promoted} answering as a primary`, () => /role:master/.test(redisCli(promoted, 'INFO', 'replication')));
    return promoted;
  }

  async stop(): Promise<void> {
    await this.processes.stopAll();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const [primary, replica] = this.dataPorts;
    const common = ['--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', this.dir];
    await this.processes.start(primary, ['--port', String(primary), ...common]);
    await this.processes.start(replica, ['--port', String(replica), ...common, '--replicaof', HOST, String(primary)]);
    await until(SETTLE_WAIT_MS, 'the replica in sync with the primary', () =>
      /master_link_status:up/.test(redisCli(replica, 'INFO', 'replication')),
    );
    for (const port of this.sentinelPorts) {
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
      await this.processes.start(port, [file], 'redis-sentinel');
    }
    // SENTINEL FAILOVER needs a replica the Sentinel knows; it learns of them from the primary's INFO.
    await until(SETTLE_WAIT_MS, 'every Sentinel knowing the replica', () =>
      this.sentinelPorts.every((port) => redisCli(port, 'SENTINEL', 'replicas', SENTINEL_NAME).includes(String(replica))),
    );
  }
}
