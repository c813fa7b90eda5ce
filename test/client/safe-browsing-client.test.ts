import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema, type HashList, SearchHashesResponseSchema } from '../../src/proto/v5.ts';
import { SafeBrowsingClient, SEARCH_PREFIXES_PER_REQUEST, type SafeBrowsingClientOptions } from '../../src/client/safe-browsing-client.ts';
import type { Clock } from '../../src/client/clock.ts';
import { expressionHashString, prefix32 } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import type { DecodedWireRequest } from '../../src/wire/server-request.ts';
import { startFakeServer, type Answer, type FakeServer } from './fake-server.ts';
import { fullHashesOf, fullHashList, prefixList, prefixesOf } from './lists-fixture.ts';

const MIN = 60_000;
const BAD = 'malware.sbtest.example/';
const BAD_URL = `http://${BAD}`;

/** A clock that moves only when told to; timers are recorded, not run. */
function fakeClock(start = 1_700_000_000_000): Clock & { advance(ms: number): void; timers: number } {
  let now = start;
  let timers = 0;
  return {
    now: () => now,
    setTimeout: () => ++timers,
    clearTimeout: () => undefined,
    advance(ms) {
      now += ms;
    },
    get timers() {
      return timers;
    },
  };
}

function batch(...lists: HashList[]): Answer {
  return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
}

function searchAnswer(fullHashes: { hash: string; threatType: number; attributes?: number[] }[], cacheMs = 300_000): Answer {
  return {
    rpc: 'SearchHashes',
    message: create(SearchHashesResponseSchema, {
      fullHashes: fullHashes.map((f) => ({
        fullHash: Buffer.from(f.hash, 'latin1'),
        fullHashDetails: [{ threatType: f.threatType, attributes: f.attributes ?? [] }],
      })),
      cacheDuration: durationFromMs(cacheMs),
    }),
  };
}

const emptyList = (name: string, version = 'v1') => prefixList(name, version, new Uint32Array(0), { minimumWaitMs: 30 * MIN });

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
  const errors = server.scriptErrors.splice(0);
  server.requests.length = 0;
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
  assert.deepEqual(errors, [], 'the scripted server saw unexpected requests');
});

function client(options: SafeBrowsingClientOptions = {}): SafeBrowsingClient {
  return new SafeBrowsingClient({ server: server.url, apiKey: 'test-key', clock: fakeClock(), lists: ['se-4b', 'mw-4b'], ...options });
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-client-'));
  dirs.push(dir);
  return dir;
}

