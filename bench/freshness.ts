// Freshness, end to end on loopback: from an entry appearing in a feed to a client saying UNSAFE about
// it. The server is `startService` with a configuration of three lists, in this process, without load
// control (a check every half second from one address is no real client's pattern):
//
//   se-4b   a feed file, watched; the URL is appended to it in place
//   mw-4b   inline entries, and a URL feed on a loopback server that stalls: the URL is added through
//           POST /admin/lists/mw-4b/entries while a reload of the list is downloading that feed
//   uws-4b  a URL feed on a loopback HTTP server, refreshed every minute; the URL is added to what it serves
//
// Each run starts a clock when the write has completed (the append resolved, the POST answered, the feed
// server serves the new text), then runs `sbkit check` of the URL again and again (the built CLI,
// real-time mode with a local database, default settings), each a new process as a user runs it, and
// stops the clock when one exits with status 1 (UNSAFE): the figure is what a user who keeps checking
// would see, a check's own time included. A last path is one long-lived SafeBrowsingClient in real-time
// mode, which checked the URL (SAFE) just before it was added through the admin endpoint and checks it
// every CLIENT_CHECK_EVERY_MS from then on: its own memory cache keeps the negative answer for the
// server's negativeCacheDurationSeconds. Medians over runs.
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SafeBrowsingClient } from '../src/client/safe-browsing-client.ts';
import { readServerConfig } from '../src/server/config/config.ts';
import { startService } from '../src/server/service.ts';

const BIN = new URL('../dist/cli/bin.js', import.meta.url).pathname;
const TOKEN = 'c3a91f5e07b24d68e1f09a7c5b3d2e84';
/** A check that is still SAFE this long after the write is a failure of the run, not a slow figure. */
const GIVE_UP_AFTER_MS = 5 * 60_000;
/** How often the long-lived client checks the URL again: an application that checks links as they come. */
const CLIENT_CHECK_EVERY_MS = 100;

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

/** Checks `url` with `client` every CLIENT_CHECK_EVERY_MS until it says UNSAFE; the time from `since`. */
async function clientUntilUnsafe(client: SafeBrowsingClient, url: string, since: number): Promise<number> {
  for (;;) {
    const { verdict } = await client.checkUrl(url);
    const ms = performance.now() - since;
    if (verdict === 'UNSAFE') return ms;
    if (ms > GIVE_UP_AFTER_MS) throw new Error(`${url} was still ${verdict} for the client ${Math.round(ms / 1000)} s after it was listed`);
    await new Promise((resolve) => setTimeout(resolve, CLIENT_CHECK_EVERY_MS));
  }
}

/**
 * A feed server that answers its first request at once, and while `stalled` holds every later one until
 * `release()`: a feed that hangs in the middle of a reload. `asked()` resolves at the next request.
 */
function stallingFeed(text: string) {
  let requests = 0;
  const held: ServerResponse[] = [];
  let heard: () => void = () => {};
  const feed = {
    stalled: false,
    server: createServer((_request, response) => {
      requests++;
      if (requests === 1 || !feed.stalled) response.end(text);
      else {
        held.push(response);
        heard();
      }
    }),
    asked: () => new Promise<void>((resolve) => (heard = resolve)),
    release: () => {
      feed.stalled = false;
      for (const response of held.splice(0)) response.end(text);
    },
  };
  return feed;
}

const listen = async (server: ReturnType<typeof createServer>, path: string) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
};

/**
 * `runs` runs of each path. `urlRefreshMinutes` is the URL feed's interval (a minute; a smoke run
 * shortens it, below what a configuration file accepts, to keep the run short), and
 * `negativeCacheSeconds`, when given, replaces the configuration's default (a smoke run shortens it too).
 */
