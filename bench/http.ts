import { type ChildProcess, fork } from 'node:child_process';
import autocannon from 'autocannon';
import { SMOKE } from './smoke.ts';

export interface HttpRow {
  name: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  /** Share of the bare fastify route's rate (a body of the same size); budgets in docs/architecture.md. */
  ofBare: number | undefined;
  budgetOfBare: number | undefined;
  /**
   * Behind load control: the share of a request's cost that is the gate's: the server's user CPU time
   * per request with it less without it, over its whole CPU time per request with it. Not from rates:
   * the machine's other tenants swing the rate of back-to-back measurements by more than the gate
   * costs. And the difference in user time only: the gate runs JavaScript alone, while the kernel's
   * share (writing the answers, the larger part here) is the same work either way and the noisiest.
   */
  loadControlShare?: number;
}

/** docs/architecture.md: the gate's decision is at most this share of a request's cost. */
const LOAD_CONTROL_SHARE_BUDGET = 0.1;

/** Rounds of the routes; the medians of an odd number are measured values, not averages. */
const ROUNDS = SMOKE ? 1 : 9;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A URL asked again and again, or the paths of a server asked in turn. */
type Target = string | { url: string; paths: string[] };

/** One measurement of a route: its rate, its median latency and the server's CPU time per request. */
interface Measured {
  rps: number;
  p50: number;
  userUsPerRequest: number;
  systemUsPerRequest: number;
}

/** The CPU time, user and system, that `child` has used so far, in microseconds. */
async function cpuOf(child: ChildProcess): Promise<NodeJS.CpuUsage> {
  const answer = new Promise<NodeJS.CpuUsage>((resolve) => {
    const listen = (message: unknown) => {
      if (typeof message !== 'object' || message === null || !('cpu' in message)) return;
      child.off('message', listen);
      resolve((message as { cpu: NodeJS.CpuUsage }).cpu);
    };
    child.on('message', listen);
  });
  child.send('cpu');
  return answer;
}

async function load(target: Target, seconds: number, server: ChildProcess): Promise<Measured> {
  // autocannon counts requests per sample and ends a run only at a sample: by default every second, which
  // made each of a smoke run's 0.2 s loads last a whole second.
  const sampleMs = Math.min(1000, seconds * 1000);
  const options = { connections: 32, duration: seconds, pipelining: 1, sampleInt: sampleMs };
  let next = 0;
  const cpuBefore = await cpuOf(server);
  const result = await (typeof target === 'string'
    ? autocannon({ ...options, url: target })
    : autocannon({
        ...options,
        url: target.url,
        requests: [{ setupRequest: (request) => ({ ...request, path: target.paths[next++ % target.paths.length]! }) }],
      }));
  const what = typeof target === 'string' ? target : target.url;
  const cpuAfter = await cpuOf(server);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const requests = Math.max(1, result.requests.total);
  return {
    rps: (result.requests.average * 1000) / sampleMs,
    p50: result.latency.p50,
    userUsPerRequest: (cpuAfter.user - cpuBefore.user) / requests,
    systemUsPerRequest: (cpuAfter.system - cpuBefore.system) / requests,
  };
}

type Route = 'bareSearch' | 'search' | 'guardedSearch' | 'bareVaried' | 'varied' | 'guardedVaried' | 'bareBatch' | 'batch' | 'guardedBatch';

/** The routes one child process serves (bench/http-server.ts), and the sizes of sbkit's answers. */
interface Served {
  search: string;
  batch: string;
  varied: { url: string; paths: string[] };
  searchBytes?: number;
  batchBytes?: number;
  variedBytes?: number;
}

/** bench/http-server.ts in the form this module runs in: compiled by the tests (.js), or from source under tsx. */
const HTTP_SERVER = new URL(import.meta.resolve('./http-server.ts'));

/** Starts bench/http-server.ts in `role`; resolves once it serves. */
async function serve(role: 'sbkit' | 'guarded' | 'bare', args: string[] = []): Promise<{ child: ChildProcess; served: Served }> {
  const execArgv = HTTP_SERVER.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = fork(HTTP_SERVER, [role, ...args], { execArgv, stdio: 'inherit' });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Served));
    child.once('exit', (code) => reject(new Error(`the ${role} benchmark server exited with ${code}`)));
  });
  return { child, served };
}

