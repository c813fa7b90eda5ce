import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { encodeRice64 } from '../../src/codec/index.ts';
import { BatchGetHashListsResponseSchema, type HashList, HashListSchema, SearchHashesResponseSchema } from '../../src/proto/v5.ts';
import { ClientOptionError } from '../../src/client/client-errors.ts';
import type { ClientEvent, SafeBrowsingClientOptions } from '../../src/client/options.ts';
import { SEARCH_PREFIXES_PER_REQUEST } from '../../src/client/hash-searcher.ts';
import { type CheckResult, SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { DatabaseStorageError, LocalDatabase } from '../../src/store/database.ts';
import { checksumOf, HashList as StoredHashList } from '../../src/store/hash-list.ts';
import { urlExpressions } from '../../src/url/expressions.ts';
import { expressionHashString, nodeSha256 } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import type { DecodedWireRequest } from '../../src/wire/rest/server-request.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { until } from '../support/waiting.ts';
import { startFakeServer, type Answer, type FakeServer } from './fake-server.ts';
import { fullHashesOf, fullHashList, prefixList, prefixesOf } from './lists-fixture.ts';

const MIN = 60_000;
const BAD = 'malware.sbtest.example/';
const BAD_URL = `http://${BAD}`;

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
  return new SafeBrowsingClient({ server: server.url, apiKey: 'test-key', clock: new FakeClock(), lists: ['se-4b', 'mw-4b'], ...options });
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
    assert.deepEqual(
      bad.threats.map((t) => t.threatType),
      ['MALWARE'],
    );
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
      return batch(
        prefixList('mw-4b', 'v2', prefixesOf(BAD), { partial: true, removals: [1], after: afterUpdate, minimumWaitMs: 30 * MIN }),
      );
    };
    const events: ClientEvent[] = [];
    const sb = client({ mode: 'local', lists: ['mw-4b'], onEvent: (e) => events.push(e) });
    await sb.update();
    const [info] = sb.listInfo();
    assert.equal(info!.entries, 3);
    assert.equal(Buffer.from(info!.version, 'base64').toString(), 'v2');
    assert.equal(round, 2);
    assert.deepEqual(
      events.map((e) => e.type === 'update' && e.stored),
      [[{ list: 'mw-4b', partial: false, verified: true }], [{ list: 'mw-4b', partial: true, verified: true }]],
      'each update round says how each list was stored',
    );
  });

  it('drops a list whose checksum does not match and asks for it from scratch', async () => {
    let round = 0;
    const events: ClientEvent[] = [];
    handler = () => {
      round++;
      if (round === 1) return batch(prefixList('mw-4b', 'v1', prefixesOf(BAD), { checksum: new Uint8Array(32), minimumWaitMs: 0 }));
      return batch(prefixList('mw-4b', 'v2', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
    };
    const sb = client({ mode: 'local', lists: ['mw-4b'], onEvent: (e) => events.push(e) });
    const summary = await sb.update();
    assert.equal(summary.failed[0]!.list, 'mw-4b');
    assert.match(summary.failed[0]!.error.message, /checksum-mismatch/);
    assert.equal(server.requests[1]!.rpc === 'BatchGetHashLists' && server.requests[1]!.request.version[0]!.length, 0);
    assert.deepEqual(
      events.map((e) => e.type),
      ['list-dropped', 'update', 'update'],
    );
    // The round that dropped it stored nothing; the next one stored it whole, verified by its checksum.
    assert.deepEqual(
      events.map((e) => e.type === 'update' && e.stored),
      [false, [], [{ list: 'mw-4b', partial: false, verified: true }]],
    );
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
    const clock = new FakeClock();
    const sb = client({ mode: 'local', lists: ['mw-4b'], sizeConstraints: { maxUpdateEntries: 1024 }, clock });
    const summary = await sb.update();
    assert.equal(round, 2);
    assert.equal(sb.listInfo()[0]!.entries, 4);
    assert.equal(summary.nextUpdateAt, clock.now() + 30 * MIN);
  });

  it('backs off after a 503 and sends nothing until the back-off has passed (RF-4)', async () => {
    handler = () => ({ status: 503 });
    const clock = new FakeClock();
    const sb = client({ mode: 'local', clock });
    const summary = await sb.update();
    assert.match(summary.error!.message, /503/);
    const wait = summary.nextUpdateAt - clock.now();
    assert.ok(wait >= 15 * MIN && wait <= 30 * MIN, `waits ${wait} ms`);
    const updates = () => server.requests.filter((r) => r.rpc === 'BatchGetHashLists').length;
    clock.advance(wait - 1);
    await sb.update();
    assert.equal(updates(), 1);
    clock.advance(1);
    await sb.update();
    assert.equal(updates(), 2);
    assert.equal(sb.stats().consecutiveUpdateFailures, 2);
  });

  it('treats a server that does not answer in time, on its clock, as a failure', async () => {
    handler = () => ({ hang: true });
    const clock = new FakeClock();
    const sb = client({ mode: 'local', timeoutMs: 150, clock });
    const before = server.requests.length;
    const updating = sb.update();
    await until(5_000, 'the update at the server', () => server.requests.length > before);
    clock.advance(150);
    const summary = await updating;
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
    const clock = new FakeClock();
    const first = client({ mode: 'local', dataDir, clock });
    await first.update();
    await first.close();
    assert.deepEqual(
      server.requests.map((r) => r.rpc),
      ['ListHashLists', 'BatchGetHashLists'],
    );
    const second = client({ mode: 'local', dataDir, clock });
    await second.update();
    assert.equal(server.requests.length, 2, 'the minimum wait of the first process still holds, and stored lists need no listing');
    assert.equal(second.listInfo().find((l) => l.name === 'mw-4b')!.entries, 1);
  });
});

