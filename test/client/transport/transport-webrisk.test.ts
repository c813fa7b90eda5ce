import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { ListTooLargeError, WebRiskListUpdateError } from '../../../src/client/client-errors.ts';
import type { ClientEvent } from '../../../src/client/options.ts';
import { SafeBrowsingClient } from '../../../src/client/safe-browsing-client.ts';
import type { FetchedList, ListState, ServerSettings } from '../../../src/client/transport/transport.ts';
import { WebRiskTransport } from '../../../src/client/transport/transport-webrisk.ts';
import { NoWebRiskListError } from '../../../src/lists/web-risk-lists.ts';
import {
  type ComputeThreatListDiffResponse,
  SearchHashesResponseSchema,
  ThreatEntryAdditionsSchema,
  type ThreatType,
} from '../../../src/proto/webrisk.ts';
import { checksumOf, HashList, type HashListUpdate } from '../../../src/store/hash-list.ts';
import { expressionHashString, nodeSha256, prefix32 } from '../../../src/url/hash.ts';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../../src/wire/duration-caps.ts';
import { WireResponseError } from '../../../src/wire/wire-error.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { diffAnswer, type FakeWebRisk, searchAnswer, startFakeWebRisk, type WebRiskAnswer, type WebRiskCall } from '../fake-web-risk.ts';
import { prefixesOf } from '../lists-fixture.ts';

const MIN = 60_000;
const clock = new FakeClock();
let server: FakeWebRisk;
let script: (call: WebRiskCall) => WebRiskAnswer;

before(async () => {
  server = await startFakeWebRisk((call) => script(call));
});
after(() => server.close());
afterEach(() => {
  server.calls.length = 0;
  server.maxInFlight = 0;
  assert.deepEqual(server.scriptErrors.splice(0), []);
});

function settings(overrides: Partial<ServerSettings> = {}): ServerSettings {
  return {
    serverUrl: server.url,
    apiKey: 'test-key',
    // The client's default; Web Risk is JSON whatever a caller's settings say.
    encoding: 'protobuf',
    userAgent: 'sbkit-test',
    timeoutMs: 5000,
    maxResponseBytes: 1 << 20,
    sizeConstraints: { maxUpdateEntries: 0, maxDatabaseEntries: 0 },
    maxListEntries: 1 << 20,
    ...overrides,
  };
}

const state = (name: string, version = ''): ListState => ({ name, version: Buffer.from(version), width: 4 });

function updateOf(fetched: FetchedList | undefined): HashListUpdate & { minimumWaitMs: number | undefined } {
  assert.ok(
    fetched !== undefined && 'update' in fetched,
    `expected an update, got ${fetched && 'error' in fetched ? fetched.error.message : 'nothing'}`,
  );
  return { ...fetched.update, minimumWaitMs: fetched.minimumWaitMs };
}

function errorOf(fetched: FetchedList | undefined): Error {
  assert.ok(fetched !== undefined && 'error' in fetched, 'expected an error');
  return fetched.error;
}

const THREAT_TYPE = { 'mw-4b': 1, 'se-4b': 2, 'uws-4b': 3 } as const;

