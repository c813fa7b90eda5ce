// `npm run chaos`: the long chaos run, its report printed. See bench/chaos/chaos-run.ts.
import { formatReport } from './chaos/chaos-report.ts';
import { runChaos } from './chaos/chaos-run.ts';

const report = await runChaos({
  localClients: 10,
  realtimeClients: 10,
  publishEveryMs: 3000,
  faultGapMs: 8000,
  // Redis last: versions are published while it is away, and the run measures how soon after it answers
  // again clients hold the last one.
  faults: ['kill-instance', 'redeploy-instance', 'restart-redis', 'kill-instance', 'redeploy-instance', 'restart-redis'],
  downMs: 3000,
  convergeTimeoutMs: 60_000,
  progress: (line) => console.error(line),
});
console.log(formatReport(report));