describe('SafeBrowsingClient.open', () => {
  it('tries a database that could not be opened again at the next call, rather than failing for ever', async () => {
    handler = () => batch(emptyList('se-4b'), prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
    const parent = await tempDir();
    // The folder's parent is a file for a while (a disk not yet mounted, say): the database cannot be made.
    await writeFile(join(parent, 'mount'), 'not a folder');
    const sb = client({ mode: 'local', dataDir: join(parent, 'mount', 'sbkit') });
    await assert.rejects(sb.checkUrl('http://safe.example/'), DatabaseStorageError);
    await rm(join(parent, 'mount'));
    await sb.update();
    assert.equal((await sb.checkUrl('http://safe.example/')).answeredBy, 'database');
    await sb.close();
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
    assert.ok(!('error' in popular), 'no error key on an answer that met none');
    const bad = await sb.checkUrl(BAD_URL);
    assert.equal(bad.verdict, 'UNSAFE');
    assert.equal(bad.threats[0]!.threatType, 'SOCIAL_ENGINEERING');
    assert.deepEqual(
      server.requests.map((r) => r.rpc),
      ['ListHashLists', 'BatchGetHashLists', 'SearchHashes'],
    );
  });

  it('falls back to the current local lists when the search fails, and backs off searching', async () => {
    handler = (call) =>
      call.rpc === 'BatchGetHashLists'
        ? batch(emptyList('se-4b'), prefixList('mw-4b', 'v1', prefixesOf(BAD)), fullHashList('gc-32b', 'g1', new Uint8Array(0)))
        : { status: 500 };
    const sb = client({ mode: 'realtime' });
    await sb.update();
    const first = await sb.checkUrl('http://safe.example/');
    assert.deepEqual([first.verdict, first.answeredBy, first.error], ['SAFE', 'database', undefined]);
    // Listed locally, and the server could not confirm it: not checked.
    const second = await sb.checkUrl(BAD_URL);
    assert.equal(second.verdict, 'UNKNOWN');
    assert.equal(second.answeredBy, undefined);
    assert.equal(second.error?.code, 'SBKIT_SEARCH_DEFERRED');
    assert.equal(server.requests.filter((r) => r.rpc === 'SearchHashes').length, 1);
    assert.deepEqual([sb.stats().failures, sb.stats().deferred, sb.stats().unknown], [1, 1, 1]);
  });

  it('answers UNKNOWN with the failed search as its error while the lists were never downloaded', async () => {
    handler = () => ({ status: 500 });
    const sb = client({ mode: 'realtime' });
    const result = await sb.checkUrl('http://safe.example/');
    assert.equal(result.verdict, 'UNKNOWN');
    assert.equal(result.error?.code, 'SBKIT_WIRE_RESPONSE_ERROR_STATUS');
    assert.match(result.error.message, /500/);
  });
});

describe('SafeBrowsingClient, no-storage mode (v5)', () => {
  it('keeps no lists, asks the server, and caches answers in memory', async () => {
    handler = () => searchAnswer([]);
    const sb = client({ mode: 'nostorage' });
    assert.deepEqual(sb.listInfo(), []);
    assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'server');
    assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'cache');
    assert.deepEqual(
      server.requests.map((r) => r.rpc),
      ['SearchHashes'],
    );
  });

  it('reads a search answer the server sent in JSON although binary protobuf was asked for', async () => {
    const fullHash = Buffer.from(expressionHashString(BAD), 'latin1').toString('base64');
    const body = JSON.stringify({ fullHashes: [{ fullHash, fullHashDetails: [{ threatType: 'MALWARE' }] }], cacheDuration: '300s' });
    handler = () => ({ status: 200, body, headers: { 'content-type': 'application/json; charset=utf-8' } });
    const result = await client({ mode: 'nostorage' }).checkUrl(BAD_URL);
    assert.equal(server.requests[0]!.responseEncoding, 'protobuf');
    assert.equal(result.verdict, 'UNSAFE');
    assert.deepEqual(
      result.threats.map((t) => t.threatType),
      ['MALWARE'],
    );
  });

  it('answers UNKNOWN with the error, never SAFE, when the server fails', async () => {
    handler = () => ({ status: 502 });
    const result = await client({ mode: 'nostorage' }).checkUrl(BAD_URL);
    assert.equal(result.verdict, 'UNKNOWN');
    assert.match(result.error.message, /502/);
  });
});

