import assert from 'node:assert/strict';
import { mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FeedLists, type FeedListsOptions, type ListLoadReport } from '../../../src/server/feeds/feed-lists.ts';
import { REPORTED_BAD_LINES_PER_SOURCE } from '../../../src/server/feeds/list-load-report.ts';
import { MAX_EDITS_PER_LIST } from '../../../src/server/feeds/entry-edits.ts';
import { parseServerConfig, type ServerConfig } from '../../../src/server/config/config.ts';
import { diskEntryEdits } from '../../../src/server/feeds/entry-edits.ts';
import { memorySnapshotStore, type SnapshotStore } from '../../../src/server/lists/snapshot-store.ts';
import { SnapshotStoreError } from '../../../src/server/lists/snapshot-store-error.ts';
import { expressionHashString } from '../../../src/url/hash.ts';
import { RedisEntryEdits } from '../../../src/server/redis/redis-entry-edits.ts';
import { conditionalFeed, FeedServer } from './feed-server.ts';
import { HELD_CHANNEL } from './sources/marked-worker.ts';
import { FeedWorkerPool } from '../../../src/server/feeds/sources/feed-worker-pool.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { until, within } from '../../support/waiting.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from '../redis-fixture.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-feed-lists-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** FeedLists over one file feed of expressions, published through `store`. */
async function start(
  feed: string,
  store: SnapshotStore,
  options: FeedListsOptions = {},
): Promise<{ lists: FeedLists; reports: ListLoadReport[] }> {
  const config = parseServerConfig(
    { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: feed, format: 'expressions' }] }] },
    dir,
  );
  const reports: ListLoadReport[] = [];
  const lists = await FeedLists.start(config, (report) => reports.push(report), store, options);
  return { lists, reports };
}

/**
 * FeedLists of `config` on `clock`, the back-off's jitter none, and a way to move the clock and wait for
 * the loads its timers start (their reports).
 */
async function startTimed(config: ServerConfig, clock: FakeClock, options: FeedListsOptions = {}) {
  const reports: ListLoadReport[] = [];
  let waiting: (() => void) | undefined;
  const lists = await FeedLists.start(
    config,
    (report) => {
      reports.push(report);
      waiting?.();
    },
    memorySnapshotStore,
    { clock, random: () => 0, ...options },
  );
  /** Moves the clock by `ms` and waits for the loads its timers start. */
  const advance = async (ms: number, loads: number) => {
    const target = reports.length + loads;
    const done = new Promise<void>((resolve) => {
      waiting = () => {
        if (reports.length >= target) resolve();
      };
    });
    clock.advance(ms);
    if (loads > 0) await done;
  };
  return { lists, reports, advance };
}

const holds = (lists: FeedLists, expression: string) => lists.catalog.get('se-4b')!.current().hasFullHash(expressionHashString(expression));

describe('FeedLists reloads', () => {
  it('run one at a time per list, so an older read is never published after a newer one', async () => {
    const feed = join(dir, 'serial.txt');
    await writeFile(feed, 'first.example/\n');
    let release: () => void = () => {};
    let stalled: () => void = () => {};
    const publishing = new Promise<void>((resolve) => (stalled = resolve));
    let hold = false;
    const slowStore: SnapshotStore = {
      ...memorySnapshotStore,
      publish: async (history, fullHashes) => {
        // The first reload after start stalls in publishing, as a slow shared store would.
        if (hold) {
          hold = false;
          const released = new Promise<void>((resolve) => (release = resolve));
          stalled();
          await released;
        }
        return history.publish(fullHashes);
      },
    };
    const { lists } = await start(feed, slowStore);
    hold = true;
    await writeFile(feed, 'second.example/\n');
    const older = lists.reload();
    await publishing;
    await writeFile(feed, 'third.example/\n');
    const newer = lists.reload();
    // Give the newer reload time to read the feed and publish, were it not waiting for the older one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([older, newer]);
    assert.ok(holds(lists, 'third.example/'), 'the newest feed content is served');
    assert.ok(!holds(lists, 'second.example/'));
    await lists.close();
  });

  it('report a store that fails in an unexpected way, and keep serving the list as it was', async () => {
    const feed = join(dir, 'failing.txt');
    await writeFile(feed, 'kept.example/\n');
    let fail = false;
    const flakyStore: SnapshotStore = {
      ...memorySnapshotStore,
      publish: async (history, fullHashes) => {
        if (fail) throw new TypeError('store exploded');
        return history.publish(fullHashes);
      },
    };
    const { lists, reports } = await start(feed, flakyStore);
    fail = true;
    await writeFile(feed, 'replacement.example/\n');
    const [report] = await lists.reload();
    assert.equal(report!.published, false);
    assert.match(report!.errors.join('\n'), /reload failed unexpectedly: store exploded/);
    assert.deepEqual(reports.at(-1), report);
    assert.ok(holds(lists, 'kept.example/'));
    assert.ok(!holds(lists, 'replacement.example/'));
    await lists.close();
  });
});

