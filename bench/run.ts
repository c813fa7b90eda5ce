// `npm run bench`: runs every benchmark case in one process, prints a table and writes bench/RESULTS.md.
// Cases run one after another on one core; on this shared machine only medians of one run compare.
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { Bench } from 'tinybench';
import type { BenchCase, BenchFact } from './case.ts';
import { checkBenchmarks } from './check.ts';
import { diffBenchmarks } from './diff.ts';
import { type FeedRow, feedBenchmarks, feedTable } from './feeds.ts';
import { type FreshnessRow, freshnessBenchmarks, freshnessTable } from './freshness.ts';
import { guardBenchmarks } from './guard.ts';
import { ohttpBenchmarks } from './ohttp.ts';
import { type HttpRow, httpBenchmarks, loadControlShareCells } from './http.ts';
import { type StartupRow, startupBenchmarks } from './startup.ts';
import { riceBenchmarks } from './rice.ts';
import { storeBenchmarks } from './store.ts';
import { type FloorRow, measureAgainstFloors } from './floor.ts';
import { SMOKE } from './smoke.ts';
import { urlBenchmarks } from './url.ts';
import { webRiskCallFacts } from './web-risk-calls.ts';

/** Runs of each freshness path: an odd number, so that the median is a measured value. */
const FRESHNESS_RUNS = SMOKE ? 1 : 5;

interface Row {
  benchCase: BenchCase;
  medianMs: number;
  ratePerSecond: number;
}

async function measure(cases: BenchCase[]): Promise<Row[]> {
  const bench = SMOKE ? new Bench({ time: 0, iterations: 1, warmup: false }) : new Bench({ time: 2000, warmupTime: 500 });
  for (const c of cases) bench.add(c.name, c.fn);
  await bench.run();
  return cases.map((c) => {
    const task = bench.getTask(c.name);
    const result = task?.result;
    if (result === undefined || !('latency' in result)) throw new Error(`benchmark "${c.name}" produced no result`);
    const medianMs = result.latency.p50;
    if (medianMs === undefined) throw new Error(`benchmark "${c.name}" has no median`);
    return { benchCase: c, medianMs, ratePerSecond: (c.unitsPerOp * 1000) / medianMs };
  });
}

function formatRate(rate: number): string {
  if (rate >= 1e6) return `${(rate / 1e6).toFixed(1)} M`;
  if (rate >= 1e3) return `${(rate / 1e3).toFixed(0)} k`;
  return rate.toFixed(0);
}

function formatTime(ms: number): string {
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  if (ms >= 1e-3) return `${(ms * 1e3).toFixed(2)} µs`;
  return `${(ms * 1e6).toFixed(1)} ns`;
}

/** The budget of a case as text, and whether the measurement keeps it. */
function judge(row: Row): [string, string] {
  const c = row.benchCase;
  const yes = (ok: boolean) => (ok ? 'yes' : '**no**');
  if (c.budgetPerSecond !== undefined)
    return [`≥ ${formatRate(c.budgetPerSecond)} ${c.unit}/s`, yes(row.ratePerSecond >= c.budgetPerSecond)];
  if (c.budgetNsPerUnit !== undefined)
    return [`≤ ${c.budgetNsPerUnit} ns per ${c.unit.replace(/s$/, '')}`, yes((row.medianMs * 1e6) / c.unitsPerOp <= c.budgetNsPerUnit)];
  if (c.budgetMsPerOp !== undefined) return [`≤ ${c.budgetMsPerOp} ms`, yes(row.medianMs <= c.budgetMsPerOp)];
  return ['—', '—'];
}

function startupLine(row: StartupRow): string {
  const value = row.unit === 'ms' ? `${row.value.toFixed(0)} ms` : `${row.value.toFixed(1)} MB`;
  const ofFloor = row.ofFloor === undefined ? '—' : `${row.ofFloor.toFixed(2)}×`;
  if (row.budget === undefined) return `| ${row.name} | ${value} | ${ofFloor} | — | — |`;
  const written = row.budget.written === undefined ? '' : ` (${row.budget.written} at a 100 ms floor)`;
  const budget = row.budget.of === 'ofFloor' ? `≤ ${row.budget.atMost}× the floor${written}` : `≤ ${row.budget.atMost} ${row.unit}`;
  const measured = row.budget.of === 'ofFloor' ? row.ofFloor! : row.value;
  return `| ${row.name} | ${value} | ${ofFloor} | ${budget} | ${measured <= row.budget.atMost ? 'yes' : '**no**'} |`;
}

function floorLine(row: FloorRow): string {
  const { subject, floor } = row;
  const rate = (msPerOp: number, unitsPerOp: number) => `${formatRate((unitsPerOp * 1000) / msPerOp)} ${subject.unit}/s`;
  const budget = row.budgetOfFloor === undefined ? '—' : `≥ ${row.budgetOfFloor.toFixed(2)}× the floor`;
  const verdict = row.budgetOfFloor === undefined ? '—' : row.ofFloor >= row.budgetOfFloor ? 'yes' : '**no**';
  return (
    `| ${subject.name} | ${formatTime(row.subjectMsPerOp / subject.unitsPerOp)} | ${rate(row.subjectMsPerOp, subject.unitsPerOp)} | ` +
    `${floor.name} | ${rate(row.floorMsPerOp, floor.unitsPerOp)} | ${row.ofFloor.toFixed(2)}× | ${budget} | ${verdict} |`
  );
}

