// Polite URL feeds, against a loopback feed server that counts requests: conditional GETs and 304s,
// copies kept through failures (500, timeouts, truncated, huge and gzip-bomb answers), validators that
// are malformed or ignored, the back-off schedule on a fake clock, and one source's failure leaving the
// others of its list to move on.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FeedLimits, ListConfig, SourceConfig } from '../../../../src/server/config/config.ts';
import { loadList } from '../../../../src/server/feeds/sources/feed-source.ts';
import { SourceStates } from '../../../../src/server/feeds/sources/source-states.ts';
import { sourceStatus } from '../../../../src/server/feeds/sources/source-status.ts';
import { conditionalFeed, FeedServer } from '../feed-server.ts';
import { FakeClock } from '../../../support/fake-clock.ts';
import { until } from '../../../support/waiting.ts';

const LIMITS: FeedLimits = { timeoutMs: 5_000, maxBytes: 1024 * 1024 };
const REFRESH_MINUTES = 5;
const REFRESH_MS = REFRESH_MINUTES * 60_000;

let feeds: FeedServer;
before(async () => {
  feeds = await FeedServer.start();
});
after(async () => {
  await feeds.close();
});

let clock: FakeClock;
let states: SourceStates;
beforeEach(() => {
  clock = new FakeClock();
  // No jitter: the schedule is the nominal one (the jitter has tests of its own).
  states = new SourceStates({ clock, random: () => 0 });
});

function fromUrl(path: string, extra: Partial<SourceConfig> = {}): SourceConfig {
  return {
    kind: 'url',
    url: feeds.url(path),
    format: 'urls',
    csvColumn: undefined,
    refreshMinutes: REFRESH_MINUTES,
    ...extra,
  } as SourceConfig;
}

function list(...sources: SourceConfig[]): ListConfig {
  return { name: 'mw-4b', threatTypes: ['MALWARE'], likelySafeTypes: [], hashLength: 4, description: '', sources };
}

const hashOf = (expression: string) => createHash('sha256').update(expression).digest();
/** Whether a merged list holds `expression`. */
function holds(fullHashes: Uint8Array, expression: string): boolean {
  const wanted = hashOf(expression);
  for (let o = 0; o < fullHashes.length; o += 32) if (Buffer.from(fullHashes.subarray(o, o + 32)).equals(wanted)) return true;
  return false;
}

const feedText = (...hosts: string[]) => hosts.map((host) => `http://${host}/\n`).join('');
const statusOf = (index = 0) => sourceStatus(states.all()[index]!, clock.now());

