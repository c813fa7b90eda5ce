// Values a hostile or broken server sends, and the bounds the client now holds them to: a minimum wait
// past what Node timers hold, cache durations of years, answers larger than they say, and refusals
// that say when to come back (Retry-After). Each against a server on loopback: a scripted fake, a raw
// socket for what no HTTP library would write, and real sbkit servers for the caching proxy.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { FindFullHashesResponseSchema, PlatformType, ThreatEntryType, ThreatType } from '../../src/proto/v4.ts';
import { BatchGetHashListsResponseSchema, SearchHashesResponseSchema, ThreatType as V5ThreatType } from '../../src/proto/v5.ts';
import { type Clock, systemClock } from '../../src/time/clock.ts';
import { SearchDeferredError, TransportError } from '../../src/client/client-errors.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import type { SafeBrowsingClientOptions } from '../../src/client/options.ts';
import { upstreamFullHashes } from '../../src/server/api/full-hash-source.ts';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { UpstreamMirror } from '../../src/server/proxy/upstream-mirror.ts';
import { clientUpstream } from '../../src/server/proxy/upstream.ts';
import { LocalDatabase } from '../../src/store/database.ts';
import { expressionHashString, prefix32 } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import type { DecodedWireRequest } from '../../src/wire/rest/server-request.ts';
import { WireResponseError } from '../../src/wire/wire-error.ts';
import { startFakeServer, type Answer, type FakeServer } from '../client/fake-server.ts';
import { prefixList } from '../client/lists-fixture.ts';
import { demoCatalog } from '../server/fixture.ts';
import { FakeClock } from '../support/fake-clock.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
/** What the attacker sent: a cache duration of 11,574 days (10^9 seconds). */
const YEARS = 1_000_000_000_000;
const BAD = 'malware.sbtest.example/';
const BAD_URL = `http://${BAD}`;
const SAFE_URL = 'http://safe.sbtest.example/';

let server: FakeServer;
let handler: (call: DecodedWireRequest) => Answer | Promise<Answer>;
let dirs: string[] = [];

before(async () => {
  server = await startFakeServer((call) => handler(call));
});
after(async () => {
  await server.close();
});
afterEach(async () => {
  server.requests.length = 0;
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

function client(options: SafeBrowsingClientOptions): SafeBrowsingClient {
  return new SafeBrowsingClient({ server: server.url, clock: new FakeClock(), ...options });
}

const searches = () => server.requests.filter((r) => r.rpc === 'SearchHashes' || r.rpc === 'FindFullHashes').length;

function v5Search(cacheMs: number, found: boolean): Answer {
  return {
    rpc: 'SearchHashes',
    message: create(SearchHashesResponseSchema, {
      fullHashes: found
        ? [{ fullHash: Buffer.from(expressionHashString(BAD), 'latin1'), fullHashDetails: [{ threatType: V5ThreatType.MALWARE }] }]
        : [],
      cacheDuration: durationFromMs(cacheMs),
    }),
  };
}

describe('a minimum wait longer than a Node timer holds (24.8 days)', () => {
  it('does not spin the update loop: no timer fires and no state is written while the wait runs', async (t) => {
    handler = () => ({
      rpc: 'BatchGetHashLists',
      message: create(BatchGetHashListsResponseSchema, {
        hashLists: [prefixList('mw-4b', 'v1', new Uint32Array(0), { minimumWaitMs: 30 * DAY })],
      }),
    });
    const dataDir = await mkdtemp(join(tmpdir(), 'sbkit-security-'));
    dirs.push(dataDir);
    // Real timers, counted: Node's overflow (a delay past 2^31 − 1 ms runs after 1 ms) is what spun.
    let fired = 0;
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout: (run, ms) =>
        systemClock.setTimeout(() => {
          fired++;
          run();
        }, ms),
      clearTimeout: (handle) => systemClock.clearTimeout(handle),
    };
    // Every write of the state file, counted (and still made).
    const writeState = t.mock.method(LocalDatabase.prototype, 'writeState');
    const writes = () => writeState.mock.callCount();
    let overflowWarnings = 0;
    const onWarning = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') overflowWarnings++;
    };
    process.on('warning', onWarning);
    let updated!: () => void;
    const firstUpdate = new Promise<void>((resolve) => (updated = resolve));
    const sb = new SafeBrowsingClient({
      server: server.url,
      mode: 'local',
      lists: ['mw-4b'],
      dataDir,
      firstUpdateWindowMs: 0,
      clock,
      onEvent: (event) => {
        if (event.type === 'update') updated();
      },
    });
    try {
      await sb.start();
      await firstUpdate;
      // A bounded real run: the spin showed as a timer every millisecond, so half a second tells.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const before = { fired, writes: writes(), overflowWarnings };
      await new Promise((resolve) => setTimeout(resolve, 500));
      const during = {
        fired: fired - before.fired,
        writes: writes() - before.writes,
        overflowWarnings: overflowWarnings - before.overflowWarnings,
      };
      assert.deepEqual(during, { fired: 0, writes: 0, overflowWarnings: 0 }, `in 500 ms: ${JSON.stringify(during)}`);
      assert.ok(sb.nextUpdateAt! - Date.now() <= DAY, 'the wait is cut to a day');
      assert.deepEqual(
        server.requests.map((r) => r.rpc),
        ['ListHashLists', 'BatchGetHashLists'],
      );
    } finally {
      await sb.close();
      process.off('warning', onWarning);
    }
  });
});

