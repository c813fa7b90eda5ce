// Freshness, end to end on loopback: from an entry appearing in a feed to `sbkit check` (the built CLI,
// real-time mode with a local database, default settings) saying UNSAFE about it. The server is
// `startService` with a configuration of three lists, in this process, without load control (a check
// every half second from one address is no real client's pattern):
//
//   se-4b   a feed file, watched; the URL is appended to it in place
//   mw-4b   inline entries; the URL is added through POST /admin/lists/mw-4b/entries
//   uws-4b  a URL feed on a loopback HTTP server, refreshed every minute; the URL is added to what it serves
//
// Each run starts a clock when the write has completed (the append resolved, the POST was sent, the
// feed server serves the new text), then runs `sbkit check` of the URL again and again, each a new
// process as a user runs it, and stops the clock when one exits with status 1 (UNSAFE): the figure is
// what a user who keeps checking would see, a check's own time included. Medians over runs.
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServerConfig } from '../src/server/feeds/config.ts';
import { startService } from '../src/server/service.ts';

const BIN = new URL('../dist/cli/bin.js', import.meta.url).pathname;
const TOKEN = 'c3a91f5e07b24d68e1f09a7c5b3d2e84';
/** A check that is still SAFE this long after the write is a failure of the run, not a slow figure. */
const GIVE_UP_AFTER_MS = 5 * 60_000;

export interface FreshnessRow {
  name: string;
  /** Each run's time from the completed write to the first UNSAFE. */
  runsMs: number[];
  medianMs: number;
  /** docs/architecture.md's goal for this path. */
  goalMs: number;
  goal: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Exit status of one `sbkit check` of `url` in real-time mode with the database in `data`. */
function check(server: string, data: string, url: string): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'check', '--server', server, '--data', data, url], (error) => {
      resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : -1);
    });
  });
}

/** Checks `url` until a check says UNSAFE; the time from `since` to the end of that check. */
async function untilUnsafe(server: string, data: string, url: string, since: number): Promise<number> {
  for (;;) {
    const status = await check(server, data, url);
    const ms = performance.now() - since;
    if (status === 1) return ms;
    if (status !== 0) throw new Error(`sbkit check ${url} exited with ${status}`);
    if (ms > GIVE_UP_AFTER_MS) throw new Error(`${url} was still SAFE ${Math.round(ms / 1000)} s after it was listed`);
  }
}

/**
 * `runs` runs of each path. `urlRefreshMinutes` is the URL feed's interval (a minute; a smoke run
 * shortens it, below what a configuration file accepts, to keep the run short).
 */
export async function freshnessBenchmarks(runs: number, urlRefreshMinutes = 1): Promise<FreshnessRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-bench-freshness-'));
  let served = 'seed.example/\n';
  const feedServer = createServer((_request, response) => response.end(served));
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  const feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.txt`;
  const file = join(dir, 'feed.txt');
  await writeFile(file, 'seed.example/\n');
  const configFile = join(dir, 'sbkit.json');
  await writeFile(
    configFile,
    JSON.stringify({
      adminToken: TOKEN,
      lists: [
        { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: 'feed.txt', format: 'urls' }] },
        { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: ['seed.example/'] }] },
        { name: 'uws-4b', threatTypes: ['UNWANTED_SOFTWARE'], sources: [{ url: feedUrl, format: 'urls', refreshMinutes: 1 }] },
      ],
    }),
  );
  const config = await readServerConfig(configFile);
  for (const source of config.lists[2]!.sources) if (source.kind === 'url') source.refreshMinutes = urlRefreshMinutes;
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file: configFile, config },
    redis: undefined,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: () => {},
  });
  const times = { file: [] as number[], entries: [] as number[], url: [] as number[] };
  try {
    for (let run = 0; run < runs; run++) {
      const fileUrl = `http://file-${run}.freshness.example/login`;
      await appendFile(file, `${fileUrl}\n`);
      times.file.push(await untilUnsafe(service.url, join(dir, 'data-file'), fileUrl, performance.now()));

      const entryUrl = `http://entry-${run}.freshness.example/login`;
      const posted = performance.now();
      const answer = await fetch(`${service.url}/admin/lists/mw-4b/entries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ add: [entryUrl] }),
      });
      if (answer.status !== 200) throw new Error(`POST /admin/lists/mw-4b/entries: HTTP ${answer.status}: ${await answer.text()}`);
      times.entries.push(await untilUnsafe(service.url, join(dir, 'data-entries'), entryUrl, posted));

      const feedEntry = `http://url-${run}.freshness.example/login`;
      served += `${feedEntry}\n`;
      times.url.push(await untilUnsafe(service.url, join(dir, 'data-url'), feedEntry, performance.now()));
    }
  } finally {
    await service.close();
    await new Promise((resolve) => feedServer.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
  const refreshMs = urlRefreshMinutes * 60_000;
  const row = (name: string, runsMs: number[], goalMs: number, goal: string): FreshnessRow => ({
    name,
    runsMs,
    medianMs: median(runsMs),
    goalMs,
    goal,
  });
  return [
    row('a URL appended to a watched feed file (in place)', times.file, 3000, '≤ 3 s'),
    row('a URL added through POST /admin/lists/NAME/entries', times.entries, 3000, '≤ 3 s'),
    row(
      `a URL added to a URL feed refreshed every ${refreshMs / 1000} s`,
      times.url,
      refreshMs + 3000,
      `≤ refresh + 3 s (${(refreshMs + 3000) / 1000} s)`,
    ),
  ];
}

/** The report's table of freshness rows, with its heading. */
export function freshnessTable(rows: readonly FreshnessRow[], runs: number): string[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return [
    `Freshness on loopback: from a completed write to the first \`sbkit check\` (real-time mode, a new process each time, checks back to back) that says UNSAFE; ${runs} runs each, medians and the slowest run. The URL feed's runs each start just after the previous run's refresh, so they wait nearly a whole interval: close to the worst case.`,
    '',
    '| path | median | slowest | goal (docs/architecture.md) | within goal |',
    '|---|---|---|---|---|',
    ...rows.map((row) => {
      const slowest = Math.max(...row.runsMs);
      return `| ${row.name} | ${seconds(row.medianMs)} | ${seconds(slowest)} | ${row.goal} | ${slowest <= row.goalMs ? 'yes' : '**no**'} |`;
    }),
  ];
}
