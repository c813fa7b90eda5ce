// Start-up and memory of the built package, as a user meets them: `sbkit --version`, one `sbkit check`
// against a local server, and `import('sbkit')`. Each is a fresh process, measured in rounds that also
// time `node -e 0`, the floor of any Node program on the machine at that moment; medians over rounds.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = new URL('../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist', 'cli', 'bin.js');
const ROOT_ENTRY = new URL('../dist/index.js', import.meta.url).href;
const PHISHING_TEST_URL = 'http://testsafebrowsing.appspot.com/s/phishing.html';
/**
 * Prints the process's peak resident memory at exit, in KiB, on a line of its own on standard error:
 * Linux's VmHWM, since getrusage's maxrss carries over the parent's peak through fork and exec (a child
 * of this benchmark, which holds 2 M-entry lists, would report the parent's 200 MB).
 */
const REPORT_PEAK_RSS =
  'data:text/javascript,import{readFileSync}from"node:fs";process.on("exit",()=>{' +
  'const hwm=/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status","utf8"));process.stderr.write("\\nmaxrss-kib="+hwm[1]+"\\n")})';
/** Measures, inside a process whose module loader already runs, what importing the package root costs. */
const TIME_IMPORT = `const t=performance.now();await import(${JSON.stringify(ROOT_ENTRY)});process.stdout.write(String(performance.now()-t))`;

export interface StartupRow {
  name: string;
  /** Median over rounds, in the row's unit. */
  value: number;
  unit: 'ms' | 'MB';
  /** Median over rounds of value ÷ `node -e 0` of the same round, for rows in ms. */
  ofFloor: number | undefined;
  /**
   * The budget: a ratio to the floor for times, MB for memory. Budgets given in milliseconds (one check
   * ≤ 350 ms, the import ≤ 60 ms) were set when `node -e 0` took 100 ms on this machine, and are kept as
   * the same share of the floor, since the machine's speed swings 2–3× from hour to hour.
   */
  budget: { atMost: number; of: 'value' | 'ofFloor'; written?: string } | undefined;
}

/** `node -e 0` on this machine when the millisecond budgets were written. */
const FLOOR_OF_THE_BUDGETS_MS = 100;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall time of one process from spawn to exit, and what it printed. */
async function timed(args: string[], okCodes = [0]): Promise<{ ms: number; stdout: string; stderr: string }> {
  const start = performance.now();
  const { code, stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, maxBuffer: 1 << 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
  const ms = performance.now() - start;
  if (!okCodes.includes(code)) throw new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`);
  return { ms, stdout, stderr };
}

/** `sbkit serve` with the demo lists and no load control, in a child process; resolves to its URL. */
async function startServer(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--no-load-control'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+?),? /.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`sbkit serve exited with ${code}: ${stderr}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/**
 * Rounds of: `node -e 0`; `sbkit --version`; `import('sbkit')`; `sbkit check` of Google's phishing test
 * page in no-storage mode, and with a new, empty local database (real-time mode: it downloads the lists
 * first), each timed once and measured for memory once.
 */
export async function startupBenchmarks(rounds = 11): Promise<StartupRow[]> {
  const server = await startServer();
  const scratch = await mkdtemp(join(tmpdir(), 'sbkit-bench-startup-'));
  const samples = {
    floor: [] as number[],
    version: [] as number[],
    importMs: [] as number[],
    check: [] as number[],
    checkData: [] as number[],
    rss: [] as number[],
    rssData: [] as number[],
  };
  const ratios = { version: [] as number[], importMs: [] as number[], check: [] as number[], checkData: [] as number[] };
  try {
    const check = ['check', '--server', server.url, PHISHING_TEST_URL];
    for (let round = 0; round < rounds; round++) {
      const floor = (await timed(['-e', '0'])).ms;
      const version = (await timed([BIN, '--version'])).ms;
      const importMs = Number((await timed(['--input-type=module', '-e', TIME_IMPORT])).stdout);
      const checkMs = (await timed([BIN, ...check], [1])).ms;
      const checkDataMs = (await timed([BIN, ...check, '--data', join(scratch, `timed-${round}`)], [1])).ms;
      const peak = async (args: string[]) =>
        Number(/maxrss-kib=(\d+)/.exec((await timed(['--import', REPORT_PEAK_RSS, BIN, ...args], [1])).stderr)![1]) / 1024;
      samples.rss.push(await peak(check));
      samples.rssData.push(await peak([...check, '--data', join(scratch, `peak-${round}`)]));
      samples.floor.push(floor);
      samples.version.push(version);
      samples.importMs.push(importMs);
      samples.check.push(checkMs);
      samples.checkData.push(checkDataMs);
      ratios.version.push(version / floor);
      ratios.importMs.push(importMs / floor);
      ratios.check.push(checkMs / floor);
      ratios.checkData.push(checkDataMs / floor);
    }
  } finally {
    server.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  const ms = (name: string, key: keyof typeof ratios, budget: StartupRow['budget']): StartupRow => ({
    name,
    value: median(samples[key]),
    unit: 'ms',
    ofFloor: median(ratios[key]),
    budget,
  });
  return [
    { name: '`node -e 0` (the floor)', value: median(samples.floor), unit: 'ms', ofFloor: 1, budget: undefined },
    ms('`sbkit --version`', 'version', { atMost: 3, of: 'ofFloor' }),
    ms("`import('sbkit')` of the built package, in a running module loader", 'importMs', {
      atMost: 60 / FLOOR_OF_THE_BUDGETS_MS,
      of: 'ofFloor',
      written: '60 ms',
    }),
    ms('`sbkit check` of one URL against a local server (no storage)', 'check', {
      atMost: 350 / FLOOR_OF_THE_BUDGETS_MS,
      of: 'ofFloor',
      written: '0.35 s',
    }),
    ms('`sbkit check` of one URL with a new, empty database (`--data`: lists downloaded first)', 'checkData', {
      atMost: 350 / FLOOR_OF_THE_BUDGETS_MS,
      of: 'ofFloor',
      written: '0.35 s',
    }),
    {
      name: 'peak resident memory of `sbkit check` (no storage)',
      value: median(samples.rss),
      unit: 'MB',
      ofFloor: undefined,
      budget: { atMost: 70, of: 'value' },
    },
    {
      name: 'peak resident memory of `sbkit check` with a new, empty database',
      value: median(samples.rssData),
      unit: 'MB',
      ofFloor: undefined,
      budget: { atMost: 70, of: 'value' },
    },
  ];
}