function report(
  floors: FloorRow[],
  rows: Row[],
  facts: BenchFact[],
  http: HttpRow[],
  startup: StartupRow[],
  freshness: FreshnessRow[],
  feeds: FeedRow[],
): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npm run bench\` on ${cpus().length} × ${cpu}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Medians of one run (tinybench); ` +
      'the machine is shared, so compare rows of the same run only.',
    '',
    'Work against its floor, the part of the same work no implementation can skip (the two timed in turn for 21 rounds, medians over rounds; the share of the floor, floor time ÷ work time, taken per round):',
    '',
    "| work | per unit | rate | floor | floor's rate | share of the floor | budget (docs/architecture.md) | within budget |",
    '|---|---|---|---|---|---|---|---|',
    ...floors.map(floorLine),
    '',
    '| work | median per op | per unit | rate | budget (docs/architecture.md) | within budget |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const c = row.benchCase;
      const [budget, verdict] = judge(row);
      const perUnit = formatTime(row.medianMs / c.unitsPerOp);
      return `| ${c.name} | ${formatTime(row.medianMs)} | ${perUnit} | ${formatRate(row.ratePerSecond)} ${c.unit}/s | ${budget} | ${verdict} |`;
    }),
    '',
    '| measurement | value | budget (docs/architecture.md) | within budget |',
    '|---|---|---|---|',
    ...facts.map((f) => {
      const budget = f.budgetAtMost === undefined ? '—' : `≤ ${f.budgetAtMost} ${f.unit}`;
      const verdict = f.budgetAtMost === undefined ? '—' : f.value <= f.budgetAtMost ? 'yes' : '**no**';
      return `| ${f.name} | ${f.value.toFixed(2)} ${f.unit} | ${budget} | ${verdict} |`;
    }),
    '',
    'HTTP on loopback (autocannon, 32 connections; servers in a child process, load generator in this one; the routes in turn for nine rounds of 2 s, every other round in the reverse order, medians over rounds, the shares taken per round; each route against a bare fastify route sending a body of the same size, and again behind load control, whose share of the cost is the user CPU time per request it adds to the server, over the server’s whole CPU time per request behind it: rates of back-to-back runs swing with the machine’s other tenants by more than the gate costs, and the kernel’s part, the same work either way, is the noisiest):',
    '',
    "| route | requests/s | p50 latency | share of the bare route | budget (docs/architecture.md) | load control's share of the cost (≤ 10%) | within budget |",
    '|---|---|---|---|---|---|---|',
    ...http.map((h) => {
      const share = h.ofBare === undefined ? '—' : `${(100 * h.ofBare).toFixed(0)}%`;
      const budget = h.budgetOfBare === undefined ? '—' : `≥ ${(100 * h.budgetOfBare).toFixed(0)}% of bare`;
      const [gate, gateOk] = loadControlShareCells(h);
      const bareOk = h.budgetOfBare === undefined || h.ofBare === undefined ? undefined : h.ofBare >= h.budgetOfBare;
      const verdict = bareOk === undefined ? '—' : bareOk && gateOk !== '**no**' ? 'yes' : '**no**';
      return `| ${h.name} | ${formatRate(h.requestsPerSecond)} | ${h.latencyP50Ms} ms | ${share} | ${budget} | ${gate} | ${verdict} |`;
    }),
    '',
    'Start-up of the built package, each a new process (medians of 11 rounds; every round also times `node -e 0`, the floor, and the ratio is taken per round):',
    '',
    '| measurement | median | of the floor | budget (docs/architecture.md) | within budget |',
    '|---|---|---|---|---|',
    ...startup.map(startupLine),
    '',
    ...freshnessTable(freshness, FRESHNESS_RUNS),
    '',
    ...feedTable(feeds),
    '',
  ];
  return lines.join('\n');
}

const check = await checkBenchmarks();
const floors = await measureAgainstFloors([...urlBenchmarks(), ...check.cases]);
await check.cleanup();
const store = await storeBenchmarks();
const guard = await guardBenchmarks();
const ohttp = await ohttpBenchmarks();
const rows = await measure([...riceBenchmarks(), ...store.cases, ...diffBenchmarks(), ...guard.cases, ...ohttp.cases]);
await store.cleanup();
await guard.cleanup();
await ohttp.cleanup();
const http = await httpBenchmarks(SMOKE ? 0.2 : 2);
const startup = await startupBenchmarks(SMOKE ? 1 : 11);
// A smoke run refreshes the URL feed every 3 s rather than every minute, and caches negative answers 1 s
// rather than the default 30 s.
const freshness = await freshnessBenchmarks(FRESHNESS_RUNS, SMOKE ? 0.05 : 1, SMOKE ? 1 : undefined);
const webRisk = await webRiskCallFacts();
// A smoke run serves feeds of a thousand and five thousand URLs rather than one and five million.
const feeds = await feedBenchmarks(SMOKE ? 0.001 : 1);
const text = report(floors, rows, [...store.facts, ...guard.facts, ...webRisk], http, startup, freshness, feeds);
process.stdout.write(text);
// A smoke run's figures mean nothing: they go to the terminal only.
if (!SMOKE) writeFileSync(new URL('./RESULTS.md', import.meta.url), text);