describe('FeedLists and a store that is away (Redis down)', () => {
  /** A store that refuses publications, as the shared one does while Redis is away, until `back`. */
  function awayStore(): { store: SnapshotStore; away: (yes: boolean) => void; refusals: () => number } {
    let away = false;
    let refusals = 0;
    return {
      store: {
        ...memorySnapshotStore,
        publish: async (history, fullHashes) => {
          if (away) {
            refusals++;
            throw new SnapshotStoreError('unavailable', 'Redis at redis://127.0.0.1:1: The client is offline');
          }
          return history.publish(fullHashes);
        },
      },
      away: (yes) => (away = yes),
      refusals: () => refusals,
    };
  }

  /** The watch stays off: these tests move the clock, and a load a write starts would only blur them. */
  const onTheClock = (clock: FakeClock): FeedListsOptions => ({ clock, watch: false });

  it('publishes content read while it was away once it is back, without another reload', async () => {
    const feed = join(dir, 'outage.txt');
    await writeFile(feed, 'before.example/\n');
    const clock = new FakeClock();
    const { store, away, refusals } = awayStore();
    const { lists, reports } = await start(feed, store, onTheClock(clock));
    away(true);
    await writeFile(feed, 'during.example/\n');
    const [report] = await lists.reload();
    assert.equal(report!.published, false);
    assert.match(report!.errors.join('\n'), /The client is offline/);
    assert.ok(holds(lists, 'before.example/'), 'the previous version serves meanwhile');
    clock.advance(1000);
    await until(10_000, 'tried again a second later while away', () => refusals() >= 2 && clock.nextTimerAt() !== undefined);
    assert.equal(clock.nextTimerAt(), clock.now() + 2000, 'the next try waits twice as long');
    away(false);
    clock.advance(2000);
    await until(10_000, 'the content read during the outage published', () => holds(lists, 'during.example/'));
    assert.ok(!holds(lists, 'before.example/'));
    const told = reports.at(-1)!;
    assert.equal(told.published, true);
    assert.deepEqual(told.errors, [], 'the report of the publication names no error');
    await lists.close();
  });

  it('drops the waiting content when newer content is read, and publishes the newer', async () => {
    const feed = join(dir, 'superseded.txt');
    await writeFile(feed, 'first.example/\n');
    const clock = new FakeClock();
    const { store, away } = awayStore();
    const { lists } = await start(feed, store, onTheClock(clock));
    away(true);
    await writeFile(feed, 'second.example/\n');
    await lists.reload();
    await writeFile(feed, 'third.example/\n');
    await lists.reload();
    away(false);
    clock.advance(1000);
    await until(10_000, 'the newest content published', () => holds(lists, 'third.example/'));
    // Were the older content still waiting, it would be published over the newer one within its wait.
    assert.equal(clock.nextTimerAt(), undefined, 'no publication waits');
    await clock.advanceAsync(60_000);
    assert.ok(holds(lists, 'third.example/'));
    assert.ok(!holds(lists, 'second.example/'));
    await lists.close();
  });

  it('stops trying once closed', async () => {
    const feed = join(dir, 'closed.txt');
    await writeFile(feed, 'open.example/\n');
    const clock = new FakeClock();
    const { store, away, refusals } = awayStore();
    const { lists } = await start(feed, store, onTheClock(clock));
    away(true);
    await writeFile(feed, 'late.example/\n');
    await lists.reload();
    assert.notEqual(clock.nextTimerAt(), undefined, 'a publication waits to be tried again');
    await lists.close();
    assert.equal(clock.nextTimerAt(), undefined, 'and no longer once closed');
    const after = refusals();
    await clock.advanceAsync(60_000);
    assert.equal(refusals(), after);
  });
});