describe('conditional GETs', () => {
  it('ask with the last validators, so that an unchanged feed costs one 304 and no publication', async () => {
    const feed = { text: feedText('a.example', 'b.example'), version: 1 };
    feeds.route('/cond', conditionalFeed(feed));
    const config = list(fromUrl('/cond'));
    const first = await loadList(config, LIMITS, states, 'now');
    assert.equal(first.expressions, 2);
    assert.equal(feeds.last('/cond')!.ifNoneMatch, undefined, 'nothing to validate the first time');
    assert.match(feeds.last('/cond')!.acceptEncoding!, /gzip/);

    const second = await loadList(config, LIMITS, states, 'now');
    assert.equal(feeds.count('/cond'), 2);
    assert.equal(feeds.last('/cond')!.ifNoneMatch, '"v1"');
    assert.equal(feeds.last('/cond')!.ifModifiedSince, new Date(Date.UTC(2026, 0, 2)).toUTCString());
    assert.equal(second.contentKey, first.contentKey, 'the same versions: nothing to publish');
    assert.equal(second.expressions, 2);
    assert.equal(states.all()[0]!.notModified, 1);

    feed.version = 2;
    feed.text = feedText('a.example', 'c.example');
    const third = await loadList(config, LIMITS, states, 'now');
    assert.notEqual(third.contentKey, first.contentKey);
    assert.ok(holds(third.fullHashes, 'c.example/'));
    assert.ok(!holds(third.fullHashes, 'b.example/'));
    await loadList(config, LIMITS, states, 'now');
    assert.equal(feeds.last('/cond')!.ifNoneMatch, '"v2"', 'the new version is what is asked about next');
    assert.equal(states.all()[0]!.notModified, 2);
  });

  it('keep the copy and validators through a reload that changes only the limits', async () => {
    feeds.route('/limits', conditionalFeed({ text: feedText('l.example'), version: 1 }));
    await loadList(list(fromUrl('/limits')), LIMITS, states, 'now');
    // feedTimeoutSeconds and feedMaxMegabytes changed by a SIGHUP, then a source's own maxMegabytes.
    const loaded = await loadList(list(fromUrl('/limits')), { timeoutMs: 9_000, maxBytes: 2 * 1024 * 1024 }, states, 'now');
    assert.equal(feeds.last('/limits')!.ifNoneMatch, '"v1"', 'asked conditionally: the validators were kept');
    assert.equal(loaded.expressions, 1);
    assert.deepEqual(
      states.all()[0]!.limits,
      { timeoutMs: 9_000, maxBytes: 2 * 1024 * 1024, maxEntries: 2_000_000 },
      'the next read is bounded by the new limits',
    );
    await loadList(list(fromUrl('/limits', { maxBytes: 1000 })), LIMITS, states, 'now');
    assert.equal(feeds.last('/limits')!.ifNoneMatch, '"v1"');
    assert.equal(states.all()[0]!.limits.maxBytes, 1000);
    assert.equal(states.all()[0]!.notModified, 2);
    // Another URL is another source: nothing carries over.
    feeds.route('/limits-moved', conditionalFeed({ text: feedText('l.example'), version: 1 }));
    await loadList(list(fromUrl('/limits-moved')), LIMITS, states, 'now');
    assert.equal(feeds.last('/limits-moved')!.ifNoneMatch, undefined);
  });

  it("ask a timer's load only once the refresh interval has passed", async () => {
    feeds.route('/timed', conditionalFeed({ text: feedText('t.example'), version: 1 }));
    const config = list(fromUrl('/timed'));
    await loadList(config, LIMITS, states, 'now');
    clock.advance(REFRESH_MS - 1);
    await loadList(config, LIMITS, states, 'due');
    assert.equal(feeds.count('/timed'), 1, 'not due: the copy is served without asking');
    clock.advance(1);
    await loadList(config, LIMITS, states, 'due');
    assert.equal(feeds.count('/timed'), 2);
    assert.equal(states.nextCheckAt('mw-4b'), clock.now() + REFRESH_MS);
  });

  it('drop a malformed ETag rather than echo it, and do not parse again a text sent again unchanged', async () => {
    const text = feedText('m.example');
    feeds.route('/bad-etag', (_request, response) => response.writeHead(200, { etag: 'unquoted\tvalue' }).end(text));
    const config = list(fromUrl('/bad-etag'));
    const first = await loadList(config, LIMITS, states, 'now');
    const since = states.all()[0]!.copy!.since;
    clock.advance(60_000);
    const second = await loadList(config, LIMITS, states, 'now');
    assert.equal(feeds.last('/bad-etag')!.ifNoneMatch, undefined);
    assert.equal(second.contentKey, first.contentKey, 'the same text is the same version');
    assert.equal(states.all()[0]!.copy!.since, since, 'the copy is the one read first');
    assert.match(statusOf().summary, /^fresh, 1 entry, checked 0 s ago, unchanged since 2026-11-25 10:00:00 UTC$/);
  });

  it('treat a 304 to a request that was not conditional as a failure', async () => {
    feeds.route('/always-304', (_request, response) => response.writeHead(304).end());
    const loaded = await loadList(list(fromUrl('/always-304')), LIMITS, states, 'now');
    assert.equal(loaded.errors[0]?.failure, 'http-status');
    assert.match(loaded.errors[0]?.message ?? '', /HTTP 304 \(not modified\) to a request that was not conditional/);
  });

  it('keep the validators of the copy when a new version fails to parse', async () => {
    let html = false;
    feeds.route('/turns-html', (request, response) => {
      if (!html) return conditionalFeed({ text: feedText('h.example'), version: 1 })(request, response);
      response.writeHead(200, { etag: '"html"' }).end('<html>\n<body>maintenance</body>\n</html>\n');
    });
    const config = list(fromUrl('/turns-html'));
    await loadList(config, LIMITS, states, 'now');
    html = true;
    const failed = await loadList(config, LIMITS, states, 'now');
    assert.equal(failed.stale[0]?.error.failure, 'not-a-feed');
    assert.ok(holds(failed.fullHashes, 'h.example/'), 'the last good copy still counts');
    await loadList(config, LIMITS, states, 'now');
    assert.equal(feeds.last('/turns-html')!.ifNoneMatch, '"v1"', "the HTML page's ETag was not taken");
  });
});