describe('SafeBrowsingClient, local mode (v5)', () => {
  it('downloads the lists, then asks the server only about listed prefixes', async () => {
    handler = (call) => {
      if (call.rpc === 'BatchGetHashLists') {
        assert.deepEqual(call.request.names, ['se-4b', 'mw-4b']);
        return batch(emptyList('se-4b'), prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
      }
      return searchAnswer([{ hash: expressionHashString(BAD), threatType: 1 }]);
    };
    const sb = client({ mode: 'local' });
    const summary = await sb.update();
    assert.deepEqual(summary.updated, ['se-4b', 'mw-4b']);
    assert.equal((await sb.checkUrl('http://safe.example/')).answeredBy, 'database');
    const bad = await sb.checkUrl(BAD_URL);
    assert.equal(bad.verdict, 'UNSAFE');
    assert.deepEqual(bad.threats.map((t) => t.threatType), ['MALWARE']);
    const searches = server.requests.filter((r) => r.rpc === 'SearchHashes');
    assert.equal(searches.length, 1);
    assert.equal(searches[0]!.apiKey, 'test-key');
    assert.match(server.requests[0]!.userAgent!, /^sbkit\/\d+\.\d+\.\d+$/);
    const stats = sb.stats();
    assert.deepEqual([stats.checks, stats.answeredBy.database, stats.answeredBy.server, stats.unsafe], [2, 1, 1, 1]);
    await sb.close();
  });

  it('applies partial updates: removals first, then additions, with the new version sent next time', async () => {
    const first = prefixesOf('a.example/', 'b.example/', 'c.example/');
    const afterUpdate = Uint32Array.from([first[0]!, first[2]!, ...prefixesOf(BAD)]).sort();
    let round = 0;
    handler = (call) => {
      assert.equal(call.rpc, 'BatchGetHashLists');
      round++;
      if (round === 1) return batch(prefixList('mw-4b', 'v1', first, { minimumWaitMs: 0 }));
      assert.equal(Buffer.from(call.request.version[0]!).toString(), 'v1');
      return batch(prefixList('mw-4b', 'v2', prefixesOf(BAD), { partial: true, removals: [1], after: afterUpdate, minimumWaitMs: 30 * MIN }));
    };
    const sb = client({ mode: 'local', lists: ['mw-4b'] });
    await sb.update();
    const [info] = sb.listInfo();
    assert.equal(info!.entries, 3);
    assert.equal(Buffer.from(info!.version, 'base64').toString(), 'v2');
    assert.equal(round, 2);
  });

  it('drops a list whose checksum does not match and asks for it from scratch', async () => {
    let round = 0;
    const events: string[] = [];
    handler = () => {
      round++;
      if (round === 1) return batch(prefixList('mw-4b', 'v1', prefixesOf(BAD), { checksum: new Uint8Array(32), minimumWaitMs: 0 }));
      return batch(prefixList('mw-4b', 'v2', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
    };
    const sb = client({ mode: 'local', lists: ['mw-4b'], onEvent: (e) => events.push(e.type) });
    const summary = await sb.update();
    assert.equal(summary.failed[0]!.list, 'mw-4b');
    assert.match(summary.failed[0]!.error.message, /checksum-mismatch/);
    assert.equal(server.requests[1]!.rpc === 'BatchGetHashLists' && server.requests[1]!.request.version[0]!.length, 0);
    assert.deepEqual(events, ['list-dropped', 'update', 'update']);
    assert.equal(sb.listInfo()[0]!.entries, 1);
  });

  it('drops a list whose Rice data is broken', async () => {
    handler = () => {
      const broken = prefixList('mw-4b', 'v1', prefixesOf('a.example/', 'b.example/'), { minimumWaitMs: 30 * MIN });
      if (broken.compressedAdditions.case === 'additionsFourBytes') broken.compressedAdditions.value.encodedData = new Uint8Array(0);
      return batch(broken);
    };
    const sb = client({ mode: 'local', lists: ['mw-4b'] });
    const summary = await sb.update();
    assert.match(summary.failed[0]!.error.message, /cannot decode v5 RiceDeltaEncoded32Bit/);
    assert.equal(sb.listInfo()[0]!.entries, 0);
  });

  it('comes straight back for the rest of a size-limited update (SB-12: zero wait)', async () => {
    const all = prefixesOf('a.example/', 'b.example/', 'c.example/', 'd.example/');
    const firstHalf = all.slice(0, 2);
    let round = 0;
    handler = (call) => {
      round++;
      assert.equal(call.rpc === 'BatchGetHashLists' && call.request.sizeConstraints?.maxUpdateEntries, 1024);
      if (round === 1) return batch(prefixList('mw-4b', 'part1', firstHalf));
      return batch(prefixList('mw-4b', 'done', all.slice(2), { partial: true, after: all, minimumWaitMs: 30 * MIN }));
    };
    const clock = fakeClock();
    const sb = client({ mode: 'local', lists: ['mw-4b'], sizeConstraints: { maxUpdateEntries: 1024 }, clock });
    const summary = await sb.update();
    assert.equal(round, 2);
    assert.equal(sb.listInfo()[0]!.entries, 4);
    assert.equal(summary.nextUpdateAt, clock.now() + 30 * MIN);
  });

  it('backs off after a 503 and sends nothing until the back-off has passed (RF-4)', async () => {
    handler = () => ({ status: 503 });
    const clock = fakeClock();
    const sb = client({ mode: 'local', clock });
    const summary = await sb.update();
    assert.match(summary.error!.message, /503/);
    const wait = summary.nextUpdateAt - clock.now();
    assert.ok(wait >= 15 * MIN && wait <= 30 * MIN, `waits ${wait} ms`);
    clock.advance(wait - 1);
    await sb.update();
    assert.equal(server.requests.length, 1);
    clock.advance(1);
    await sb.update();
    assert.equal(server.requests.length, 2);
    assert.equal(sb.stats().consecutiveUpdateFailures, 2);
  });

  it('treats a server that does not answer in time as a failure', async () => {
    handler = () => ({ hang: true });
    const sb = client({ mode: 'local', timeoutMs: 150 });
    const summary = await sb.update();
    assert.match(summary.error!.message, /did not answer within 150 ms/);
  });

  it('ignores full-hash details with unknown threat types or attributes', async () => {
    handler = (call) =>
      call.rpc === 'BatchGetHashLists'
        ? batch(emptyList('se-4b'), prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }))
        : searchAnswer([
            { hash: expressionHashString(BAD), threatType: 99 },
            { hash: expressionHashString(BAD), threatType: 1, attributes: [42] },
          ]);
    const sb = client({ mode: 'local' });
    await sb.update();
    assert.equal((await sb.checkUrl(BAD_URL)).verdict, 'SAFE');
  });

  it('keeps lists and waits across restarts in its data folder', async () => {
    const dataDir = await tempDir();
    handler = () => batch(emptyList('se-4b'), prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
    const clock = fakeClock();
    const first = client({ mode: 'local', dataDir, clock });
    await first.update();
    await first.close();
    const second = client({ mode: 'local', dataDir, clock });
    await second.update();
    assert.equal(server.requests.length, 1, 'the minimum wait of the first process still holds');
    assert.equal(second.listInfo().find((l) => l.name === 'mw-4b')!.entries, 1);
  });
});

describe('SafeBrowsingClient, real-time mode (v5)', () => {
  it('checks unknown URLs online and lets the global cache send likely-safe ones to the local lists', async () => {
    handler = (call) => {
      if (call.rpc === 'BatchGetHashLists') {
        return batch(emptyList('se-4b'), emptyList('mw-4b'), fullHashList('gc-32b', 'g1', fullHashesOf('popular.example/')));
      }
      return searchAnswer([{ hash: expressionHashString(BAD), threatType: 2 }]);
    };
    const sb = client({ mode: 'realtime' });
    await sb.update();
    const popular = await sb.checkUrl('http://popular.example/page');
    assert.equal(popular.verdict, 'SAFE');
    assert.equal(popular.answeredBy, 'database');
    const bad = await sb.checkUrl(BAD_URL);
    assert.equal(bad.verdict, 'UNSAFE');
    assert.equal(bad.threats[0]!.threatType, 'SOCIAL_ENGINEERING');
    assert.deepEqual(server.requests.map((r) => r.rpc), ['BatchGetHashLists', 'SearchHashes']);
  });

  it('falls back to the local lists when the search fails, and backs off searching', async () => {
    handler = (call) => (call.rpc === 'BatchGetHashLists' ? batch(emptyList('se-4b'), emptyList('mw-4b'), fullHashList('gc-32b', 'g1', new Uint8Array(0))) : { status: 500 });
    const sb = client({ mode: 'realtime' });
    await sb.update();
    const first = await sb.checkUrl(BAD_URL);
    assert.equal(first.verdict, 'SAFE');
    assert.match(first.error!.message, /500/);
    const second = await sb.checkUrl('http://other.example/');
    assert.match(second.error!.message, /may not be asked again/);
    assert.equal(server.requests.filter((r) => r.rpc === 'SearchHashes').length, 1);
    assert.deepEqual([sb.stats().failures, sb.stats().deferred], [1, 1]);
  });
});

describe('SafeBrowsingClient, no-storage mode (v5)', () => {
  it('keeps no lists, asks the server, and caches answers in memory', async () => {
    handler = () => searchAnswer([]);
    const sb = client({ mode: 'nostorage' });
    assert.deepEqual(sb.listInfo(), []);
    assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'server');
    assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'cache');
    assert.deepEqual(server.requests.map((r) => r.rpc), ['SearchHashes']);
  });

  it('answers SAFE with the error when the server fails', async () => {
    handler = () => ({ status: 502 });
    const result = await client({ mode: 'nostorage' }).checkUrl(BAD_URL);
    assert.equal(result.verdict, 'SAFE');
    assert.match(result.error!.message, /502/);
  });
});