describe('FeedLists.reconfigure', () => {
  it("takes a configuration's new sources and loads the lists from them at once", async () => {
    const feed = join(dir, 'before.txt');
    const other = join(dir, 'after.txt');
    await writeFile(feed, 'before.example/\n');
    await writeFile(other, 'after.example/\n');
    const { lists } = await start(feed, memorySnapshotStore);
    const versionBefore = lists.catalog.get('se-4b')!.current().id;
    const config = parseServerConfig(
      { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: other, format: 'expressions' }] }] },
      dir,
    );
    const [report] = await lists.reconfigure(config);
    assert.equal(report!.published, true);
    assert.ok(holds(lists, 'after.example/'));
    assert.ok(!holds(lists, 'before.example/'));
    assert.notEqual(lists.catalog.get('se-4b')!.current().id, versionBefore, 'a new version');
    await lists.close();
  });

  it('does nothing once closed, also when the server stops while the new watches start', async () => {
    const feed = join(dir, 'closing.txt');
    const other = join(dir, 'closing-after.txt');
    await writeFile(feed, 'before.example/\n');
    await writeFile(other, 'after.example/\n');
    // The watches poll on this clock: a watch left running would leave its timer.
    const clock = new FakeClock();
    const { lists, reports } = await start(feed, memorySnapshotStore, { clock });
    assert.notEqual(clock.nextTimerAt(), undefined, 'the watch polls');
    const config = parseServerConfig(
      { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: other, format: 'expressions' }] }] },
      dir,
    );
    const before = reports.length;
    // Closed while reconfigure awaits its file watches.
    const during = lists.reconfigure(config);
    await lists.close();
    assert.deepEqual(await during, []);
    assert.deepEqual(await lists.reconfigure(config), [], 'and after');
    assert.equal(reports.length, before, 'nothing was loaded');
    assert.ok(holds(lists, 'before.example/') && !holds(lists, 'after.example/'));
    assert.equal(clock.nextTimerAt(), undefined, 'no watch was left running');
  });

  it('refuses a configuration of other lists: those take a restart', async () => {
    const feed = join(dir, 'same.txt');
    await writeFile(feed, 'same.example/\n');
    const { lists } = await start(feed, memorySnapshotStore);
    const config = parseServerConfig({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [] }] }, dir);
    await assert.rejects(lists.reconfigure(config), RangeError);
    assert.ok(holds(lists, 'same.example/'));
    await lists.close();
  });
});

describe('FeedLists reports', () => {
  it('name the first bad lines of each source with line number and reason, in the report and the reload answer', async () => {
    const first = join(dir, 'first-bad.txt');
    const second = join(dir, 'second-bad.txt');
    await writeFile(
      first,
      [
        'good.example/',
        ...Array.from({ length: 14 }, (_, i) => `http://scheme${i}.example/`),
        'also-good.example/',
        'fine.example/',
        'ok.example/',
      ].join('\n'),
    );
    await writeFile(second, 'kept.example/\nbad*.example/\n');
    const config = parseServerConfig(
      {
        lists: [
          {
            name: 'se-4b',
            threatTypes: ['SOCIAL_ENGINEERING'],
            sources: [
              { file: first, format: 'expressions' },
              { file: second, format: 'expressions' },
            ],
          },
        ],
      },
      dir,
    );
    const reports: ListLoadReport[] = [];
    const lists = await FeedLists.start(config, (report) => reports.push(report), memorySnapshotStore);
    const [reloaded] = await lists.reload();
    for (const report of [reports[0]!, reloaded!]) {
      assert.equal(report.badLines, 15);
      assert.deepEqual(
        report.firstBadLines.map(({ source, line }) => [source, line]),
        [...Array.from({ length: REPORTED_BAD_LINES_PER_SOURCE }, (_, i) => [first, i + 2]), [second, 2]],
      );
      assert.match(report.firstBadLines[0]!.reason, /an expression is host\/path without a scheme/);
      assert.match(report.firstBadLines.at(-1)!.reason, /"bad\*.example" is no host name/);
    }
    // What /admin/reload sends: the reports as JSON.
    assert.deepEqual((JSON.parse(JSON.stringify(reloaded)) as typeof reloaded)!.firstBadLines[10], {
      source: second,
      line: 2,
      reason: reloaded!.firstBadLines[10]!.reason,
    });
    await lists.close();
  });

  it('keep the list as it was when a source turns into text of another kind, and say so', async () => {
    const feed = join(dir, 'turns-to-html.txt');
    await writeFile(feed, 'kept.example/\n');
    const { lists } = await start(feed, memorySnapshotStore);
    await writeFile(feed, '<html>\n<body>Service unavailable</body>\n</html>\n');
    const [report] = await lists.reload();
    assert.equal(report!.published, false);
    assert.match(report!.errors.join('\n'), /turns-to-html\.txt: does not look like an expressions feed: 3 of its 3 lines are bad/);
    assert.ok(holds(lists, 'kept.example/'));
    await lists.close();
  });
});