/**
 * Requests per second on loopback: each server runs in a child process of its own (one core), autocannon
 * here (the other core). hashes:search is Firefox's request for one prefix; batchGet asks for five lists at their
 * current versions, the common case of a periodic update. Each is compared with a bare fastify route
 * that sends a body of the same size, and measured again behind load control (every request decided
 * and admitted), whose share of the request's cost is the difference.
 */
export async function httpBenchmarks(seconds = 3): Promise<HttpRow[]> {
  const children: ChildProcess[] = [];
  try {
    const sbkit = await serve('sbkit');
    children.push(sbkit.child);
    const guarded = await serve('guarded');
    children.push(guarded.child);
    const { searchBytes = 0, batchBytes = 0, variedBytes = 0 } = sbkit.served;
    const bare = await serve('bare', [String(searchBytes), String(batchBytes), String(variedBytes)]);
    children.push(bare.child);
    const routes: Record<Route, Target> = {
      bareSearch: bare.served.search,
      search: sbkit.served.search,
      guardedSearch: guarded.served.search,
      bareVaried: bare.served.varied,
      varied: sbkit.served.varied,
      guardedVaried: guarded.served.varied,
      bareBatch: bare.served.batch,
      batch: sbkit.served.batch,
      guardedBatch: guarded.served.batch,
    };
    const serverOf = (route: Route): ChildProcess =>
      route.startsWith('bare') ? bare.child : route.startsWith('guarded') ? guarded.child : sbkit.child;
    // A warm-up first (the first second runs unoptimised code on both sides), then rounds that take
    // the routes in turn, so that the shared machine's slow moments fall on all of them alike; every
    // other round takes them in the reverse order, so that a machine slowing down or speeding up over
    // a round favours neither the earlier routes nor the later ones. Each route's rate is the median
    // over rounds, and so are the shares taken within each round.
    const order = Object.keys(routes) as Route[];
    for (const route of order) await load(routes[route], SMOKE ? seconds : 2, serverOf(route));
    const rounds: Record<Route, Measured>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured = {} as Record<Route, Measured>;
      for (const route of round % 2 === 0 ? order : [...order].reverse())
        measured[route] = await load(routes[route], seconds, serverOf(route));
      rounds.push(measured);
    }
    const row = (route: Route, name: string, bare?: Route, budgetOfBare?: number, unguarded?: Route): HttpRow => ({
      name,
      requestsPerSecond: median(rounds.map((r) => r[route].rps)),
      latencyP50Ms: median(rounds.map((r) => r[route].p50)),
      ofBare: bare === undefined ? undefined : median(rounds.map((r) => r[route].rps / r[bare].rps)),
      budgetOfBare,
      ...(unguarded === undefined
        ? {}
        : {
            loadControlShare: median(
              rounds.map(
                (r) =>
                  (r[route].userUsPerRequest - r[unguarded].userUsPerRequest) / (r[route].userUsPerRequest + r[route].systemUsPerRequest),
              ),
            ),
          }),
    });
    const guardedName = 'the same behind load control (memory; limits out of reach, so every request is decided and admitted)';
    return [
      row('bareSearch', `bare fastify route (${searchBytes}-byte body)`),
      row('search', 'v5 hashes:search, one listed prefix (Firefox form), the same each time: its answer kept', 'bareSearch', 0.6),
      row('guardedSearch', guardedName, 'bareSearch', 0.6, 'search'),
      row('bareVaried', `bare fastify route (${variedBytes}-byte body)`),
      row('varied', 'v5 hashes:search, one prefix, 10,000 prefixes in turn, nearly none listed: nothing kept helps', 'bareVaried', 0.6),
      row('guardedVaried', guardedName, 'bareVaried', 0.6, 'varied'),
      row('bareBatch', `bare fastify route (${batchBytes}-byte body)`),
      row('batch', 'v5 hashLists:batchGet, five lists at their current versions', 'bareBatch', 0.5),
      row('guardedBatch', guardedName, 'bareBatch', 0.5, 'batch'),
    ];
  } finally {
    for (const child of children) child.disconnect();
  }
}

/** The gate's share as the report gives it, with its verdict. */
export function loadControlShareCells(row: HttpRow): [string, string] {
  if (row.loadControlShare === undefined) return ['—', '—'];
  const share = `${(100 * Math.max(0, row.loadControlShare)).toFixed(1)}%`;
  return [share, row.loadControlShare <= LOAD_CONTROL_SHARE_BUDGET ? 'yes' : '**no**'];
}