describe('SafeBrowsingClient.start (RF-2)', () => {
  it('schedules the first update at a random moment in the first minute', async () => {
    handler = () => batch(emptyList('se-4b'), emptyList('mw-4b'));
    const clock = fakeClock();
    const sb = client({ mode: 'local', clock, random: () => 0.25 });
    await sb.start();
    assert.equal(sb.nextUpdateAt, clock.now() + 15_000);
    assert.equal(server.requests.length, 0);
    assert.equal(clock.timers, 1);
    await sb.close();
  });
});

describe('the public API', () => {
  it('exports the client and the URL pipeline from the package entry', async () => {
    const api = await import('../../src/index.ts');
    assert.equal(typeof api.SafeBrowsingClient, 'function');
    assert.equal(api.canonicalizeUrl('HTTP://Example.COM:80'), 'http://example.com/');
    assert.equal(api.urlExpressions('http://a.b.example.com/x').length, 6);
    // DESIGN.md: createServer(options) is public too, with the parts a server is composed of.
    for (const name of ['createServer', 'LoadControl', 'KeyRing', 'createRelayApp'] as const) assert.equal(typeof api[name], 'function', name);
  });

  it('drops its cache on request', async () => {
    handler = () => searchAnswer([]);
    const sb = client({ mode: 'nostorage' });
    await sb.checkUrl('http://a.example/');
    assert.ok(sb.stats().cachedPrefixes > 0);
    sb.clearCache();
    assert.equal(sb.stats().cachedPrefixes, 0);
  });
});

