import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FeedLists, type ListLoadReport, REPORTED_BAD_LINES_PER_SOURCE } from '../../src/server/feed-lists.ts';
import { parseServerConfig } from '../../src/server/feeds/config.ts';
import { memorySnapshotStore, type SnapshotStore } from '../../src/server/lists/snapshot-store.ts';
import { expressionHashString } from '../../src/url/hash.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-feed-lists-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** FeedLists over one file feed of expressions, published through `store`. */
async function start(feed: string, store: SnapshotStore): Promise<{ lists: FeedLists; reports: ListLoadReport[] }> {
  const config = parseServerConfig(
    { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: feed, format: 'expressions' }] }] },
    dir,
  );
  const reports: ListLoadReport[] = [];
  const lists = await FeedLists.start(config, (report) => reports.push(report), store);
  return { lists, reports };
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
    lists.close();
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
    lists.close();
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
    lists.close();
  });

  it('refuses a configuration of other lists: those take a restart', async () => {
    const feed = join(dir, 'same.txt');
    await writeFile(feed, 'same.example/\n');
    const { lists } = await start(feed, memorySnapshotStore);
    const config = parseServerConfig({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [] }] }, dir);
    await assert.rejects(lists.reconfigure(config), RangeError);
    assert.ok(holds(lists, 'same.example/'));
    lists.close();
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
    lists.close();
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
    lists.close();
  });
});
