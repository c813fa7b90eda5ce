// A Redis Cluster of three primaries (each with a replica, or none), real processes of the test's own
// on free ports, their cluster state files in a temporary folder removed at stop. Every wait is bounded.

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

/** One line of CLUSTER NODES: a node, its role and, for a primary, the slots it serves. */
interface ClusterNode {
  id: string;
  port: number;
  primary: boolean;
  /** The primary's id, for a replica. */
  replicaOf: string;
  failed: boolean;
  slots: [number, number][];
}

async function clusterNodes(port: number): Promise<ClusterNode[]> {
  return (await redisCli(port, 'CLUSTER', 'NODES'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [id, address, flags, replicaOf, , , , , ...slots] = line.split(' ');
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(address!)?.[1]),
        primary: flags!.split(',').includes('master'),
        replicaOf: replicaOf!,
        failed: /fail/.test(flags!),
        slots: slots.filter((range) => /^\d/.test(range)).map((range) => range.split('-').map(Number) as [number, number]),
      };
    });
}

export class RedisClusterSet {
  private readonly processes = new RedisProcesses();

  private constructor(
    private readonly dir: string,
    readonly ports: readonly number[],
    private readonly replicas: number,
  ) {}

  /** Starts the nodes (three primaries, each with `replicas` replicas), joins them into one cluster and waits until it serves every slot. */
  static async start(replicas = 0): Promise<RedisClusterSet> {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-cluster-'));
    const ports: number[] = [];
    for (let i = 0; i < PRIMARIES * (1 + replicas); i++) ports.push(await freePort());
    const cluster = new RedisClusterSet(dir, ports, replicas);
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
  async keys(pattern: string, port?: number): Promise<string[]> {
    const answers = await Promise.all((port === undefined ? this.ports : [port]).map((port) => redisCli(port, '--raw', 'KEYS', pattern)));
    return answers
      .flatMap((answer) => answer.split('\n'))
      .filter((key) => key !== '')
      .sort();
  }

  /**
   * kill -9 of the primary serving `key`'s slot: its replica is promoted once the other nodes find it
   * down (cluster-node-timeout). Waits until the replica serves the slot and the cluster every slot;
   * resolves to the killed port and the promoted one.
   */
  async killPrimaryOf(key: string): Promise<{ killed: number; promoted: number }> {
    const slot = Number(await redisCli(this.ports[0]!, 'CLUSTER', 'KEYSLOT', key));
    const nodes = await clusterNodes(this.ports[0]!);
    const owner = nodes.find((node) => node.primary && node.slots.some(([from, to = from]) => slot >= from && slot <= to));
    if (owner === undefined) throw new Error(`no primary of the cluster serves slot ${slot}`);
    const replica = nodes.find((node) => node.replicaOf === owner.id);
    if (replica === undefined) throw new Error(`the primary on ${owner.port} has no replica to promote`);
    await this.processes.kill(owner.port);
    const alive = this.ports.filter((port) => port !== owner.port);
    const promoted = async (port: number) => {
      const seen = (await clusterNodes(port)).find((node) => node.id === replica.id);
      return seen?.primary === true && !seen.failed && /cluster_state:ok/.test(await redisCli(port, 'CLUSTER', 'INFO'));
    };
    await until(SETTLE_WAIT_MS, `the replica on ${replica.port} promoted and every slot served again`, async () =>
      (await Promise.all(alive.map(promoted))).every(Boolean),
    );
    return { killed: owner.port, promoted: replica.port };
  }

  async stop(): Promise<void> {
    await this.processes.stopAll();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    // Started together: each only waits to answer, and `--cluster create` joins them after.
    await Promise.all(
      this.ports.map((port) =>
        this.processes.start(port, [
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
        ]),
      ),
    );
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...this.ports.map((port) => `${HOST}:${port}`), '--cluster-replicas', String(this.replicas), '--cluster-yes'],
      { encoding: 'utf8', timeout: SETTLE_WAIT_MS },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await until(SETTLE_WAIT_MS, 'every node of the cluster serving every slot', async () =>
      (await Promise.all(this.ports.map((port) => redisCli(port, 'CLUSTER', 'INFO')))).every((info) => /cluster_state:ok/.test(info)),
    );
    // A replica that never synced with its primary is not promoted when the primary fails.
    await until(SETTLE_WAIT_MS, 'every replica in sync with its primary', async () =>
      (await Promise.all(this.ports.map((port) => redisCli(port, 'INFO', 'replication')))).every(
        (replication) => /role:master/.test(replication) || /master_link_status:up/.test(replication),
      ),
    );
  }
}
