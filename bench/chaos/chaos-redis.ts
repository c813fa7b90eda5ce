// The Redis behind the chaos run's instances, in the three forms operators run it: one server that is
// killed and started again empty; a primary with two replicas behind three Sentinels; a Cluster of three
// primaries, each with a replica. In the last two a primary is killed (-9) and a replica promoted. The
// Sentinel and Cluster processes are the test fixtures' (test/server/redis-*-fixture.ts), as the run's
// front is test/server/nginx-fixture.ts's nginx.

import { RedisClusterSet } from '../../test/server/redis-cluster-fixture.ts';
import { SentinelSet } from '../../test/server/redis-sentinel-fixture.ts';
import { ChaosRedis } from './cluster.ts';

export type RedisSetup = 'server' | 'sentinel' | 'cluster';

/** Replicas of the Sentinel set's primary: two, so that a second failover finds one left. */
const SENTINEL_REPLICAS = 2;

export class ChaosRedisSetup {
  private constructor(
    readonly setup: RedisSetup,
    private readonly server: ChaosRedis | undefined,
    private readonly sentinels: SentinelSet | undefined,
    private readonly cluster: RedisClusterSet | undefined,
  ) {}

  static async start(setup: RedisSetup): Promise<ChaosRedisSetup> {
    if (setup === 'sentinel') return new ChaosRedisSetup(setup, undefined, await SentinelSet.start(SENTINEL_REPLICAS), undefined);
    if (setup === 'cluster') return new ChaosRedisSetup(setup, undefined, undefined, await RedisClusterSet.start(1));
    return new ChaosRedisSetup(setup, await ChaosRedis.start(), undefined, undefined);
  }

  /** What `sbkit serve --redis` is given. */
  get url(): string {
    return (this.server ?? this.sentinels ?? this.cluster)!.url;
  }

  /** For the run's progress lines. */
  describe(): string {
    if (this.sentinels !== undefined) {
      return `a primary and ${SENTINEL_REPLICAS} replicas on ${this.sentinels.dataPorts.join(', ')} behind Sentinels on ${this.sentinels.sentinelPorts.join(', ')}`;
    }
    if (this.cluster !== undefined) return `a Cluster of 3 primaries and 3 replicas on ${this.cluster.ports.join(', ')}`;
    return `Redis on ${this.server!.port}`;
  }

  /** The one server, killed (-9): all it held is gone. */
  async killServer(): Promise<void> {
    await this.only('server', this.server).kill();
  }

  /** The one server, started again: empty. */
  async startServer(): Promise<void> {
    await this.only('server', this.server).start();
  }

  /**
   * kill -9 of the primary (in a Cluster, the primary of `hashTag`'s slot); resolves, once a replica
   * is promoted and takes writes, to what happened.
   */
  async killPrimary(hashTag: string): Promise<string> {
    if (this.sentinels !== undefined) {
      const killed = await this.sentinels.primaryPort();
      const promoted = await this.sentinels.killPrimary();
      return `primary ${killed} killed (-9), the Sentinels promoted ${promoted}`;
    }
    const { killed, promoted } = await this.only('cluster', this.cluster).killPrimaryOf(hashTag);
    return `primary ${killed} of the list's slot killed (-9), its replica ${promoted} promoted`;
  }

  async stop(): Promise<void> {
    await this.server?.kill();
    await this.sentinels?.stop();
    await this.cluster?.stop();
  }

  private only<T>(setup: RedisSetup, part: T | undefined): T {
    if (part === undefined) throw new Error(`this fault needs Redis as ${setup}, not ${this.setup}`);
    return part;
  }
}