describe('cache durations of years (SB-8: never past 24 hours)', () => {
  it('keeps neither a v5 threat nor a v5 "nothing found" past a day', async () => {
    handler = (call) => v5Search(YEARS, isBadSearch(call));
    const clock = new FakeClock();
    const sb = client({ mode: 'nostorage', clock });
    assert.equal((await sb.checkUrl(BAD_URL)).verdict, 'UNSAFE');
    assert.equal((await sb.checkUrl(SAFE_URL)).verdict, 'SAFE');
    assert.equal(searches(), 2);
    clock.advance(DAY);
    assert.equal((await sb.checkUrl(BAD_URL)).answeredBy, 'cache');
    assert.equal((await sb.checkUrl(SAFE_URL)).answeredBy, 'cache');
    clock.advance(1);
    assert.equal((await sb.checkUrl(BAD_URL)).answeredBy, 'server');
    assert.equal((await sb.checkUrl(SAFE_URL)).answeredBy, 'server');
    assert.equal(searches(), 4);
    await sb.close();
  });

  it('keeps no v4 match, negative answer or search wait past a day', async () => {
    handler = () => ({
      rpc: 'FindFullHashes',
      message: create(FindFullHashesResponseSchema, {
        matches: [
          {
            threatType: ThreatType.MALWARE,
            platformType: PlatformType.ANY_PLATFORM,
            threatEntryType: ThreatEntryType.URL,
            threat: { hash: Buffer.from(expressionHashString(BAD), 'latin1') },
            cacheDuration: durationFromMs(YEARS),
          },
        ],
        negativeCacheDuration: durationFromMs(YEARS),
        minimumWaitDuration: durationFromMs(YEARS),
      }),
    });
    const clock = new FakeClock();
    const sb = client({ protocol: 'v4', mode: 'nostorage', clock });
    assert.equal((await sb.checkUrl(BAD_URL)).verdict, 'UNSAFE');
    clock.advance(DAY - 1);
    const deferred = await sb.checkUrl(SAFE_URL);
    assert.ok(deferred.error instanceof SearchDeferredError, 'the wait holds for a day');
    assert.equal(deferred.error.notBefore - clock.now(), 1);
    clock.advance(1);
    assert.equal((await sb.checkUrl(BAD_URL)).answeredBy, 'cache');
    clock.advance(1);
    assert.equal((await sb.checkUrl(BAD_URL)).answeredBy, 'server');
    assert.equal(searches(), 2);
    await sb.close();
  });

  it("keeps a caching proxy's answers from its upstream no longer than a day", async () => {
    handler = (call) => v5Search(YEARS, isBadSearch(call));
    const clock = new FakeClock();
    const upstream = clientUpstream({ server: server.url, mode: 'nostorage', clock });
    // The client's time for the answers' expiries; the searches' own schedule on the system's timers.
    const proxy = upstreamFullHashes(upstream, undefined, {}, { ...systemClock, now: () => clock.now() });
    const prefix = prefix32(expressionHashString(BAD));
    const first = await proxy.find([prefix]);
    assert.equal(first.fullHashes.length, 1);
    assert.ok(first.cacheDurationMs <= DAY);
    clock.advance(DAY + 1);
    await proxy.find([prefix]);
    assert.equal(searches(), 2, 'the upstream is asked again after a day');
    await upstream.close();
  });
});

