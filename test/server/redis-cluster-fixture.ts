// A Redis Cluster of three primaries (no replicas), real processes of the test's own on free ports,
// their cluster state files in a temporary folder removed at stop. Every wait is bounded.

import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';
import { until } from '../support/waiting.ts';
import { RedisProcesses, redisCli } from './redis-sentinel-fixture.ts';

const HOST = '127.0.0.1';
const PRIMARIES = 3;
/** The nodes agree that every slot is served within this. */
const SETTLE_WAIT_MS = 15_000;

export class RedisClusterSet {
  private readonly processes = new RedisProcesses();

  private constructor(
    private readonly dir: string,
    readonly ports: readonly number[],
  ) {}

  /** Starts the nodes, joins them into one cluster and waits until it serves every slot. */
  static async start(): Promise<RedisClusterSet> {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-cluster-'));
    const ports: number[] = [];
    for (let i = 0; i < PRIMARIES; i++) ports.push(await freePort());
    const cluster = new RedisClusterSet(dir, ports);
    try {
      await cluster.launch();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** `redis+cluster://` with every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.ports.map((port) => `${HOST}:${port}`).join(',')}`;
  }

  /** The keys matching `pattern` on every node (or on the node at `port`), sorted. */
  keys(pattern: string, port?: number): string[] {
    return (port === undefined ? this.ports : [port])
      .flatMap((port) => redisCli(port, '--raw', 'KEYS', pattern).split('\n'))
      .filter((key) => key !== '')
      .sort();
  }

  async stop(): Promise<void> {
    await this.processes.stopAll();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    for (const port of this.ports) {
      await this.processes.start(port, [
        '--port',
        String(port),
        '--bind',
        HOST,
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '2000',
      ]);
    }
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...this.ports.map((port) => `${HOST}:${port}`), '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8', timeout: SETTLE_WAIT_MS },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await until(SETTLE_WAIT_MS, 'every node of the cluster serving every slot', () =>
      this.ports.every((port) => /cluster_state:ok/.test(redisCli(port, 'CLUSTER', 'INFO'))),
    );
  }
}
