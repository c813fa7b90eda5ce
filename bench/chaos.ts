// `npm run chaos`: the long chaos runs, their reports printed: Redis as one server (killed and started
// again empty), as a primary with two replicas behind three Sentinels, and as a Cluster of three
// primaries with a replica each (a primary killed, a replica promoted). See bench/chaos/chaos-run.ts.
import { formatReport } from './chaos/chaos-report.ts';
import { type ChaosSettings, runChaos } from './chaos/chaos-run.ts';

const common = {
  localClients: 10,
  realtimeClients: 10,
  publishEveryMs: 3000,
  faultGapMs: 8000,
  downMs: 3000,
  convergeTimeoutMs: 60_000,
  progress: (line: string) => console.error(line),
};
const variants: Pick<ChaosSettings, 'redis' | 'faults'>[] = [
  // Redis last: versions are published while it is away, and the run measures how soon after it answers
  // again clients hold the last one.
  {
    redis: 'server',
    faults: ['kill-instance', 'redeploy-instance', 'restart-redis', 'kill-instance', 'redeploy-instance', 'restart-redis'],
  },
  // Two replicas: the second failover finds one left.
  { redis: 'sentinel', faults: ['kill-instance', 'sentinel-failover', 'redeploy-instance', 'sentinel-failover'] },
  // One replica per primary: the list's slot fails over once.
  { redis: 'cluster', faults: ['kill-instance', 'redeploy-instance', 'cluster-failover'] },
];
for (const variant of variants) {
  console.error(`Redis as ${variant.redis}: ${variant.faults.join(', ')}`);
  console.log(`### Redis as ${variant.redis}\n\n${formatReport(await runChaos({ ...common, ...variant }))}\n`);
}