describe('merges', () => {
  it('are made again only when the copies or the entry edits changed', async () => {
    feeds.route('/merged', conditionalFeed({ text: feedText('feed.example'), version: 1 }));
    const config = list(fromUrl('/merged'), {
      kind: 'entries',
      entries: ['inline.example/', 'gone.example/'],
      format: 'expressions',
      csvColumn: undefined,
    });
    let edits = { added: ['added.example/'], removed: ['gone.example/'] };
    const readEdits = async () => edits;
    const first = await loadList(config, LIMITS, states, 'now', readEdits);
    const second = await loadList(config, LIMITS, states, 'now', readEdits);
    assert.equal(second.contentKey, first.contentKey);
    assert.equal(second.fullHashes, first.fullHashes, 'the same merge, not made again');
    assert.ok(holds(second.fullHashes, 'added.example/') && holds(second.fullHashes, 'feed.example/'));
    assert.ok(!holds(second.fullHashes, 'gone.example/'));
    edits = { added: ['added.example/', 'more.example/'], removed: ['gone.example/'] };
    const third = await loadList(config, LIMITS, states, 'now', readEdits);
    assert.notEqual(third.contentKey, first.contentKey);
    assert.ok(holds(third.fullHashes, 'more.example/'));
    edits = { added: [], removed: [] };
    const plain = await loadList(config, LIMITS, states, 'now', readEdits);
    assert.ok(holds(plain.fullHashes, 'gone.example/') && !holds(plain.fullHashes, 'added.example/'));
    assert.equal((await loadList(config, LIMITS, states, 'now', readEdits)).fullHashes, plain.fullHashes);
  });
});

describe('loads in mode held', () => {
  it('read nothing, not even a source never read, which they name; inline entries are parsed', async () => {
    feeds.route('/held', conditionalFeed({ text: feedText('feed.example'), version: 1 }));
    const inline = { kind: 'entries', entries: ['inline.example/'], format: 'expressions', csvColumn: undefined } as SourceConfig;
    const held = await loadList(list(fromUrl('/held'), inline), LIMITS, states, 'held');
    assert.equal(feeds.count('/held'), 0);
    assert.deepEqual(held.unread, [feeds.url('/held')]);
    assert.deepEqual(held.errors, []);
    assert.ok(holds(held.fullHashes, 'inline.example/') && !holds(held.fullHashes, 'feed.example/'));
    await loadList(list(fromUrl('/held'), inline), LIMITS, states, 'now');
    clock.advance(2 * REFRESH_MS);
    const again = await loadList(list(fromUrl('/held'), inline), LIMITS, states, 'held');
    assert.equal(feeds.count('/held'), 1, 'a feed that is due is not asked either');
    assert.deepEqual(again.unread, []);
    assert.ok(holds(again.fullHashes, 'feed.example/'), 'its copy counts');
  });
});