describe('WebRiskTransport.fetchUpdates (threatLists:computeDiff)', () => {
  it('asks once per list, by threat type number, in JSON with the key, and reads a RESET as a full update', async () => {
    const mw = prefixesOf('malware.example/', 'other.example/');
    script = (call) =>
      call.threatType === THREAT_TYPE['mw-4b']
        ? diffAnswer('mw-1', mw, { nextDiffAt: clock.now() + 30 * MIN })
        : diffAnswer('se-1', new Uint32Array(0));
    const transport = new WebRiskTransport(settings(), ['se-4b', 'mw-4b'], clock);
    const response = await transport.fetchUpdates([state('se-4b'), state('mw', '')]);
    assert.deepEqual(
      server.calls.map((c) => [
        c.method,
        c.threatType,
        c.versionToken.length,
        c.params.get('key'),
        c.params.getAll('constraints.supportedCompressions'),
      ]),
      [
        ['computeDiff', 2, 0, 'test-key', ['1', '2']],
        ['computeDiff', 1, 0, 'test-key', ['1', '2']],
      ],
    );
    const update = updateOf(response.lists[1]);
    assert.equal(response.lists[1]!.name, 'mw');
    assert.equal(update.partial, false);
    assert.deepEqual(update.additions, { width: 4, values: mw });
    assert.equal(Buffer.from(update.version).toString(), 'mw-1');
    // RF-3, SB-12: recommended_next_diff is a moment; the wait runs from the client's clock.
    assert.equal(update.minimumWaitMs, 30 * MIN);
    assert.equal(updateOf(response.lists[0]).minimumWaitMs, undefined);
  });

  it('sends the version token it holds and reads a DIFF: Rice or raw removals and additions, applied by the store with the checksum', async () => {
    const before = prefixesOf('a.example/', 'b.example/', 'c.example/');
    const added = prefixesOf('d.example/');
    const afterDiff = Uint32Array.from([before[0]!, before[2]!, added[0]!]).sort();
    for (const raw of [false, true]) {
      script = (call) => {
        assert.equal(call.versionToken.toString(), 'v1');
        return diffAnswer('v2', added, { diff: true, removals: [1], rawRemovals: raw, rawAdditions: raw, after: afterDiff });
      };
      const transport = new WebRiskTransport(settings(), ['se-4b'], clock);
      const update = updateOf((await transport.fetchUpdates([state('se-4b', 'v1')])).lists[0]);
      assert.equal(update.partial, true);
      assert.deepEqual([...update.removals], [1]);
      const held = HashList.fromSorted(
        'se-4b',
        Buffer.from('v1'),
        { width: 4, values: before },
        checksumOf({ width: 4, values: before }, nodeSha256),
      );
      assert.deepEqual(held.applyUpdate(update, nodeSha256).sortedHashes(), { width: 4, values: afterDiff });
    }
  });

  it('hands a checksum that does not match to the store, which refuses it (SB-9: the list is then fetched in full)', async () => {
    script = () => diffAnswer('v2', prefixesOf('x.example/'), { checksum: new Uint8Array(32) });
    const update = updateOf((await new WebRiskTransport(settings(), [], clock).fetchUpdates([state('mw-4b')])).lists[0]);
    assert.throws(() => HashList.empty('mw-4b', 4).applyUpdate(update, nodeSha256), { code: 'SBKIT_HASH_LIST_UPDATE_CHECKSUM_MISMATCH' });
  });

  it('cuts a recommended next diff years away to a day, and one in the past to none', async () => {
    const transport = new WebRiskTransport(settings(), [], clock);
    for (const [at, wait] of [
      [Date.UTC(9999, 0, 1), MAX_MINIMUM_WAIT_MS],
      [clock.now() - MIN, 0],
      // 0001-01-01, the first moment a Timestamp names.
      [-62_135_596_800_000, 0],
    ] as const) {
      script = () => diffAnswer('v1', new Uint32Array(0), { nextDiffAt: at });
      assert.equal(updateOf((await transport.fetchUpdates([state('uws-4b')])).lists[0]).minimumWaitMs, wait);
    }
  });

  it('refuses additions that are not 4-byte prefixes, unknown response types and answers without a token, list by list', async () => {
    const changed = (change: (answer: ComputeThreatListDiffResponse) => void) => {
      const answer = diffAnswer('v1', new Uint32Array(0));
      change(answer);
      return answer;
    };
    const raw = (prefixSize: number, bytes: number) =>
      create(ThreatEntryAdditionsSchema, { rawHashes: [{ prefixSize, rawHashes: new Uint8Array(bytes) }] });
    const cases: [ComputeThreatListDiffResponse, string][] = [
      [changed((a) => (a.additions = raw(8, 16))), 'prefix-size'],
      [changed((a) => (a.additions = raw(4, 6))), 'malformed-entry-set'],
      [changed((a) => (a.responseType = 0)), 'unknown-response-type'],
      [changed((a) => (a.newVersionToken = new Uint8Array(0))), 'missing-state'],
    ];
    for (const [answer, reason] of cases) {
      script = (call) => (call.threatType === THREAT_TYPE['se-4b'] ? answer : diffAnswer('mw-1', new Uint32Array(0)));
      const response = await new WebRiskTransport(settings(), [], clock).fetchUpdates([state('se-4b'), state('mw-4b')]);
      const error = errorOf(response.lists[0]);
      assert.ok(error instanceof WebRiskListUpdateError && error.reason === reason, `${reason}: ${error.message}`);
      assert.equal(error.code, `SBKIT_WEB_RISK_LIST_UPDATE_${reason.toUpperCase().replace(/-/g, '_')}`);
      updateOf(response.lists[1]);
    }
  });

  it('refuses an answer announcing more entries than maxListEntries before decoding it', async () => {
    script = () => diffAnswer('v1', prefixesOf('a.example/', 'b.example/', 'c.example/'));
    const response = await new WebRiskTransport(settings({ maxListEntries: 2 }), [], clock).fetchUpdates([state('se-4b')]);
    assert.ok(errorOf(response.lists[0]) instanceof ListTooLargeError);
  });

  it('refuses lists Web Risk does not have, and a list asked twice, without sending them', async () => {
    assert.throws(() => new WebRiskTransport(settings(), ['se-4b', 'gc-32b'], clock), NoWebRiskListError);
    script = () => diffAnswer('v1', new Uint32Array(0));
    const response = await new WebRiskTransport(settings(), [], clock).fetchUpdates([
      state('pha-4b'),
      state('se'),
      state('se-4b'),
      { name: 'mw-4b', version: new Uint8Array(0), width: 32 },
    ]);
    assert.ok(errorOf(response.lists[0]) instanceof NoWebRiskListError);
    assert.match(errorOf(response.lists[0]).message, /Web Risk serves se-4b, mw-4b, uws-4b/);
    updateOf(response.lists[1]);
    assert.equal((errorOf(response.lists[2]) as WebRiskListUpdateError).reason, 'repeated-list');
    assert.equal((errorOf(response.lists[3]) as WebRiskListUpdateError).reason, 'not-four-bytes');
    assert.equal(server.calls.length, 1);
  });

  it('fails the whole update when a request fails: a 503 is no bad diff to drop a list for', async () => {
    script = (call) => (call.threatType === THREAT_TYPE['mw-4b'] ? { status: 503 } : diffAnswer('v1', new Uint32Array(0)));
    await assert.rejects(new WebRiskTransport(settings(), [], clock).fetchUpdates([state('se-4b'), state('mw-4b')]), WireResponseError);
  });

  it('has no listing of lists: it names the three Web Risk has', async () => {
    assert.deepEqual(await new WebRiskTransport(settings(), [], clock).listNames(), ['se-4b', 'mw-4b', 'uws-4b']);
    assert.equal(server.calls.length, 0);
  });
});