describe('FeedLists with URL feeds', () => {
  let feeds: FeedServer;
  before(async () => {
    feeds = await FeedServer.start();
  });
  after(async () => {
    await feeds.close();
  });

  /** Two lists of one URL feed each, refreshed every 5 minutes, on a fake clock; reports awaited one by one. */
  async function startTwo(clock: FakeClock) {
    const source = (path: string) => ({ url: feeds.url(path), format: 'urls', refreshMinutes: 5, timeoutSeconds: 2 });
    const config = parseServerConfig(
      {
        lists: [
          { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [source('/steady')] },
          { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [source('/broken'), { entries: ['inline.example/'], name: 'by-hand' }] },
        ],
      },
      dir,
    );
    return startTimed(config, clock);
  }

  it('retry a failing feed on its own back-off, ask the others only at their interval, and keep serving copies', async () => {
    feeds.route('/steady', conditionalFeed({ text: 'http://steady.example/\n', version: 1 }));
    let broken = false;
    feeds.route('/broken', (_request, response) => {
      if (broken) response.writeHead(500).end();
      else response.writeHead(200).end('http://broken-copy.example/\n');
    });
    const clock = new FakeClock();
    const { lists, reports, advance } = await startTwo(clock);
    const mw = () => lists.catalog.get('mw-4b')!.current();
    const versionBefore = mw().id;
    broken = true;
    await lists.reload();
    assert.equal(reports.at(-1)!.published, false, 'the failing source counts with its copy: nothing changed');
    assert.match(reports.at(-1)!.errors[0]!, /HTTP 500.*; its copy from 2026-11-25T10:00:00\.000Z still counts/);
    assert.equal(mw().id, versionBefore);
    assert.ok(mw().hasFullHash(expressionHashString('broken-copy.example/')));
    assert.ok(mw().hasFullHash(expressionHashString('inline.example/')));

    const steadyBefore = feeds.count('/steady');
    const brokenBefore = feeds.count('/broken');
    await advance(30_000, 1);
    await advance(60_000, 1);
    await advance(120_000, 1);
    assert.equal(feeds.count('/broken'), brokenBefore + 3, 'tried again after 30 s, 60 s, 120 s');
    assert.equal(feeds.count('/steady'), steadyBefore, 'the other list was not asked meanwhile');
    await advance(5 * 60_000 - 210_000, 1);
    assert.equal(feeds.count('/steady'), steadyBefore + 1, 'asked at its refresh interval');
    assert.equal(feeds.last('/steady')!.ifNoneMatch, '"v1"');
    assert.equal(reports.at(-1)!.list, 'se-4b');
    assert.equal(reports.at(-1)!.published, false, 'a 304: nothing to publish');

    const [steady, failing, inline] = lists.sourceStatus();
    assert.equal(steady!.summary, 'fresh, 1 entry, checked 0 s ago, unchanged since 2026-11-25 10:00:00 UTC');
    assert.equal(steady!.name, new URL(feeds.base).host);
    assert.equal(failing!.state, 'failing');
    assert.equal(
      failing!.summary,
      'failing since 2026-11-25 10:00:00 UTC (4 tries): HTTP 500; serving the copy from 2026-11-25 10:00:00 UTC, 1 entry; next try in 2 min',
    );
    assert.deepEqual([inline!.name, inline!.summary], ['by-hand', 'inline, 1 entry']);

    const metrics = await lists.metrics.metrics();
    const labels = `list="se-4b",source="0",name="${new URL(feeds.base).host}"`;
    // Start, the operator's reload, the refresh: one 200, then two 304s.
    assert.match(metrics, new RegExp(`sbkit_feed_source_requests_total\\{${labels}\\} 3\\n`));
    assert.match(metrics, new RegExp(`sbkit_feed_source_not_modified_total\\{${labels}\\} 2\\n`));
    assert.match(metrics, new RegExp(`sbkit_feed_source_up\\{${labels}\\} 1\\n`));
    assert.match(metrics, new RegExp(`sbkit_feed_source_entries\\{${labels}\\} 1\\n`));
    // The 304 of the refresh, 5 minutes after the start, is the last success; the copy is the 200's text.
    const refreshedAt = Date.UTC(2026, 10, 25, 10, 5, 0) / 1000;
    assert.match(metrics, new RegExp(`sbkit_feed_source_last_success_timestamp_seconds\\{${labels}\\} ${refreshedAt}\\n`));
    const text = Buffer.byteLength('http://steady.example/\n');
    assert.match(metrics, new RegExp(`sbkit_feed_source_bytes\\{${labels}\\} ${text}\\n`));
    assert.match(metrics, new RegExp(`sbkit_feed_source_received_bytes_total\\{${labels}\\} ${text}\\n`), 'one body; 304s have none');
    assert.match(metrics, /sbkit_feed_source_received_bytes_total\{list="mw-4b",source="0",[^}]*\} 28\n/, 'failed answers count too');
    assert.doesNotMatch(metrics, /sbkit_feed_source_received_bytes_total\{list="mw-4b",source="1"/, 'inline entries download nothing');
    assert.match(metrics, /sbkit_feed_source_up\{list="mw-4b",source="0",[^}]*\} 0\n/);
    assert.match(metrics, /sbkit_feed_source_failures_total\{list="mw-4b",source="0",[^}]*,kind="http-status"\} 4\n/);
    assert.match(metrics, /sbkit_feed_source_last_error_timestamp_seconds\{list="mw-4b",source="0",[^}]*,kind="http-status"\} 1\d{9}\n/);
    await lists.close();
    assert.equal(clock.nextTimerAt(), undefined, 'close() leaves no timer');
  });
});

