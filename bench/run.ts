// `npm run bench`: runs every benchmark case in one process, prints a table and writes bench/RESULTS.md.
// Cases run one after another on one core; on this shared machine only medians of one run compare.
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { Bench } from 'tinybench';
import type { BenchCase } from './case.ts';
import { urlBenchmarks } from './url.ts';

interface Row {
  name: string;
  unit: string;
  medianMs: number;
  ratePerSecond: number;
  budgetPerSecond: number | undefined;
}

async function measure(cases: BenchCase[]): Promise<Row[]> {
  const bench = new Bench({ time: 2000, warmupTime: 500 });
  for (const c of cases) bench.add(c.name, c.fn);
  await bench.run();
  return cases.map((c) => {
    const task = bench.getTask(c.name);
    const result = task?.result;
    if (result === undefined || !('latency' in result)) throw new Error(`benchmark "${c.name}" produced no result`);
    const medianMs = result.latency.p50;
    if (medianMs === undefined) throw new Error(`benchmark "${c.name}" has no median`);
    return {
      name: c.name,
      unit: c.unit,
      medianMs,
      ratePerSecond: (c.unitsPerOp * 1000) / medianMs,
      budgetPerSecond: c.budgetPerSecond,
    };
  });
}

function formatRate(rate: number): string {
  if (rate >= 1e6) return `${(rate / 1e6).toFixed(1)} M`;
  if (rate >= 1e3) return `${(rate / 1e3).toFixed(0)} k`;
  return rate.toFixed(0);
}

function report(rows: Row[]): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npm run bench\` on ${cpus().length} × ${cpu}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Medians of one run (tinybench); ` +
      'the machine is shared, so compare rows of the same run only.',
    '',
    '| work | median per op | rate | budget (DESIGN.md) | within budget |',
    '|---|---|---|---|---|',
    ...rows.map((r) => {
      const budget = r.budgetPerSecond === undefined ? '—' : `≥ ${formatRate(r.budgetPerSecond)} ${r.unit}/s`;
      const verdict = r.budgetPerSecond === undefined ? '—' : r.ratePerSecond >= r.budgetPerSecond ? 'yes' : '**no**';
      return `| ${r.name} | ${r.medianMs.toFixed(3)} ms | ${formatRate(r.ratePerSecond)} ${r.unit}/s | ${budget} | ${verdict} |`;
    }),
    '',
  ];
  return lines.join('\n');
}

const rows = await measure([...urlBenchmarks()]);
const text = report(rows);
process.stdout.write(text);
writeFileSync(new URL('./RESULTS.md', import.meta.url), text);
