// Million-entry feeds (issue 29): `sbkit serve` of the built package on one feed of N URLs, against the
// client's URL pipeline (canonicalize, all expressions, SHA-256: bench/url.ts) over the same URLs on one
// thread, timed in this run; the server's peak resident memory; and the longest wait for /healthz and a
// hashes:search while the feed, changed, is reloaded.
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCanonicalUrl } from '../src/url/canonicalize.ts';
import { expressionsOf } from '../src/url/expressions.ts';
import { expressionHashString, prefix32 } from '../src/url/hash.ts';

const BIN = join(new URL('../', import.meta.url).pathname, 'dist', 'cli', 'bin.js');
/** Prints the peak resident memory (VmHWM) at exit, in KiB (startup.ts says why not maxrss). */
const REPORT_PEAK_RSS =
  'data:text/javascript,import{readFileSync}from"node:fs";process.on("exit",()=>{' +
  'const hwm=/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status","utf8"));process.stderr.write("\\nmaxrss-kib="+hwm[1]+"\\n")})';
const TOKEN = 'bench-admin-token-0123456789abcdef';
/** Gap between two probes of the server during a reload. */
const PROBE_GAP_MS = 5;

export interface FeedRow {
  urls: number;
  /** The URL pipeline over the feed's URLs on one thread, in this process. */
  pipelineMs: number;
  /** From `sbkit serve` spawned to listening, its one list loaded. */
  readyMs: number;
  peakRssMb: number;
  reloadMs: number;
  /** The longest answer of /healthz and of a hashes:search during the reload. */
  maxHealthzMs: number;
  maxSearchMs: number;
  /** Whether the row's budgets apply (the 1 M row); a larger one is reported only. */
  budgeted: boolean;
}

/** N distinct URLs of varied hosts, paths and queries, the same on every run (xorshift32). */
function feedUrls(count: number, salt = ''): string[] {
  const suffixes = ['com', 'net', 'org', 'de', 'co.uk', 'info', 'io'];
  const urls: string[] = [];
  let x = 0x9e3779b9;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const query = i % 3 === 0 ? `?id=${i}` : '';
    urls.push(
      `http://h${(x % 500_000).toString(36)}${salt}.example${i % 97}.${suffixes[i % 7]}/p/${i.toString(36)}/${(x >>> 8).toString(16)}.html${query}`,
    );
  }
  return urls;
}

/** The client's URL pipeline over `urls`, in milliseconds. */
function pipelineMs(urls: readonly string[]): number {
  let sink = 0;
  const start = performance.now();
  for (const url of urls)
    for (const expression of expressionsOf(parseCanonicalUrl(url))) sink ^= prefix32(expressionHashString(expression));
  const ms = performance.now() - start;
  if (sink === 0.5) throw new Error('unreachable: keeps the work observable');
  return ms;
}

/** The longest of the answers to GETs of `url`, one after another with a short gap, until `done` settles. */
async function longestWait(url: string, done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  let longest = 0;
  while (!finished) {
    const start = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status} during the reload`);
    longest = Math.max(longest, performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, PROBE_GAP_MS));
  }
  return longest;
}

/** One row: a feed of `count` URLs served, then changed and reloaded under probes. */
async function feedRow(count: number, budgeted: boolean): Promise<FeedRow> {
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-bench-feeds-'));
  try {
    const feed = join(dir, 'urls.txt');
    const urls = feedUrls(count);
    writeFileSync(feed, `${urls.join('\n')}\n`);
    const pipeline = pipelineMs(urls);
    urls.length = 0;
    const config = join(dir, 'sbkit.json');
    const lists = [{ name: 'big-1', threatTypes: ['MALWARE'], sources: [{ file: feed, format: 'urls' }] }];
    writeFileSync(config, JSON.stringify({ feedMaxEntries: count + 1000, feedMaxMegabytes: 500, lists }));
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', REPORT_PEAK_RSS, BIN, 'serve', '--config', config, '--port', '0', '--no-load-control'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, SBKIT_ADMIN_TOKEN: TOKEN },
      },
    );
    let stderr = '';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/\S+?),? /.exec(stderr);
        if (match !== null) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`sbkit serve exited with ${code}: ${stderr}`)));
    });
    const readyMs = performance.now() - started;
    // A changed feed: the reload reads, hashes and publishes it again.
    appendFileSync(feed, `${feedUrls(1000, 'x').join('\n')}\n`);
    const reloadStart = performance.now();
    const reload = fetch(`${url}/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } }).then(
      async (response) => {
        const body = await response.text();
        if (!response.ok) throw new Error(`reload answered ${response.status}: ${body}`);
        return performance.now() - reloadStart;
      },
    );
    const [reloadMs, maxHealthzMs, maxSearchMs] = await Promise.all([
      reload,
      longestWait(`${url}/healthz`, reload),
      longestWait(`${url}/v5/hashes:search?hashPrefixes=WwuJdQ`, reload),
    ]);
    child.kill('SIGTERM');
    await exited;
    const peak = /maxrss-kib=(\d+)/.exec(stderr);
    if (peak === null) throw new Error(`sbkit serve reported no peak memory: ${stderr}`);
    return { urls: count, pipelineMs: pipeline, readyMs, peakRssMb: Number(peak[1]) / 1024, reloadMs, maxHealthzMs, maxSearchMs, budgeted };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The 1 M-URL row (budgeted) and the 5 M-URL row (reported), or `scale` of each. */
export async function feedBenchmarks(scale = 1): Promise<FeedRow[]> {
  return [await feedRow(Math.round(1_000_000 * scale), true), await feedRow(Math.round(5_000_000 * scale), false)];
}

/** Budgets of issue 29 (docs/architecture.md). */
const READY_OF_PIPELINE = 1.2;
const PEAK_RSS_MB = 400;
const PROBE_MS = 50;

/** The rows as a Markdown table. */
export function feedTable(rows: readonly FeedRow[]): string[] {
  const yes = (ok: boolean) => (ok ? 'yes' : '**no**');
  return [
    `Feeds of N URLs in one file, served by \`sbkit serve\` of the built package (one run each): ready against the client's URL pipeline over the same URLs on one thread (this run), peak resident memory, and the longest /healthz and hashes:search answer while the feed, changed, is reloaded. Budgets for 1 M URLs: ready ≤ ${READY_OF_PIPELINE}× the pipeline, peak ≤ ${PEAK_RSS_MB} MB, answers ≤ ${PROBE_MS} ms.`,
    '',
    '| URLs | URL pipeline, one thread | serve ready | ready ÷ pipeline | peak RSS | reload | longest /healthz | longest search | within budget |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const ratio = row.readyMs / row.pipelineMs;
      const within =
        ratio <= READY_OF_PIPELINE && row.peakRssMb <= PEAK_RSS_MB && row.maxHealthzMs <= PROBE_MS && row.maxSearchMs <= PROBE_MS;
      return (
        `| ${row.urls.toLocaleString('en')} | ${(row.pipelineMs / 1000).toFixed(2)} s | ${(row.readyMs / 1000).toFixed(2)} s | ${ratio.toFixed(2)}× | ` +
        `${row.peakRssMb.toFixed(0)} MB | ${(row.reloadMs / 1000).toFixed(2)} s | ${row.maxHealthzMs.toFixed(0)} ms | ${row.maxSearchMs.toFixed(0)} ms | ` +
        `${row.budgeted ? yes(within) : '— (reported)'} |`
      );
    }),
  ];
}