describe('FeedLists when a feed worker fails', () => {
  let feeds: FeedServer;
  const pools: FeedWorkerPool[] = [];
  before(async () => {
    feeds = await FeedServer.start();
  });
  after(async () => {
    await feeds.close();
    // Stopped here too, should a test end before its lists stop them: a hung worker would hold the process.
    for (const pool of pools) await pool.close();
  });

  /** A pool of one worker that ends or hangs at a feed's marked line (marked-worker.ts), and works otherwise. */
  function markedWorkers(): FeedWorkerPool {
    const pool = new FeedWorkerPool({ size: 1, entry: new URL(`./sources/marked-worker${extname(import.meta.url)}`, import.meta.url) });
    pools.push(pool);
    return pool;
  }

  /** One list of two URL feeds, the first's text `first()`, refreshed hourly, on marked workers. */
  function startMarked(clock: FakeClock, first: () => string) {
    feeds.route('/first', (_request, response) => response.writeHead(200).end(first()));
    feeds.route('/second', (_request, response) => response.writeHead(200).end('http://second.example/\n'));
    const source = (path: string) => ({ url: feeds.url(path), format: 'urls', refreshMinutes: 60, allowPrivateAddresses: true });
    const config = parseServerConfig(
      { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [source('/first'), source('/second')] }] },
      dir,
    );
    return startTimed(config, clock, { workers: markedWorkers(), watch: false });
  }

  it("record it as the source's failure, read the list's other sources, keep the copy and back off", async () => {
    let first = 'http://first.example/\n';
    const clock = new FakeClock();
    const asked = { first: feeds.count('/first'), second: feeds.count('/second') };
    const { lists, reports, advance } = await startMarked(clock, () => first);
    try {
      first = 'end the worker\n';
      await advance(60 * 60_000, 1);
      const failedAt = clock.now();
      assert.match(reports.at(-1)!.errors.join('\n'), /\/first: a feed worker ended with exit code 3; .*its copy from .* still counts/);
      assert.equal(feeds.count('/second'), asked.second + 2, 'the source after it was read in the same load');
      assert.ok(holds(lists, 'first.example/'), 'the last good copy still counts');
      const [failing] = lists.sourceStatus();
      assert.equal(failing!.failure?.kind, 'worker');
      assert.match(failing!.summary, /the feed worker reading it failed \(the log says more\); serving the copy .*; next try in 30 s/);
      assert.match(await lists.metrics.metrics(), /sbkit_feed_source_failures_total\{list="se-4b",source="0",[^}]*,kind="worker"\} 1\n/);
      // Tried again on its back-off, not every second: the next load is 30 s away.
      assert.equal(clock.nextTimerAt(), failedAt + 30_000);
      first = 'http://first-again.example/\n';
      await advance(30_000, 1);
      assert.equal(feeds.count('/first'), asked.first + 3);
      assert.equal(reports.at(-1)!.published, true);
      assert.ok(holds(lists, 'first-again.example/'));
      assert.equal(lists.sourceStatus()[0]!.state, 'fresh');
    } finally {
      await lists.close();
    }
  });

  it('try the list again on the back-off when the worker fails at its first load', async () => {
    let first = 'end the worker\n';
    const clock = new FakeClock();
    const asked = feeds.count('/first');
    const { lists, reports, advance } = await startMarked(clock, () => first);
    try {
      assert.match(reports[0]!.errors[0]!, /\/first: a feed worker ended with exit code 3/);
      assert.ok(holds(lists, 'second.example/'), 'the other source is read and served');
      assert.equal(clock.nextTimerAt(), clock.now() + 30_000, 'a load is timed, though no source has a copy');
      first = 'http://first.example/\n';
      await advance(30_000, 1);
      assert.equal(feeds.count('/first'), asked + 2);
      assert.ok(holds(lists, 'first.example/'));
    } finally {
      await lists.close();
    }
  });

  it('stop a worker that hangs on a feed as they close, ending the load it held', async () => {
    let first = 'http://first.example/\n';
    const { lists } = await startMarked(new FakeClock(), () => first);
    const held = new BroadcastChannel(HELD_CHANNEL);
    try {
      const holding = new Promise((resolve) => (held.onmessage = resolve));
      first = 'hold the worker\n';
      const reload = lists.reload();
      await within(10_000, 'the worker holding the feed', holding);
      // The worker would hold the task, and the process, for the 10 minutes of the pool's task timeout.
      await within(5000, 'the lists closing', lists.close());
      const [report] = await within(5000, 'the load the hung worker held ending', reload);
      assert.equal(report!.notServed, 'the server is stopping');
    } finally {
      held.close();
      await lists.close();
    }
  });
});