describe('SafeBrowsingClient.start (RF-2)', () => {
  it('schedules the first update at a random moment in the first minute', async () => {
    handler = () => batch(emptyList('se-4b'), emptyList('mw-4b'));
    const clock = new FakeClock();
    const sb = client({ mode: 'local', clock, random: () => 0.25 });
    await sb.start();
    assert.equal(sb.nextUpdateAt, clock.now() + 15_000);
    assert.equal(server.requests.length, 0);
    assert.equal(clock.delays.length, 1);
    await sb.close();
  });
});

describe('the public API', () => {
  it('exports the client and the URL pipeline from the package entry, and the server from sbkit/server', async () => {
    const api = await import('../../src/index.ts');
    assert.equal(typeof api.SafeBrowsingClient, 'function');
    assert.equal(api.canonicalizeUrl('HTTP://Example.COM:80'), 'http://example.com/');
    assert.equal(api.urlExpressions('http://a.b.example.com/x').length, 6);
    assert.equal('createServer' in api, false, 'the root entry does not load the server');
    // createServer(options) is public too, with the parts a server is composed of.
    const server = await import('../../src/server/index.ts');
    for (const name of ['createServer', 'LoadControl', 'KeyRing', 'createRelayApp'] as const)
      assert.equal(typeof server[name], 'function', name);
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
    const clock = new FakeClock();
    const sb = client({ mode: 'local', lists: ['mw-4b'], clock, minimumUpdateWaitMs: 5 * MIN });
    const summary = await sb.update();
    assert.equal(round, 2, 'the zero wait of the first answer still meant "come back at once"');
    assert.equal(summary.nextUpdateAt, clock.now() + 5 * MIN);
  });
});