export async function freshnessBenchmarks(runs: number, urlRefreshMinutes = 1, negativeCacheSeconds?: number): Promise<FreshnessRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-bench-freshness-'));
  let served = 'seed.example/\n';
  const feedServer = createServer((_request, response) => response.end(served));
  const feedUrl = await listen(feedServer, '/feed.txt');
  const slowFeed = stallingFeed('slow-seed.example/\n');
  const slowFeedUrl = await listen(slowFeed.server, '/slow.txt');
  const file = join(dir, 'feed.txt');
  await writeFile(file, 'seed.example/\n');
  const configFile = join(dir, 'sbkit.json');
  await writeFile(
    configFile,
    JSON.stringify({
      adminToken: TOKEN,
      lists: [
        { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: 'feed.txt', format: 'urls' }] },
        {
          name: 'mw-4b',
          threatTypes: ['MALWARE'],
          sources: [{ entries: ['seed.example/'] }, { url: slowFeedUrl, format: 'urls', refreshMinutes: 60 }],
        },
        { name: 'uws-4b', threatTypes: ['UNWANTED_SOFTWARE'], sources: [{ url: feedUrl, format: 'urls', refreshMinutes: 1 }] },
      ],
    }),
  );
  const config = await readServerConfig(configFile);
  for (const source of config.lists[2]!.sources) if (source.kind === 'url') source.refreshMinutes = urlRefreshMinutes;
  if (negativeCacheSeconds !== undefined) config.negativeCacheDurationSeconds = negativeCacheSeconds;
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
  const times = { file: [] as number[], entries: [] as number[], url: [] as number[], client: [] as number[] };
  const admin = (path: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const addEntry = async (url: string) => {
    const answer = await admin('/admin/lists/mw-4b/entries', { add: [url] });
    if (answer.status !== 200) throw new Error(`POST /admin/lists/mw-4b/entries: HTTP ${answer.status}: ${await answer.text()}`);
  };
  // Default settings, as an application that keeps one client for its life uses it.
  const client = new SafeBrowsingClient({ server: service.url, mode: 'realtime' });
  try {
    await client.update();
    for (let run = 0; run < runs; run++) {
      const fileUrl = `http://file-${run}.freshness.example/login`;
      await appendFile(file, `${fileUrl}\n`);
      times.file.push(await untilUnsafe(service.url, join(dir, 'data-file'), fileUrl, performance.now()));

      // The operator's addition while a reload of the list downloads its URL feed, which stalls.
      slowFeed.stalled = true;
      const downloading = slowFeed.asked();
      const reload = admin('/admin/reload?list=mw-4b');
      await downloading;
      const entryUrl = `http://entry-${run}.freshness.example/login`;
      const posted = performance.now();
      await addEntry(entryUrl);
      times.entries.push(await untilUnsafe(service.url, join(dir, 'data-entries'), entryUrl, posted));
      slowFeed.release();
      await reload;

      const feedEntry = `http://url-${run}.freshness.example/login`;
      served += `${feedEntry}\n`;
      times.url.push(await untilUnsafe(service.url, join(dir, 'data-url'), feedEntry, performance.now()));
    }
    // After the URL feed's runs, which each start just after its last refresh: a run of this path between
    // them would shorten their wait.
    for (let run = 0; run < runs; run++) {
      const clientUrl = `http://client-${run}.freshness.example/login`;
      const before = await client.checkUrl(clientUrl);
      if (before.verdict !== 'SAFE') throw new Error(`${clientUrl} was ${before.verdict} before it was listed`);
      await addEntry(clientUrl);
      times.client.push(await clientUntilUnsafe(client, clientUrl, performance.now()));
    }
  } finally {
    await client.close();
    slowFeed.release();
    await service.close();
    await new Promise((resolve) => feedServer.close(resolve));
    await new Promise((resolve) => slowFeed.server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
  const refreshMs = urlRefreshMinutes * 60_000;
  const negativeMs = config.negativeCacheDurationSeconds * 1000;
  const row = (name: string, runsMs: number[], goalMs: number, goal: string): FreshnessRow => ({
    name,
    runsMs,
    medianMs: median(runsMs),
    goalMs,
    goal,
  });
  return [
    row('a URL appended to a watched feed file (in place)', times.file, 3000, '≤ 3 s'),
    row(
      "a URL added through POST /admin/lists/NAME/entries while the list's URL feed is downloading (stalled)",
      times.entries,
      3000,
      '≤ 3 s',
    ),
    row(
      `a URL added to a URL feed refreshed every ${refreshMs / 1000} s`,
      times.url,
      refreshMs + 3000,
      `≤ refresh + 3 s (${(refreshMs + 3000) / 1000} s)`,
    ),
    row(
      `one long-lived real-time SafeBrowsingClient that checked the URL just before the admin addition (negative cache ${negativeMs / 1000} s)`,
      times.client,
      negativeMs + 3000,
      `≤ negative cache + 3 s (${(negativeMs + 3000) / 1000} s)`,
    ),
  ];
}

/** The report's table of freshness rows, with its heading. */
export function freshnessTable(rows: readonly FreshnessRow[], runs: number): string[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return [
    `Freshness on loopback: from a completed write to the first \`sbkit check\` (real-time mode, a new process each time, checks back to back) that says UNSAFE, or for the last row to the first UNSAFE of one client kept from run to run (its own memory cache included), checking every ${CLIENT_CHECK_EVERY_MS} ms; ${runs} runs each, medians and the slowest run. The URL feed's runs each start just after the previous run's refresh, so they wait nearly a whole interval: close to the worst case; the client checked the URL just before it was added, so it waits nearly the whole negative cache duration: the worst case too.`,
    '',
    '| path | median | slowest | goal (docs/architecture.md) | within goal |',
    '|---|---|---|---|---|',
    ...rows.map((row) => {
      const slowest = Math.max(...row.runsMs);
      return `| ${row.name} | ${seconds(row.medianMs)} | ${seconds(slowest)} | ${row.goal} | ${slowest <= row.goalMs ? 'yes' : '**no**'} |`;
    }),
  ];
}