describe('failures', () => {
  /** A source that serves `good` once, then answers as `handler`. */
  function goodThen(path: string, handler: Parameters<FeedServer['route']>[1]): void {
    let served = false;
    feeds.route(path, (request, response) => {
      if (served) return handler(request, response);
      served = true;
      response.writeHead(200).end(feedText('kept.example'));
    });
  }

  async function failsKeepingCopy(path: string, source: SourceConfig, failure: string): Promise<string> {
    const config = list(source);
    await loadList(config, LIMITS, states, 'now');
    const loaded = await loadList(config, LIMITS, states, 'now');
    assert.equal(loaded.errors.length, 0);
    assert.equal(loaded.stale[0]?.error.failure, failure, String(loaded.stale[0]?.error));
    assert.ok(holds(loaded.fullHashes, 'kept.example/'), 'the last good copy is served');
    assert.equal(statusOf().state, 'failing');
    assert.equal(feeds.count(path), 2);
    return statusOf().summary;
  }

  it('serve the last good copy through a 500', async () => {
    goodThen('/500', (_request, response) => response.writeHead(500).end('oops'));
    const summary = await failsKeepingCopy('/500', fromUrl('/500'), 'http-status');
    assert.equal(
      summary,
      'failing since 2026-11-25 10:00:00 UTC (1 try): HTTP 500; serving the copy from 2026-11-25 10:00:00 UTC, 1 entry; next try in 30 s',
    );
  });

  it("serve it through a timeout, the source's own", async () => {
    goodThen('/hang', (_request, response) => response.writeHead(200).write('http://half.example/\n'));
    const failed = failsKeepingCopy('/hang', fromUrl('/hang', { timeoutMs: 200 }), 'timeout');
    await until(5_000, 'the second request at the feed', () => feeds.count('/hang') === 2);
    // The feeds' clock moved by the source's 0.2 s, not the configuration's 5 s.
    clock.advance(200);
    assert.match(await failed, /\): timeout after 0\.2 s; serving the copy/);
  });

  it('serve it through a truncated body', async () => {
    goodThen('/truncated', (_request, response) => {
      response.writeHead(200, { 'content-length': '1000' }).write('http://cut.example/\n');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await failsKeepingCopy('/truncated', fromUrl('/truncated'), 'network');
    assert.match(String(states.all()[0]!.failure!.error.message), /ended before the whole feed arrived/);
  });

  it("serve it through a huge body, stopped at the source's own limit", async () => {
    goodThen('/huge', (_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.from('http://huge.example/\n'.repeat(2048));
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const summary = await failsKeepingCopy('/huge', fromUrl('/huge', { maxBytes: 64 * 1024 }), 'too-large');
    assert.match(summary, /larger than its limit of 64 KiB/);
    assert.ok(states.all()[0]!.receivedBytes > 64 * 1024, 'the bytes received count, failed answer or not');
  });

  it('serve it through a gzip bomb, decoded no further than the limit', async () => {
    // 64 MiB of zeros compress to about 64 KiB.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    goodThen('/bomb', (_request, response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb));
    const started = Date.now();
    await failsKeepingCopy('/bomb', fromUrl('/bomb'), 'too-large');
    assert.ok(Date.now() - started < 4_000);
    assert.match(states.all()[0]!.failure!.error.message, /larger than the 1048576 bytes allowed/, 'stopped by the decoded size');
  });

  it('serve it through an endless compressed answer that decodes to nothing', async () => {
    // Gzip members of nothing, one after another: no decoded byte ever counts against the limit.
    const empty = Buffer.concat(Array.from({ length: 8192 }, () => gzipSync(Buffer.alloc(0))));
    goodThen('/empty-members', (_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      const pump = () => {
        while (!response.destroyed && response.write(empty));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    await failsKeepingCopy('/empty-members', fromUrl('/empty-members', { maxBytes: 64 * 1024 }), 'too-large');
    assert.match(states.all()[0]!.failure!.error.message, /sent more than 131072 compressed bytes/);
  });

  it('give nothing but the error for a source that never had a copy', async () => {
    feeds.route('/never', (_request, response) => response.writeHead(503).end());
    const loaded = await loadList(list(fromUrl('/never')), LIMITS, states, 'now');
    assert.equal(loaded.errors[0]?.failure, 'http-status');
    assert.equal(loaded.expressions, 0);
    assert.equal(statusOf().state, 'unavailable');
    assert.match(statusOf().summary, /: HTTP 503; nothing to serve from it yet; next try in 30 s$/);
  });

  it("leave the list's other sources to move on", async () => {
    const moving = { text: feedText('one.example'), version: 1 };
    feeds.route('/moving', conditionalFeed(moving));
    goodThen('/broken', (_request, response) => response.writeHead(500).end());
    const config = list(fromUrl('/moving'), fromUrl('/broken'));
    await loadList(config, LIMITS, states, 'now');
    moving.version = 2;
    moving.text = feedText('one.example', 'two.example');
    const loaded = await loadList(config, LIMITS, states, 'now');
    assert.ok(holds(loaded.fullHashes, 'two.example/'), 'the new entry of the working source');
    assert.ok(holds(loaded.fullHashes, 'kept.example/'), 'the copy of the failing one');
    assert.equal(loaded.stale.length, 1);
  });
});

describe('back-off', () => {
  it('doubles from 30 s up to the refresh interval, sends nothing in between, and starts again after a success', async () => {
    let failing = false;
    feeds.route('/flaky', (_request, response) => {
      if (failing) response.writeHead(500).end();
      else response.writeHead(200).end(feedText('flaky.example'));
    });
    const config = list(fromUrl('/flaky'));
    await loadList(config, LIMITS, states, 'now');
    failing = true;
    clock.advance(REFRESH_MS);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = feeds.count('/flaky');
      await loadList(config, LIMITS, states, 'due');
      assert.equal(feeds.count('/flaky'), before + 1);
      const wait = states.nextCheckAt('mw-4b')! - clock.now();
      waits.push(wait);
      // A timer's load before the source is due asks nothing.
      clock.advance(wait - 1);
      await loadList(config, LIMITS, states, 'due');
      assert.equal(feeds.count('/flaky'), before + 1);
      clock.advance(1);
    }
    assert.deepEqual(waits, [30_000, 60_000, 120_000, 240_000, REFRESH_MS, REFRESH_MS]);
    assert.equal(states.all()[0]!.failure!.count, 6);
    assert.equal(states.all()[0]!.failures.get('http-status'), 6);

    failing = false;
    await loadList(config, LIMITS, states, 'due');
    assert.equal(statusOf().state, 'fresh');
    assert.equal(states.nextCheckAt('mw-4b')! - clock.now(), REFRESH_MS);
    failing = true;
    clock.advance(REFRESH_MS);
    await loadList(config, LIMITS, states, 'due');
    assert.equal(states.nextCheckAt('mw-4b')! - clock.now(), 30_000, 'the count started again');
  });

  it("waits as long as the server's Retry-After asks, within the refresh interval", async () => {
    let after = '200';
    feeds.route('/busy', (_request, response) => response.writeHead(503, { 'retry-after': after }).end());
    const config = list(fromUrl('/busy'));
    await loadList(config, LIMITS, states, 'now');
    assert.equal(states.nextCheckAt('mw-4b')! - clock.now(), 200_000);
    assert.match(statusOf().summary, /HTTP 503, asked to wait 3 min; nothing to serve from it yet; next try in 3 min$/);
    after = '86400';
    await loadList(config, LIMITS, states, 'now');
    assert.equal(states.nextCheckAt('mw-4b')! - clock.now(), REFRESH_MS);
  });

  it('spreads retries with jitter, never past the refresh interval', async () => {
    feeds.route('/down', (_request, response) => response.writeHead(500).end());
    const jittered = new SourceStates({ clock, random: () => 0.999 });
    await loadList(list(fromUrl('/down')), LIMITS, jittered, 'now');
    const wait = jittered.nextCheckAt('mw-4b')! - clock.now();
    assert.ok(wait > 22_500 && wait < 23_000, String(wait));
  });
});

describe('file sources', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sbkit-source-states-'));
  });
  beforeEach(() => {
    // The loads happen, as far as file times go, a minute after the files were last touched.
    states = new SourceStates({ clock, random: () => 0, fileClock: new FakeClock(Date.now() + 60_000) });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function feedFile(name: string, text: string): SourceConfig {
    const path = join(dir, name);
    writeFileSync(path, text);
    return { kind: 'file', path, format: 'urls', csvColumn: undefined } as SourceConfig;
  }

  // A read within limits too small for the file would fail: a reload under them shows whether the file was read.
  const TINY: FeedLimits = { timeoutMs: 5_000, maxBytes: 4 };

  it('does not read again a file unchanged since its copy was read', async () => {
    const file = feedFile('old.txt', 'http://a.example/\n');
    const first = await states.read('mw-4b', 0, file, LIMITS, 'now');
    assert.equal(first.copy?.expressionCount, 1);
    const again = await states.read('mw-4b', 0, file, TINY, 'now');
    assert.equal(again.error, undefined);
    assert.equal(again.copy, first.copy);
    assert.equal(states.all()[0]!.lastUnchanged, true);
  });

  it('reads a file again once it changed, and one changed too recently for its times to tell it', async () => {
    const file = feedFile('changing.txt', 'http://a.example/\n');
    await states.read('mw-4b', 0, file, LIMITS, 'now');
    // Another size: within one tick of the file system's clock, the times alone could be alike (the case below).
    feedFile('changing.txt', 'http://bb.example/\n');
    assert.equal((await states.read('mw-4b', 0, file, TINY, 'now')).error?.failure, 'too-large');
    const changed = await states.read('mw-4b', 0, file, LIMITS, 'now');
    assert.ok(holds(changed.copy!.fullHashes, 'bb.example/'));

    // Changed just before the load: a second write in the same tick of the file system's clock would leave its times alike.
    const fresh = feedFile('fresh.txt', 'http://c.example/\n');
    const now = new SourceStates({ clock, random: () => 0 });
    await now.read('mw-4b', 1, fresh, LIMITS, 'now');
    assert.equal((await now.read('mw-4b', 1, fresh, TINY, 'now')).error?.failure, 'too-large');
  });
});