describe('minimumUpdateWaitMs (a proxy keeps lists at least five minutes, SB-11)', () => {
  it('lengthens short waits and keeps a zero wait zero', async () => {
    let round = 0;
    handler = () => {
      round++;
      if (round === 1) return batch(prefixList('mw-4b', 'part', prefixesOf('a.example/')));
      return batch(prefixList('mw-4b', 'v2', prefixesOf('a.example/'), { minimumWaitMs: 60_000 }));
    };
    const clock = fakeClock();
    const sb = client({ mode: 'local', lists: ['mw-4b'], clock, minimumUpdateWaitMs: 5 * MIN });
    const summary = await sb.update();
    assert.equal(round, 2, 'the zero wait of the first answer still meant "come back at once"');
    assert.equal(summary.nextUpdateAt, clock.now() + 5 * MIN);
  });
});

describe('searchPrefixes (what a caching proxy asks its upstream)', () => {
  it('asks about many prefixes in several searches of SEARCH_PREFIXES_PER_REQUEST, and finds threats in every one', async () => {
    const listed = expressionHashString(BAD);
    handler = (call) => {
      assert.equal(call.rpc, 'SearchHashes');
      const asked = call.request.hashPrefixes.map((p) => Buffer.from(p).toString('latin1'));
      assert.ok(asked.length <= SEARCH_PREFIXES_PER_REQUEST, `${asked.length} prefixes in one search`);
      return searchAnswer(asked.includes(listed.slice(0, 4)) ? [{ hash: listed, threatType: 2 }] : []);
    };
    const prefixes = Array.from({ length: 2 * SEARCH_PREFIXES_PER_REQUEST }, (_, i) => i + 1);
    prefixes.push(prefix32(listed));
    const answer = await client({ mode: 'nostorage' }).searchPrefixes(prefixes);
    assert.deepEqual(server.requests.map((r) => r.rpc === 'SearchHashes' && r.request.hashPrefixes.length), [SEARCH_PREFIXES_PER_REQUEST, SEARCH_PREFIXES_PER_REQUEST, 1]);
    assert.deepEqual(answer.fullHashes.map((f) => f.fullHash), [listed]);
    assert.equal(answer.cacheDurationMs, 300_000);
  });
});