describe('a local database that cannot be written', () => {
  it('takes a list it cannot store for a failed update: old list kept, reported, backed off, no unhandled rejection', async () => {
    const dataDir = await tempDir();
    let version = 0;
    handler = () => {
      version++;
      const entries = version === 1 ? prefixesOf(BAD) : prefixesOf(BAD, 'other.sbtest.example/');
      return batch(prefixList('mw-4b', `v${version}`, entries, { minimumWaitMs: MIN }));
    };
    const clock = new FakeClock();
    const events: ClientEvent[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const sb = client({ mode: 'local', lists: ['mw-4b'], dataDir, clock, random: () => 0, onEvent: (e) => events.push(e) });
      await sb.update();
      // The folder becomes a file: every write now fails with ENOTDIR, as on a disk gone wrong.
      await rm(dataDir, { recursive: true });
      await writeFile(dataDir, 'not a folder');
      clock.advance(30 * MIN);
      await sb.start();
      clock.advance(clock.nextTimerAt()! - clock.now());
      // update() joins the background update under way.
      const summary = await sb.update();
      await new Promise(setImmediate);

      assert.deepEqual(unhandled, []);
      assert.ok(summary.error instanceof DatabaseStorageError, String(summary.error));
      assert.match(summary.error.message, /local database .*: cannot save list mw-4b \(ENOTDIR/);
      const failed = events.filter((e) => e.type === 'update-failed');
      assert.equal(failed.length, 1);
      assert.deepEqual(
        server.requests.map((r) => r.rpc),
        ['ListHashLists', 'BatchGetHashLists', 'BatchGetHashLists'],
      );
      const [info] = sb.listInfo();
      assert.deepEqual([info!.entries, Buffer.from(info!.version, 'base64').toString()], [1, 'v1'], 'the old list is kept');
      assert.deepEqual([sb.stats().updateFailures, sb.stats().consecutiveUpdateFailures], [1, 1]);
      assert.equal(summary.backoffUntil, clock.now() + 15 * MIN);
      assert.equal(clock.delays.at(-1), 15 * MIN, 'the next background update waits for the back-off (RF-4)');
      assert.ok(events.some((e) => e.type === 'state-not-saved'));
      await sb.close();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reports a schedule it cannot save, and the lists it stored stand', async () => {
    const dataDir = await tempDir();
    await mkdir(join(dataDir, 'client-state.json'));
    handler = () => batch(prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
    const events: ClientEvent[] = [];
    const sb = client({ mode: 'local', lists: ['mw-4b'], dataDir, onEvent: (e) => events.push(e) });
    const summary = await sb.update();
    assert.deepEqual(summary.updated, ['mw-4b']);
    assert.match(summary.error!.message, /cannot save the client state/);
    assert.deepEqual(
      events.map((e) => e.type),
      ['damaged-file', 'update', 'state-not-saved'],
    );
    await sb.close();
  });
});

describe("update back-off is the client's, not a list's (RF-4)", () => {
  it('asks for no list while backing off after a failure, and each list still keeps its own wait (RF-3)', async () => {
    let failing = false;
    handler = (call) => {
      if (failing) return { status: 503 };
      assert.equal(call.rpc, 'BatchGetHashLists');
      const names = call.rpc === 'BatchGetHashLists' ? call.request.names : [];
      return batch(
        ...names.map((name) => prefixList(name, 'v1', new Uint32Array(0), { minimumWaitMs: name === 'se-4b' ? 5 * MIN : 30 * MIN })),
      );
    };
    const asked = () => server.requests.flatMap((r) => (r.rpc === 'BatchGetHashLists' ? [r.request.names.join(' ')] : []));
    const clock = new FakeClock();
    const sb = client({ mode: 'local', clock, random: () => 1 });
    await sb.update();
    clock.advance(5 * MIN);
    failing = true;
    const failed = await sb.update();
    assert.deepEqual(asked(), ['se-4b mw-4b', 'se-4b']);
    assert.equal(failed.backoffUntil, clock.now() + 30 * MIN);
    failing = false;
    clock.advance(25 * MIN);
    const held = await sb.update();
    assert.deepEqual(asked(), ['se-4b mw-4b', 'se-4b'], "mw-4b's wait is over, the back-off is not");
    assert.equal(held.backoffUntil, clock.now() + 5 * MIN);
    assert.equal(sb.nextUpdateAt, clock.now() + 5 * MIN);
    clock.advance(5 * MIN);
    const resumed = await sb.update();
    assert.deepEqual(asked(), ['se-4b mw-4b', 'se-4b', 'se-4b mw-4b']);
    assert.equal(resumed.backoffUntil, undefined);
    assert.equal(sb.stats().consecutiveUpdateFailures, 0);
  });
});

describe('the saved request schedule', () => {
  it('counts one that is no schedule as none, says so once, and never spins the update timer', async () => {
    const dataDir = await tempDir();
    const wrong = [
      { notBefore: 'soon' },
      { updates: { waits: { 'mw-4b': 'soon' }, requests: { notBefore: 0, failures: 0 } } },
      { updates: { waits: {}, current: { 'mw-4b': 'soon' }, requests: { notBefore: 0, failures: 0 } } },
      // JSON reads 1e400 as Infinity: written into the file as that text.
      { updates: { waits: {}, requests: { notBefore: 'OVERFLOW', failures: 0 } } },
      { search: { notBefore: null, failures: 0 } },
      { updates: { 'mw-4b': { notBefore: 'soon', failures: 0 } } },
    ];
    for (const state of wrong) {
      await writeFile(join(dataDir, 'client-state.json'), JSON.stringify(state).replace('"OVERFLOW"', '1e400'));
      const clock = new FakeClock();
      const events: ClientEvent[] = [];
      const sb = client({ mode: 'local', lists: ['mw-4b'], dataDir, clock, random: () => 0.5, onEvent: (e) => events.push(e) });
      await sb.start();
      const damaged = events.filter((e) => e.type === 'damaged-file');
      assert.equal(damaged.length, 1, JSON.stringify(state));
      assert.match(damaged[0]!.error.message, /client-state\.json was not loaded \(.+\); it is ignored, and written anew at the next save/);
      assert.deepEqual(clock.delays, [30_000], JSON.stringify(state));
      assert.equal(sb.nextUpdateAt, clock.now() + 30_000);
      await sb.close();
    }
  });
});

describe('list widths (the width comes from the list, not from the server)', () => {
  it('drops a list sent at another width and asks for it from scratch', async () => {
    let round = 0;
    handler = (call) => {
      round++;
      if (round === 1) {
        const hashes = new Uint8Array(Buffer.alloc(8, 7));
        const encoded = encodeRice64(hashes)!;
        return batch(
          create(HashListSchema, {
            name: 'mw-4b',
            version: Buffer.from('wide'),
            compressedAdditions: { case: 'additionsEightBytes', value: encoded },
            sha256Checksum: checksumOf({ width: 8, bytes: hashes }, nodeSha256),
          }),
        );
      }
      assert.equal(call.rpc === 'BatchGetHashLists' && call.request.version[0]!.length, 0, 'asked from scratch');
      return batch(prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }));
    };
    const sb = client({ mode: 'local', lists: ['mw-4b'], random: () => 0 });
    const summary = await sb.update();
    assert.match(summary.failed[0]!.error.message, /width-mismatch/);
    assert.equal(round, 2);
    assert.deepEqual([sb.listInfo()[0]!.width, sb.listInfo()[0]!.entries], [4, 1]);
  });

  it('does not load a stored list of another width than its name gives, and says so', async () => {
    const dataDir = await tempDir();
    const db = await LocalDatabase.open(dataDir);
    const wide = { width: 8 as const, bytes: Buffer.alloc(8, 1) };
    await db.save(StoredHashList.fromSorted('mw-4b', Buffer.from('old'), wide, checksumOf(wide, nodeSha256)), 1);
    const events: ClientEvent[] = [];
    const sb = client({ mode: 'local', lists: ['mw-4b'], dataDir, onEvent: (e) => events.push(e) });
    await sb.open();
    assert.deepEqual([sb.listInfo()[0]!.width, sb.listInfo()[0]!.version], [4, '']);
    assert.match(
      events.find((e) => e.type === 'damaged-file')!.error.message,
      /mw-4b\.sbl was not loaded \(it holds 8-byte hashes, the list 4-byte ones\)/,
    );
  });
});

describe('options that cannot work', () => {
  it('are refused with ClientOptionError', () => {
    const cases: [SafeBrowsingClientOptions, RegExp][] = [
      [{ protocol: 'v4', mode: 'realtime' }, /real-time mode needs the v5 protocol/],
      [{ protocol: 'v4', lists: ['gc-32b'] }, /list "gc-32b" has no v4 equivalent/],
      [{ protocol: 'v4', mode: 'nostorage', lists: ['gc-32b'] }, /list "gc-32b" has no v4 equivalent/],
      [{ protocol: 'webrisk', lists: ['gc-32b'] }, /list "gc-32b" has no Web Risk threat type/],
      [{ protocol: 'webrisk', encoding: 'protobuf' }, /Web Risk is spoken in JSON/],
      [{ server: 'not a url' }, /the server "not a url" is not an http or https URL/],
      [{ server: 'ftp://example.com' }, /not an http or https URL/],
      [{ lists: ['../../etc/passwd'] }, /is not a list name/],
      [{ mode: 'nostorage', lists: ['../../etc/passwd'] }, /is not a list name/],
    ];
    for (const [options, message] of cases)
      assert.throws(
        () => new SafeBrowsingClient(options),
        (err) => err instanceof ClientOptionError && message.test(err.message),
      );
  });

  it('a read-only client leaves its folder alone and refuses to update', async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, 'mw-4b.sbl'), 'damaged');
    const events: ClientEvent[] = [];
    const sb = client({ mode: 'local', lists: ['mw-4b'], dataDir, readOnly: true, onEvent: (e) => events.push(e) });
    await sb.open();
    await assert.rejects(sb.update(), ClientOptionError);
    await assert.rejects(sb.start(), ClientOptionError);
    await sb.close();
    assert.deepEqual(
      events.map((e) => e.type),
      ['damaged-file'],
    );
    assert.deepEqual(await readdir(dataDir), ['mw-4b.sbl']);
    assert.equal(server.requests.length, 0);
  });
});