describe('WebRiskTransport.search (hashes:search)', () => {
  const BAD = expressionHashString('malware.example/');

  it('asks once per prefix, a few at a time, about the threat types of its lists, and merges the answers', async () => {
    const prefixes = Array.from({ length: 20 }, (_, i) => i + 1).concat(prefix32(BAD));
    script = (call) =>
      call.hashPrefix.equals(Buffer.from(BAD.slice(0, 4), 'latin1'))
        ? searchAnswer([{ hash: BAD, threatTypes: [1] }], clock.now() + 10 * MIN, clock.now() + 5 * MIN)
        : searchAnswer([], clock.now() + 20 * MIN);
    const result = await new WebRiskTransport(settings(), ['mw-4b', 'uws-4b'], clock).search(prefixes, []);
    assert.equal(server.calls.length, prefixes.length);
    assert.ok(server.maxInFlight <= 6, `${server.maxInFlight} requests at once`);
    for (const call of server.calls) {
      assert.equal(call.hashPrefix.length, 4);
      assert.deepEqual(call.threatTypes, [1, 3]);
      assert.equal(call.params.getAll('hashPrefix').length, 1);
    }
    assert.deepEqual(result.fullHashes, [
      { fullHash: BAD, details: [{ threatType: 'MALWARE', attributes: [] }], cacheDurationMs: 10 * MIN },
    ]);
    assert.equal(result.serverFullHashCount, 1);
    // The other hashes under the prefixes: until the soonest negative expiry of all the answers.
    assert.equal(result.negativeCacheDurationMs, 5 * MIN);
    assert.equal(result.cacheDurationMs, 5 * MIN);
  });

  it('cuts expiries years away to a day, takes past ones as none, and ignores hashes that are not 32 bytes or of types it does not know', async () => {
    script = () =>
      create(SearchHashesResponseSchema, {
        threats: [
          { hash: Buffer.from(BAD, 'latin1'), threatTypes: [2, 4, 9 as ThreatType], expireTime: timestampFromMs(Date.UTC(9999, 0, 1)) },
          { hash: Buffer.from(BAD.slice(0, 16), 'latin1'), threatTypes: [1] },
          { hash: Buffer.from(expressionHashString('x.example/'), 'latin1'), threatTypes: [4] },
        ],
        negativeExpireTime: timestampFromMs(clock.now() - MIN),
      });
    const result = await new WebRiskTransport(settings(), [], clock).search([prefix32(BAD)], []);
    assert.deepEqual(result.fullHashes, [
      { fullHash: BAD, details: [{ threatType: 'SOCIAL_ENGINEERING', attributes: [] }], cacheDurationMs: MAX_CACHE_DURATION_MS },
    ]);
    assert.equal(result.serverFullHashCount, 3);
    assert.equal(result.negativeCacheDurationMs, 0);
    assert.deepEqual(server.calls[0]!.threatTypes, [2, 1, 3]);
  });

  it('holds any timestamp a server sends to [0, a day] (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // What JSON can carry: 0001-01-01 to 9999-12-31.
        fc.bigInt({ min: -62_135_596_800n, max: 253_402_300_799n }),
        fc.integer({ min: 0, max: 999_999_999 }),
        async (seconds, nanos) => {
          script = () =>
            create(SearchHashesResponseSchema, {
              threats: [{ hash: Buffer.from(BAD, 'latin1'), threatTypes: [1], expireTime: { seconds, nanos } }],
              negativeExpireTime: { seconds, nanos },
            });
          const result = await new WebRiskTransport(settings(), [], clock).search([prefix32(BAD)], []);
          for (const ms of [result.cacheDurationMs, result.negativeCacheDurationMs, result.fullHashes[0]?.cacheDurationMs]) {
            assert.ok(ms !== undefined && ms >= 0 && ms <= MAX_CACHE_DURATION_MS, String(ms));
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('fails the search when any of its requests fails', async () => {
    script = (call) => (call.hashPrefix.readUInt32BE(0) === 7 ? { status: 500 } : searchAnswer([], clock.now() + MIN));
    await assert.rejects(new WebRiskTransport(settings(), [], clock).search([5, 6, 7, 8], []), WireResponseError);
  });
});

describe('a client over Web Risk (the store and schedules behind the transport)', () => {
  const client = () => new SafeBrowsingClient({ server: server.url, protocol: 'webrisk', lists: ['mw-4b'], clock, random: () => 0.5 });

  it('applies a RESET then a DIFF with removals, sending its version token, and asks no sooner than recommended', async () => {
    const first = prefixesOf('a.example/', 'b.example/', 'c.example/');
    const second = Uint32Array.from([first[0]!, first[2]!]);
    let round = 0;
    script = (call) => {
      round++;
      if (round === 1) return diffAnswer('v1', first, { nextDiffAt: clock.now() + 20 * MIN });
      assert.equal(call.versionToken.toString(), 'v1');
      return diffAnswer('v2', new Uint32Array(0), { diff: true, removals: [1], after: second, nextDiffAt: clock.now() + 20 * MIN });
    };
    const sb = client();
    await sb.update();
    assert.equal(sb.listInfo()[0]!.entries, 3);
    clock.advance(20 * MIN - 1);
    await sb.update();
    assert.equal(round, 1, 'nothing asked before recommended_next_diff');
    clock.advance(1);
    const summary = await sb.update();
    assert.deepEqual(summary.updated, ['mw-4b']);
    assert.equal(sb.listInfo()[0]!.entries, 2);
    assert.equal(Buffer.from(sb.listInfo()[0]!.version, 'base64').toString(), 'v2');
    await sb.close();
  });

  it('drops a list whose checksum does not match, and asks for it from scratch', async () => {
    const events: ClientEvent[] = [];
    script = (call) =>
      call.versionToken.length === 0
        ? diffAnswer('v1', prefixesOf('a.example/'), { nextDiffAt: clock.now() + MIN })
        : diffAnswer('v2', prefixesOf('b.example/'), { diff: true, checksum: new Uint8Array(32) });
    const sb = new SafeBrowsingClient({ server: server.url, protocol: 'webrisk', lists: ['mw-4b'], clock, onEvent: (e) => events.push(e) });
    await sb.update();
    clock.advance(MIN);
    const summary = await sb.update();
    assert.equal(summary.failed[0]?.error.code, 'SBKIT_HASH_LIST_UPDATE_CHECKSUM_MISMATCH');
    assert.ok(events.some((e) => e.type === 'list-dropped'));
    await sb.update();
    assert.deepEqual(
      server.calls.map((c) => c.versionToken.toString()),
      ['', 'v1', ''],
    );
    await sb.close();
  });

  it('keeps a search answer until its expire_time, and an unlisted prefix until negative_expire_time', async () => {
    const BAD = 'malware.example/';
    script = (call) =>
      call.method === 'computeDiff'
        ? diffAnswer('v1', prefixesOf(BAD), { nextDiffAt: clock.now() + 60 * MIN })
        : searchAnswer([{ hash: expressionHashString(BAD), threatTypes: [1] }], clock.now() + 10 * MIN, clock.now() + 2 * MIN);
    const sb = client();
    await sb.update();
    assert.equal((await sb.checkUrl(`http://${BAD}`)).answeredBy, 'server');
    clock.advance(2 * MIN);
    // The whole entry holds only as long as its negative expiry: other hashes under the prefix may since be listed.
    assert.equal((await sb.checkUrl(`http://${BAD}`)).answeredBy, 'cache');
    clock.advance(1);
    const again = await sb.checkUrl(`http://${BAD}`);
    assert.deepEqual([again.answeredBy, again.verdict], ['server', 'UNSAFE']);
    await sb.close();
  });
});
