// Work measured against its floor: the part of the same work that no implementation can skip (for the URL
// pipeline, the SHA-256s of its expressions). The machine swings 2–3× in speed from hour to hour, so a
// budget is a ratio of the two, taken in the same run: rounds that time the work and its floor in turn,
// the order swapped every round, so that a slow moment of the machine falls on both alike.
import type { BenchCase } from './case.ts';
import { SMOKE } from './smoke.ts';

/** A benchmark and its floor, run on the same data. */
export interface FloorCase {
  subject: BenchCase;
  floor: BenchCase;
  /** The least share of the floor's speed (floor time ÷ subject time) that docs/architecture.md allows. */
  budgetOfFloor?: number;
}

export interface FloorRow extends FloorCase {
  /** Medians over rounds of the time of one operation. */
  subjectMsPerOp: number;
  floorMsPerOp: number;
  /** Median over rounds of floor time ÷ subject time: 1 would be the floor's own speed. */
  ofFloor: number;
}

const ROUNDS = SMOKE ? 3 : 21;
/** Each round times about this long of each side. */
const ROUND_MS = SMOKE ? 1 : 100;
const WARM_UP_MS = SMOKE ? 1 : 1000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Milliseconds per operation over `ops` operations in a row. */
async function msPerOp(fn: BenchCase['fn'], ops: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < ops; i++) {
    const pending = fn();
    if (pending !== undefined) await pending;
  }
  return (performance.now() - start) / ops;
}

/** Operations that take about `ms`, after running `fn` for that long to let the JIT compile it. */
async function warmUp(fn: BenchCase['fn'], ms: number): Promise<number> {
  let ops = 1;
  let took = await msPerOp(fn, ops);
  while (took * ops < ms) {
    ops *= 2;
    took = await msPerOp(fn, ops);
  }
  return Math.max(1, Math.round(ROUND_MS / took));
}

async function measureOne(c: FloorCase): Promise<FloorRow> {
  const subjectOps = await warmUp(c.subject.fn, WARM_UP_MS);
  const floorOps = await warmUp(c.floor.fn, WARM_UP_MS);
  const subject: number[] = [];
  const floor: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let s: number;
    let f: number;
    if (round % 2 === 0) {
      s = await msPerOp(c.subject.fn, subjectOps);
      f = await msPerOp(c.floor.fn, floorOps);
    } else {
      f = await msPerOp(c.floor.fn, floorOps);
      s = await msPerOp(c.subject.fn, subjectOps);
    }
    subject.push(s);
    floor.push(f);
    ratios.push(f / s);
  }
  return { ...c, subjectMsPerOp: median(subject), floorMsPerOp: median(floor), ofFloor: median(ratios) };
}

/** Each case in turn, its rounds interleaved with its floor's. */
export async function measureAgainstFloors(cases: FloorCase[]): Promise<FloorRow[]> {
  const rows: FloorRow[] = [];
  for (const c of cases) rows.push(await measureOne(c));
  return rows;
}