describe('checkUrls (many URLs, few searches)', () => {
  it('sends the prefixes of many URLs together, SEARCH_PREFIXES_PER_REQUEST to a request', async () => {
    handler = (call) => {
      const asked = call.rpc === 'SearchHashes' ? call.request.hashPrefixes.map((p) => Buffer.from(p).toString('latin1')) : [];
      return searchAnswer(
        asked.includes(expressionHashString(BAD).slice(0, 4)) ? [{ hash: expressionHashString(BAD), threatType: 1 }] : [],
      );
    };
    const urls = [...Array.from({ length: 99 }, (_, i) => `http://host${i}.example/page`), BAD_URL];
    const results = await client({ mode: 'nostorage' }).checkUrls(urls);
    assert.deepEqual(
      results.map((r) => r.url),
      urls,
    );
    assert.deepEqual(
      results.filter((r) => r.verdict === 'UNSAFE').map((r) => r.url),
      [BAD_URL],
    );
    // 100 URLs of two expressions each: 200 prefixes, one request.
    assert.deepEqual(
      server.requests.map((r) => r.rpc === 'SearchHashes' && r.request.hashPrefixes.length),
      [200],
    );
    const more = Array.from({ length: 200 }, (_, i) => `http://more${i}.example/page`);
    await client({ mode: 'nostorage' }).checkUrls(more);
    assert.deepEqual(
      server.requests.slice(1).map((r) => r.rpc === 'SearchHashes' && r.request.hashPrefixes.length),
      [SEARCH_PREFIXES_PER_REQUEST, 400 - SEARCH_PREFIXES_PER_REQUEST],
    );
  });

  it('rejects an unusable URL before asking anything', async () => {
    handler = () => searchAnswer([]);
    await assert.rejects(client({ mode: 'nostorage' }).checkUrls(['http://a.example/', 'javascript:alert(1)']), /invalid URL/);
    assert.equal(server.requests.length, 0);
  });

  // Every URL the verdict checkUrl gives it, in every mode: verdicts-by-protocol.test.ts, over v5 and Web Risk.

  it('gives thousands of URLs checked in bulk against large local lists the verdicts checkUrl gives them', async () => {
    // Large enough that a list takes its bucketed form and the URLs are looked up in bulk.
    const hosts = Array.from({ length: 400 }, (_, i) => `h${i}.example`);
    const urls = Array.from(
      { length: 3000 },
      (_, i) => `http://${i % 5 === 0 ? 'x.' : ''}${hosts[(i * 7) % hosts.length]}/p${i % 13}/q.html?i=${i % 3}`,
    );
    const inSe = ['h3.example/', 'h10.example/p4/', 'x.h21.example/p1/q.html?i=1'];
    const inMw = ['h7.example/p2/q.html', 'h10.example/'];
    let x = 99;
    const filler = Array.from({ length: 150_000 }, () => ((x = (x * 1103515245 + 12345) >>> 0), x));
    const listed = (expressions: string[]) => Uint32Array.from(new Set([...filler, ...prefixesOf(...expressions)])).sort();
    const found = [...inSe, ...inMw].map((e) => expressionHashString(e));
    handler = (call) => {
      if (call.rpc === 'BatchGetHashLists') {
        return batch(
          ...call.request.names.map((name) => prefixList(name, 'v1', listed(name === 'se-4b' ? inSe : inMw), { minimumWaitMs: 30 * MIN })),
        );
      }
      const asked = new Set(call.rpc === 'SearchHashes' ? call.request.hashPrefixes.map((p) => Buffer.from(p).toString('latin1')) : []);
      return searchAnswer(
        found
          .filter((hash) => asked.has(hash.slice(0, 4)))
          .map((hash) => ({ hash, threatType: inSe.some((e) => expressionHashString(e) === hash) ? 2 : 1 })),
      );
    };
    const single = client({ mode: 'local' });
    const batched = client({ mode: 'local' });
    await Promise.all([single.update(), batched.update()]);
    const one: CheckResult[] = [];
    for (const u of urls) one.push(await single.checkUrl(u));
    const many = await batched.checkUrls(urls);
    // Who answered, and which threats a URL already shown unsafe stops at, depend on what was asked before.
    const summary = (results: CheckResult[]) => results.map((r) => [r.url, r.canonicalUrl, r.verdict]);
    assert.deepEqual(summary(many), summary(one));
    for (const result of many) {
      const expressions = urlExpressions(result.url);
      const listedHere = [...inSe, ...inMw].filter((e) => expressions.includes(e));
      assert.equal(result.verdict, listedHere.length > 0 ? 'UNSAFE' : 'SAFE', result.url);
      for (const threat of result.threats) assert.ok(listedHere.includes(threat.expression), `${result.url}: ${threat.expression}`);
    }
    assert.ok(many.filter((r) => r.verdict === 'UNSAFE').length >= 10, 'listed URLs are among them');
    await Promise.all([single.close(), batched.close()]);
  });
});
