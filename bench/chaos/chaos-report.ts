// The chaos run's report as Markdown: what the front answered, what the clients saw, how long they took.
import type { ChaosReport } from './chaos-run.ts';

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** A fault's recovery (ChaosReport's faults), as the report says it. */
function recovery(fault: ChaosReport['faults'][number]): string {
  if (!('recoveryMs' in fault)) return '';
  const from = fault.fault === 'restart-redis' ? 'Redis answered again' : 'the kill';
  return fault.recoveryMs === undefined ? 'never' : `${fault.recoveryMs} ms after ${from}`;
}

export function formatReport(report: ChaosReport): string {
  const clients = report.clients;
  const dropped = sum(clients.map((c) => c.dropped.length));
  const recovered = sum(clients.map((c) => c.recoveredAfterDrop));
  const resets = clients.flatMap((c) => c.resets.map((r) => `${c.name}: ${r}`));
  const wrong = clients.flatMap((c) => c.wrong.map((w) => `${c.name}: ${w}`));
  const failed = new Map<string, number>();
  for (const c of clients) for (const [code, n] of c.failedUpdates) failed.set(code, (failed.get(code) ?? 0) + n);
  const times = [...report.convergeMs.values()].filter((t): t is number => t !== undefined).sort((a, b) => a - b);
  const never = [...report.convergeMs.entries()].filter(([, t]) => t === undefined).map(([name]) => name);
  const statuses = [...report.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  const lines = [
    `## Chaos run: ${(report.durationMs / 1000).toFixed(0)} s, ${clients.length} clients, ${report.generations} generations`,
    '',
    '| fault | at | what | every instance serving the generation written during it |',
    '|---|---|---|---|',
    ...report.faults.map((f) => `| ${f.fault} | ${(f.atMs / 1000).toFixed(1)} s | ${f.detail} | ${recovery(f)} |`),
    '',
    '| measurement | value |',
    '|---|---|',
    `| requests answered by the front | ${report.requests} (${statuses.join(', ')}) |`,
    `| answers nginx had to take to the other instance | ${report.retriedElsewhere} |`,
    `| 503 | ${report.unavailable}, ${report.unavailableWithoutRetryAfter} of them without Retry-After |`,
    `| other 5xx | ${report.otherServerErrors.length} |`,
    `| client checksum failures (lists dropped) | ${dropped}, ${recovered} followed by a verified full update |`,
    `| clients sent back to a full list (resets, not after a drop) | ${resets.length} |`,
    `| failed updates (client backs off) | ${failed.size === 0 ? 0 : [...failed].map(([code, n]) => `${code}: ${n}`).join(', ')} |`,
    `| held versions that no generation has | ${sum(clients.map((c) => c.unknownVersions))} |`,
    `| verdicts judged | ${sum(clients.map((c) => c.verdicts))} (and ${sum(clients.map((c) => c.fallbacks))} fallbacks after a failed search, not judged) |`,
    `| real-time verdicts by the local lists after a failed search (judged by the generation held) | ${sum(clients.map((c) => c.byHeldLists))} |`,
    `| wrong verdicts | ${wrong.length} |`,
    `| time to the last generation after the faults | ${
      times.length === 0
        ? 'none reached it'
        : `median ${percentile(times, 50)} ms, 90th ${percentile(times, 90)} ms, slowest ${times.at(-1)} ms`
    }${never.length === 0 ? '' : `; never: ${never.join(', ')}`} |`,
    `| SIGTERM exit statuses | ${report.stopStatuses.join(', ')} |`,
    '',
    'Per client (ms to the last generation): ' + [...report.convergeMs].map(([name, t]) => `${name} ${t ?? 'never'}`).join(', '),
  ];
  if (report.otherServerErrors.length > 0) lines.push('', 'Other 5xx:', ...report.otherServerErrors.slice(0, 20).map((l) => `- ${l}`));
  if (wrong.length > 0) lines.push('', 'Wrong verdicts:', ...wrong.slice(0, 20).map((l) => `- ${l}`));
  if (resets.length > 0) lines.push('', 'Resets:', ...resets.slice(0, 20).map((l) => `- ${l}`));
  if (dropped > 0) lines.push('', 'Dropped lists:', ...clients.flatMap((c) => c.dropped.map((d) => `- ${c.name}: ${d}`)).slice(0, 20));
  const logLines = new Map<string, number>();
  for (const line of report.notableLogLines) logLines.set(line, (logLines.get(line) ?? 0) + 1);
  if (logLines.size > 0) {
    lines.push('', 'Instance log lines:', ...[...logLines].slice(0, 40).map(([line, n]) => `- ${line}${n > 1 ? ` (${n} times)` : ''}`));
  }
  return lines.join('\n');
}