/** Whether a v5 search asks about the prefix of BAD. */
function isBadSearch(call: DecodedWireRequest): boolean {
  if (call.rpc !== 'SearchHashes') return false;
  const prefix = Buffer.from(expressionHashString(BAD), 'latin1').subarray(0, 4);
  return call.request.hashPrefixes.some((p) => Buffer.from(p).equals(prefix));
}

describe('answers larger than they say', () => {
  let raw: TcpServer;
  let rawUrl: string;
  let reply = '';

  before(async () => {
    raw = createTcpServer((socket) => socket.once('data', () => socket.end(reply)));
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    rawUrl = `http://127.0.0.1:${(raw.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((resolve) => raw.close(resolve));
  });

  async function updateError(answer: string): Promise<Error | undefined> {
    reply = answer;
    const sb = new SafeBrowsingClient({ server: rawUrl, mode: 'local', lists: ['mw-4b'], clock: new FakeClock(), maxResponseBytes: 1000 });
    const summary = await sb.update();
    await sb.close();
    return summary.error;
  }

  const assertTooLarge = (error: Error | undefined) => {
    assert.ok(error instanceof TransportError, String(error));
    assert.equal(error.code, 'SBKIT_TRANSPORT_TOO_LARGE', error.message);
  };

  it('reports a chunked answer that grows past maxResponseBytes as too-large', async () => {
    const chunk = `1f4\r\n${'x'.repeat(500)}\r\n`;
    assertTooLarge(await updateError(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${chunk.repeat(10)}0\r\n\r\n`));
  });

  it('reports an answer longer than its Content-Length, or a length past 2^64, as too-large', async () => {
    assertTooLarge(await updateError(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n${'x'.repeat(5000)}`));
    assertTooLarge(await updateError(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${'f'.repeat(20)}\r\n${'x'.repeat(50)}`));
  });
});