describe('FeedLists watches file sources', () => {
  it('publishes a file replaced by a rename within 2 s, with no reload asked for', async () => {
    const feed = join(dir, 'watched.txt');
    await writeFile(feed, 'old.example/\n');
    const { lists } = await start(feed, memorySnapshotStore);
    await writeFile(`${feed}.new`, 'old.example/\nfresh.example/\n');
    await rename(`${feed}.new`, feed);
    // The file system's events take real time.
    await until(2000, 'the renamed file published', () => holds(lists, 'fresh.example/'));
    await lists.close();
  });

  it('publishes a file appended in place once it stands still, never half a line', async () => {
    const feed = join(dir, 'appended.txt');
    await writeFile(feed, 'old.example/\n');
    const reports: ListLoadReport[] = [];
    const config = parseServerConfig(
      { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: feed, format: 'expressions' }] }] },
      dir,
    );
    const lists = await FeedLists.start(config, (report) => reports.push(report), memorySnapshotStore, { watch: { settleMs: 300 } });
    const handle = await open(feed, 'a');
    await handle.write('appen');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await handle.write('ded.example/\n');
    await handle.close();
    await until(3000, 'the appended line published', () => holds(lists, 'appended.example/'));
    assert.ok(!holds(lists, 'appen/'), 'the half-written line was never published');
    assert.equal(reports.filter((report) => report.badLines > 0).length, 0, 'no load saw half a line');
    await lists.close();
  });

  it('stops watching on close', async () => {
    const feed = join(dir, 'closed-watch.txt');
    await writeFile(feed, 'old.example/\n');
    // The watch polls on this clock: once it is closed, no timer is left to read the file again.
    const clock = new FakeClock();
    const { lists } = await start(feed, memorySnapshotStore, { clock });
    assert.notEqual(clock.nextTimerAt(), undefined, 'the watch polls');
    await lists.close();
    assert.equal(clock.nextTimerAt(), undefined);
  });
});

describe('FeedLists edits of entries', () => {
  const withEntries = (entries: string[]) =>
    parseServerConfig(
      {
        lists: [
          { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries }] },
          { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: join(dir, 'mw.txt'), format: 'expressions' }] },
        ],
      },
      dir,
    );

  it('lie over the configured entries: additions published at once, removals taken out', async () => {
    await writeFile(join(dir, 'mw.txt'), 'mw.example/\n');
    const lists = await FeedLists.start(withEntries(['kept.example/', 'dropped.example/']), () => {}, memorySnapshotStore, {
      watch: false,
    });
    const edited = await lists.editEntries('se-4b', ['incident.example/login'], ['dropped.example/']);
    assert.ok(typeof edited === 'object');
    assert.deepEqual(edited.edits, { added: ['incident.example/login'], removed: ['dropped.example/'] });
    assert.equal(edited.report.published, true);
    assert.ok(holds(lists, 'incident.example/login'));
    assert.ok(holds(lists, 'kept.example/'));
    assert.ok(!holds(lists, 'dropped.example/'));
    // Adding back what was removed takes it out of the removals.
    const again = await lists.editEntries('se-4b', ['dropped.example/'], []);
    assert.ok(typeof again === 'object');
    assert.deepEqual(again.edits, { added: ['dropped.example/', 'incident.example/login'], removed: [] });
    assert.ok(holds(lists, 'dropped.example/'));
    await lists.close();
  });

  it('say whether the version served holds them: concurrent edits and an edit that changes nothing are served', async () => {
    await writeFile(join(dir, 'mw.txt'), 'mw.example/\n');
    const lists = await FeedLists.start(withEntries(['kept.example/']), () => {}, memorySnapshotStore, { watch: false });
    const [a, b] = await Promise.all([lists.editEntries('se-4b', ['a.example/'], []), lists.editEntries('se-4b', ['b.example/'], [])]);
    assert.ok(typeof a === 'object' && typeof b === 'object');
    // Both edits were kept before either reload read them: the second reload finds the content published.
    assert.deepEqual([a.report.published, b.report.published], [true, false]);
    assert.deepEqual([a.report.served, b.report.served], [true, true]);
    assert.ok(holds(lists, 'a.example/') && holds(lists, 'b.example/'));
    const again = await lists.editEntries('se-4b', ['a.example/'], []);
    assert.ok(typeof again === 'object');
    assert.equal(again.report.published, false, 'nothing new to publish');
    assert.equal(again.report.served, true);
    assert.equal(again.report.notServed, undefined);
    await lists.close();
  });

  it('survive a reconfiguration and a restart with the same store', async () => {
    const edits = await diskEntryEdits(join(dir, 'edits-data'));
    const first = await FeedLists.start(withEntries(['kept.example/']), () => {}, memorySnapshotStore, { watch: false, edits });
    await first.editEntries('se-4b', ['incident.example/'], ['kept.example/']);
    await first.reconfigure(withEntries(['kept.example/', 'new.example/']));
    assert.ok(holds(first, 'incident.example/') && holds(first, 'new.example/') && !holds(first, 'kept.example/'));
    await first.close();
    const second = await FeedLists.start(withEntries(['kept.example/']), () => {}, memorySnapshotStore, {
      watch: false,
      edits: await diskEntryEdits(join(dir, 'edits-data')),
    });
    assert.ok(holds(second, 'incident.example/'), 'the addition outlived the restart');
    assert.ok(!holds(second, 'kept.example/'), 'so did the removal');
    await second.close();
  });

  it('are published from the copies held: no feed asked, no file read again, not even when they are due', async () => {
    const feeds = await FeedServer.start();
    let feedText = 'http://from-feed.example/\n';
    feeds.route('/due', (_request, response) => response.writeHead(200).end(feedText));
    const file = join(dir, 'held.txt');
    await writeFile(file, 'from-file.example/\n');
    // A clock that runs no timer: the feed falls due without a timer's load reading it.
    let time = Date.UTC(2026, 10, 25, 10, 0, 0);
    const clock = { now: () => time, setTimeout: () => 0, clearTimeout: () => {} };
    const config = parseServerConfig(
      {
        lists: [
          {
            name: 'se-4b',
            threatTypes: ['SOCIAL_ENGINEERING'],
            sources: [
              { url: feeds.url('/due'), format: 'urls', refreshMinutes: 1, allowPrivateAddresses: true },
              { file, format: 'expressions' },
              { entries: ['configured.example/'] },
            ],
          },
        ],
      },
      dir,
    );
    const lists = await FeedLists.start(config, () => {}, memorySnapshotStore, { watch: false, clock });
    try {
      const asked = feeds.count('/due');
      time += 5 * 60_000;
      feedText += 'http://new-in-feed.example/\n';
      await writeFile(file, 'from-file.example/\nnew-in-file.example/\n');
      const edited = await lists.editEntries('se-4b', ['incident.example/'], ['configured.example/']);
      assert.ok(typeof edited === 'object');
      assert.equal(edited.report.served, true);
      assert.ok(holds(lists, 'incident.example/') && !holds(lists, 'configured.example/'));
      assert.ok(holds(lists, 'from-feed.example/') && holds(lists, 'from-file.example/'), 'the copies held still count');
      assert.equal(feeds.count('/due'), asked, 'the feed, due, was not asked');
      assert.ok(!holds(lists, 'new-in-feed.example/') && !holds(lists, 'new-in-file.example/'), 'nor the file read again');
      // The status counts the edits: one configured entry removed, one added.
      const inline = lists.sourceStatus()[2]!;
      assert.equal(inline.entries, 1);
      assert.equal(inline.summary, 'inline, 1 entry with the edits made through /admin/lists (1 configured)');
      const metrics = await lists.metrics.metrics();
      assert.match(metrics, /sbkit_feed_source_entries\{list="se-4b",source="2",name="inline entries"\} 1\n/);
      await lists.editEntries('se-4b', ['second.example/', 'from-feed.example/'], []);
      assert.equal(lists.sourceStatus()[2]!.entries, 3, 'an addition a feed also carries counts for the inline source');
      await lists.reloadOne('se-4b');
      assert.ok(holds(lists, 'new-in-feed.example/') && holds(lists, 'new-in-file.example/') && holds(lists, 'incident.example/'));
    } finally {
      await lists.close();
      await feeds.close();
    }
  });

  it('name an unknown list and a list without entries', async () => {
    const lists = await FeedLists.start(withEntries([]), () => {}, memorySnapshotStore, { watch: false });
    assert.equal(await lists.editEntries('nope-4b', ['a.example/'], []), 'unknown');
    assert.equal(await lists.editEntries('mw-4b', ['a.example/'], []), 'no-entries');
    const many = Array.from({ length: MAX_EDITS_PER_LIST }, (_, i) => `e${i}.example/`);
    assert.equal(typeof (await lists.editEntries('se-4b', many, [])), 'object', 'up to the limit');
    assert.equal(await lists.editEntries('se-4b', [], ['one-more.example/']), 'too-many');
    assert.equal(typeof (await lists.editEntries('se-4b', ['e1.example/'], [])), 'object', 'an edit that adds nothing new is fine');
    assert.equal(lists.reloadOne('nope-4b'), undefined);
    assert.equal((await lists.reloadOne('mw-4b'))?.list, 'mw-4b');
    await lists.close();
  });
});