describe('a 429 or 503 with Retry-After', () => {
  it('lets the next search out after the 5 s asked for, not after 15 minutes of back-off', async () => {
    let refuse = true;
    handler = () => (refuse ? { status: 503, headers: { 'retry-after': '5' } } : v5Search(300_000, false));
    const clock = new FakeClock();
    const sb = client({ mode: 'nostorage', clock });
    const refused = await sb.checkUrl(SAFE_URL);
    assert.ok(refused.error instanceof WireResponseError && refused.error.httpStatus === 503);
    refuse = false;
    clock.advance(4999);
    const early = await sb.checkUrl(SAFE_URL);
    assert.ok(early.error instanceof SearchDeferredError, 'not before the 5 s');
    assert.equal(early.error.notBefore - clock.now(), 1);
    clock.advance(1);
    const after5s = await sb.checkUrl(SAFE_URL);
    assert.equal(after5s.error, undefined);
    assert.equal(searches(), 2);
    await sb.close();
  });

  it('reads an HTTP-date, and holds a list update back for it without a back-off step', async () => {
    const clock = new FakeClock(Date.parse('2025-03-01T12:00:00Z'));
    let refuse = true;
    handler = () =>
      refuse
        ? { status: 429, headers: { 'retry-after': 'Sat, 01 Mar 2025 12:00:30 GMT' } }
        : {
            rpc: 'BatchGetHashLists',
            message: create(BatchGetHashListsResponseSchema, {
              hashLists: [prefixList('mw-4b', 'v1', new Uint32Array(0), { minimumWaitMs: 30 * MIN })],
            }),
          };
    const sb = client({ mode: 'local', lists: ['mw-4b'], clock });
    const summary = await sb.update();
    assert.ok(summary.error instanceof WireResponseError);
    assert.equal(summary.nextUpdateAt - clock.now(), 30_000);
    assert.equal(sb.stats().updateFailures, 1, 'a failed request, counted');
    assert.equal(sb.stats().consecutiveUpdateFailures, 0, 'but no step of back-off');
    assert.equal(summary.backoffUntil, undefined);
    refuse = false;
    clock.advance(30_000);
    assert.deepEqual((await sb.update()).updated, ['mw-4b']);
    await sb.close();
  });

  it('still backs off for 15 minutes or more after a 503 without it (RF-4)', async () => {
    handler = () => ({ status: 503 });
    const clock = new FakeClock();
    const sb = client({ mode: 'nostorage', clock, random: () => 0 });
    await sb.checkUrl(SAFE_URL);
    const deferred = await sb.checkUrl(SAFE_URL);
    assert.ok(deferred.error instanceof SearchDeferredError);
    assert.equal(deferred.error.notBefore - clock.now(), 15 * MIN);
    await sb.close();
  });
});

describe("a caching proxy refused by its upstream's load control (LC-4)", () => {
  let authority: SafeBrowsingServer;
  let mirror: UpstreamMirror;
  let proxy: SafeBrowsingServer;
  let proxyUrl: string;

  before(async () => {
    authority = createServer({ catalog: demoCatalog(), port: 0, loadControl: await LoadControl.create() });
    const authorityUrl = await authority.listen();
    mirror = await UpstreamMirror.start({ url: authorityUrl, lists: ['mw-4b'], firstUpdateWindowMs: 0 });
    proxy = createServer({ catalog: mirror.catalog, fullHashes: mirror.fullHashes, port: 0 });
    proxyUrl = await proxy.listen();
  });
  after(async () => {
    await proxy.close();
    await mirror.close();
    await authority.close();
  });

  it("waits the upstream's Retry-After (15 s), not 15 to 30 minutes, before it asks the upstream again", async (t) => {
    // Searches that all miss the proxy's cache, until the upstream's rate rule (LC-1: more than 10 in
    // 15 s from one client) refuses the proxy with 503 and Retry-After: 15.
    const sb = new SafeBrowsingClient({ server: proxyUrl, mode: 'nostorage' });
    let refusedAt: number | undefined;
    for (let i = 0; i < 20 && refusedAt === undefined; i++) {
      const result = await sb.checkUrl(`http://miss-${i}.sbtest.example/`);
      if (result.error !== undefined) refusedAt = Date.now();
    }
    await sb.close();
    assert.ok(refusedAt !== undefined, 'the upstream refused the proxy');
    await assert.rejects(mirror.upstream.searchPrefixes([1]), (err: unknown) => {
      assert.ok(err instanceof SearchDeferredError, String(err));
      const waitMs = err.notBefore - refusedAt;
      t.diagnostic(`the proxy asks its upstream again ${Math.round(waitMs / 1000)} s after the refusal`);
      assert.ok(waitMs <= 16_000, `the proxy may not ask its upstream for ${Math.round(waitMs / 1000)} s`);
      return true;
    });
  });
});