describe('FeedLists edits shared with other instances (Redis)', () => {
  const keyPrefix = uniqueKeyPrefix();
  let feeds: FeedServer;
  before(async () => {
    await ensureRedis();
    feeds = await FeedServer.start();
  });
  after(async () => {
    await feeds.close();
    await deleteKeys(keyPrefix);
  });

  const config = (path: string) =>
    parseServerConfig(
      {
        lists: [
          {
            name: 'se-4b',
            threatTypes: ['SOCIAL_ENGINEERING'],
            sources: [{ url: feeds.url(path), format: 'urls', allowPrivateAddresses: true }, { entries: [] }],
          },
        ],
      },
      dir,
    );

  it('are read once the sources are: an edit made during a slow download is in what the load publishes', async () => {
    let hold: (() => void) | undefined;
    let requested: () => void = () => {};
    feeds.route('/slow', (_request, response) => {
      const answer = () => response.writeHead(200).end('http://from-feed.example/\n');
      if (hold === undefined) answer();
      else {
        hold = answer;
        requested();
      }
    });
    const here = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: `${keyPrefix}slow:` });
    const other = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: `${keyPrefix}slow:` });
    const lists = await FeedLists.start(config('/slow'), () => {}, memorySnapshotStore, { watch: false, edits: here });
    try {
      hold = () => {};
      const downloading = new Promise<void>((resolve) => (requested = resolve));
      const reload = lists.reloadOne('se-4b')!;
      await downloading;
      // Another instance's edit, while this one downloads the feed.
      await other.update('se-4b', ['meanwhile.example/'], []);
      hold();
      const report = await reload;
      assert.equal(report.served, true);
      assert.ok(holds(lists, 'meanwhile.example/'), 'the edit made during the download is published');
      assert.ok(holds(lists, 'from-feed.example/'));
    } finally {
      await lists.close();
      await here.close();
      await other.close();
    }
  });

  it('are read again after a publication, and an edit made while publishing is published by one more load', async () => {
    let feedText = 'http://from-feed.example/\n';
    feeds.route('/quick', (_request, response) => response.writeHead(200).end(feedText));
    let stall: (() => Promise<void>) | undefined;
    const slowStore: SnapshotStore = {
      ...memorySnapshotStore,
      publish: async (history, fullHashes) => {
        const wait = stall;
        stall = undefined;
        await wait?.();
        return history.publish(fullHashes);
      },
    };
    const here = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: `${keyPrefix}publishing:` });
    const other = await RedisEntryEdits.connect({ url: REDIS_URL, keyPrefix: `${keyPrefix}publishing:` });
    const lists = await FeedLists.start(config('/quick'), () => {}, slowStore, { watch: false, edits: here });
    try {
      // Another instance's edit lands after this load read the edits, before its publication is done.
      stall = () => other.update('se-4b', ['while-publishing.example/'], []).then(() => {});
      feedText += 'http://new-in-feed.example/\n';
      assert.equal((await lists.reloadOne('se-4b'))!.published, true);
      await until(5000, 'the edit made while publishing is published', () => holds(lists, 'while-publishing.example/'));
    } finally {
      await lists.close();
      await here.close();
      await other.close();
    }
  });
});
