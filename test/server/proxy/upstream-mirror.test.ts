// A mirror of Web Risk (listed-searches.ts: its lists are the upstream's whole database) whose list
// updates start failing, against the scripted Web Risk server of the client tests and a fake clock: a
// prefix no list holds is answered locally only while every copy is current by the mirroring client's
// rules; past that, or once a list is dropped (SB-9), it goes upstream, and an upstream that cannot
// answer makes the search 503, never an unlisted answer. The lists themselves are served only while
// their copies are current (copy-currency.ts): a copy whose updates stopped gets 503 in every protocol,
// and so does a dropped one, rather than an old copy with a fresh minimum wait. Instances sharing Redis
// judge the copy by when the upstream sent it, whichever instance fetched it.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ClientEvent } from '../../../src/client/options.ts';
import { HashListUpdateError, type SortedHashes } from '../../../src/store/hash-list.ts';
import type { ListHistory } from '../../../src/server/lists/list-history.ts';
import { memorySnapshotStore, type SnapshotStore } from '../../../src/server/lists/snapshot-store.ts';
import { SnapshotStoreError } from '../../../src/server/lists/snapshot-store-error.ts';
import { RedisSnapshotStore } from '../../../src/server/redis/redis-snapshot-store.ts';
import type { ServerStatus } from '../../../src/server/web/status.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from '../redis-fixture.ts';
import { MIN_CURRENT_MS } from '../../../src/client/updates/update-schedule.ts';
import { createApp } from '../../../src/server/http/app.ts';
import { UpstreamMirror } from '../../../src/server/proxy/upstream-mirror.ts';
import { diffAnswer, type FakeWebRisk, searchAnswer, startFakeWebRisk, type WebRiskCall } from '../../client/fake-web-risk.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const MIN = 60_000;
/** Web Risk's threat types by number (MALWARE, SOCIAL_ENGINEERING, UNWANTED_SOFTWARE), each list one prefix. */
const LISTED = new Map([
  [1, 0x11111111],
  [2, 0x22222222],
  [3, 0x33333333],
]);

/** What the scripted upstream does: answer, fail every request, or send MALWARE a diff whose checksum is wrong. */
let upstreamState: 'answering' | 'down' | 'malware-mismatch';
/** A prefix MALWARE lists beside its own, from some moment on (version v2). */
let malwareAdded: number | undefined;
let fake: FakeWebRisk;
let clock: FakeClock;

/** Web Risk's wait before the next diff: five minutes, so that a copy stays current an hour (currentForMs). */
const next = () => ({ nextDiffAt: clock.now() + 5 * MIN });

function answer(call: WebRiskCall) {
  if (upstreamState === 'down') return { status: 503 };
  if (call.method === 'search') return searchAnswer([], clock.now() + 5 * MIN);
  const prefix = Uint32Array.of(LISTED.get(call.threatType)!);
  if (upstreamState === 'malware-mismatch' && call.threatType === 1)
    return call.versionToken.length > 0
      ? diffAnswer('v2', Uint32Array.of(0x11111112), { ...next(), diff: true, checksum: new Uint8Array(32) })
      : { status: 503 };
  if (call.threatType === 1 && malwareAdded !== undefined) return diffAnswer('v2', Uint32Array.of(malwareAdded, prefix[0]!), next());
  return diffAnswer('v1', prefix, next());
}

let mirror: UpstreamMirror;
let app: FastifyInstance;
/** Why the mirroring client dropped each list it dropped (SB-9). */
let dropped: string[];

before(async () => {
  fake = await startFakeWebRisk(answer);
});
after(async () => {
  await fake.close();
});
afterEach(async () => {
  await app.close();
  await mirror.close();
  assert.deepEqual(fake.scriptErrors.splice(0), [], 'the scripted upstream failed');
});

/** A mirror of the fake's three lists, each copied once, published through `store` (this process's memory by default). */
async function mirrorWithCopies(store?: SnapshotStore): Promise<void> {
  upstreamState = 'answering';
  malwareAdded = undefined;
  clock = new FakeClock();
  dropped = [];
  const onEvent = (event: ClientEvent) => {
    if (event.type === 'list-dropped')
      dropped.push(`${event.list}: ${event.error instanceof HashListUpdateError ? event.error.reason : event.error.message}`);
  };
  mirror = await UpstreamMirror.start({ url: fake.url, protocol: 'webrisk', firstUpdateWindowMs: 0, clock, onEvent, store });
  await mirror.update();
  app = createApp({ catalog: mirror.catalog, fullHashes: mirror.fullHashes, listUnavailable: (name) => mirror.listUnavailable(name) });
}

/** A mirror with copies whose next update of MALWARE fails its checksum: mw-4b dropped (SB-9), its full fetch refused. */
async function mirrorThatDroppedMalware(): Promise<void> {
  await mirrorWithCopies();
  upstreamState = 'malware-mismatch';
  await clock.advanceAsync(5 * MIN + 1_000);
  await mirror.update();
  assert.deepEqual(dropped, ['mw-4b: checksum-mismatch']);
}

/** A v5 hashes:search of one prefix at the proxy: its status, and whether the upstream was searched for it. */
async function search(prefix: number): Promise<{ status: number; wentUp: boolean }> {
  const from = fake.calls.length;
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(prefix);
  const response = await app.inject({ url: `/v5/hashes:search?hashPrefixes=${encodeURIComponent(bytes.toString('base64'))}&alt=json` });
  const wentUp = fake.calls.slice(from).some((call) => call.method === 'search' && call.hashPrefix.equals(bytes));
  return { status: response.statusCode, wentUp };
}

describe('a Web Risk mirror whose list updates fail', () => {
  it('answers an unlisted prefix itself while its copies are current, then sends it upstream', async () => {
    await mirrorWithCopies();
    assert.deepEqual(await search(0x0a000001), { status: 200, wentUp: false }, 'unlisted, answered from the current copies');
    assert.deepEqual(await search(0x11111111), { status: 200, wentUp: true }, 'a listed prefix goes up');

    upstreamState = 'down';
    await clock.advanceAsync(MIN_CURRENT_MS - MIN);
    await mirror.update();
    assert.deepEqual(await search(0x0a000002), { status: 200, wentUp: false }, 'failed updates, but the copies are still current');

    await clock.advanceAsync(2 * MIN);
    await mirror.update();
    upstreamState = 'answering';
    assert.deepEqual(await search(0x0a000003), { status: 200, wentUp: true }, 'the copies are no longer current: asked upstream');
  });

  it('answers 503 for an unlisted prefix once its copies are not current and the upstream cannot answer', async () => {
    await mirrorWithCopies();
    upstreamState = 'down';
    await clock.advanceAsync(MIN_CURRENT_MS + MIN);
    await mirror.update();
    assert.deepEqual(await search(0x0a000004), { status: 503, wentUp: true });
  });

  it('sends an unlisted prefix upstream once a list was dropped after a checksum mismatch, the others current', async () => {
    await mirrorThatDroppedMalware();
    assert.equal(mirror.listReady('mw-4b'), true, 'the old copy of mw-4b is still published');
    upstreamState = 'answering';
    assert.deepEqual(await search(0x0a000005), { status: 200, wentUp: true });
  });
});

/**
 * Moves the clock to `of`'s next update and lets that update finish: it runs against a real loopback
 * server, and moving the clock on while it does would time it out (10 s by the same clock).
 */
async function nextUpdate(of: UpstreamMirror): Promise<void> {
  await clock.advanceAsync(Math.max(0, of.upstream.nextUpdateAt()! - clock.now()));
  await of.update();
}

/** The list RPCs of the three protocols, each asking for MALWARE (mw-4b). */
const MALWARE_LIST_CALLS = {
  webRisk: { url: '/v1/threatLists:computeDiff?threatType=MALWARE&constraints.supportedCompressions=RAW' },
  v4: {
    method: 'POST' as const,
    url: '/v4/threatListUpdates:fetch?alt=json',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      client: { clientId: 'test', clientVersion: '1' },
      listUpdateRequests: [
        { threatType: 'MALWARE', platformType: 'ANY_PLATFORM', threatEntryType: 'URL', constraints: { supportedCompressions: ['RAW'] } },
      ],
    }),
  },
  v5: { url: '/v5/hashLists:batchGet?names=mw-4b&alt=json' },
};

/** Each protocol's list RPC for MALWARE at `on`: its status, Retry-After and error message. */
async function malwareListAnswers(on: FastifyInstance): Promise<Record<string, { status: number; retryAfter?: string; message?: string }>> {
  const answers: Record<string, { status: number; retryAfter?: string; message?: string }> = {};
  for (const [protocol, request] of Object.entries(MALWARE_LIST_CALLS)) {
    const response = await on.inject(request);
    answers[protocol] =
      response.statusCode === 200
        ? { status: 200 }
        : {
            status: response.statusCode,
            retryAfter: String(response.headers['retry-after']),
            message: response.json<{ error: { message: string } }>().error.message,
          };
  }
  return answers;
}

/** What `on` answers each protocol's list RPC when all three agree; fails when they do not. */
async function malwareListAnswer(on: FastifyInstance): Promise<{ status: number; retryAfter?: string; message?: string }> {
  const answers = await malwareListAnswers(on);
  assert.deepEqual(answers.v4, answers.webRisk, 'v4 answers as Web Risk does');
  assert.deepEqual(answers.v5, answers.webRisk, 'v5 answers as Web Risk does');
  return answers.webRisk!;
}

describe('a mirror whose copy of a list is not current', () => {
  it('serves it while current, then answers its list RPCs 503 naming it and why, until an update succeeds', async () => {
    await mirrorWithCopies();
    const copiedAt = clock.now();
    upstreamState = 'down';
    await clock.advanceAsync(MIN_CURRENT_MS - MIN);
    await mirror.update();
    assert.deepEqual(await malwareListAnswer(app), { status: 200 }, 'failed updates, but the copy is still current');

    // The reviewer's case: ten times as long, and every client taking the copy would count it current anew.
    await clock.advanceAsync(10 * MIN_CURRENT_MS);
    await mirror.update();
    const refused = await malwareListAnswer(app);
    assert.equal(refused.status, 503);
    const retryAfter = Number(refused.retryAfter);
    assert.ok(
      retryAfter >= 60 && retryAfter <= 900,
      `Retry-After ${refused.retryAfter}: the mirror's next update, within what clients take`,
    );
    assert.match(
      refused.message!,
      new RegExp(
        `copy of the upstream's mw-4b is not current: the upstream sent it at ${new Date(copiedAt).toISOString()}, 659 minutes ago`,
      ),
    );
    // The listing still names it: the upstream has the list, only this copy of it is old.
    assert.equal((await app.inject({ url: '/v5/hashLists?alt=json' })).statusCode, 200);
    const status = (await app.inject({ url: '/status.json' })).json<ServerStatus>();
    assert.deepEqual(status.lists.map((list) => [list.name, /is not current/.test(list.unavailable ?? '')]).sort(), [
      ['mw-4b', true],
      ['se-4b', true],
      ['uws-4b', true],
    ]);
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200, 'readiness is about a first copy: /readyz is not given it here');

    upstreamState = 'answering';
    await nextUpdate(mirror);
    assert.deepEqual(await malwareListAnswer(app), { status: 200 }, 'updated again: served again');
  });

  it('answers the list RPCs of a dropped list 503 until it is fetched again in full', async () => {
    await mirrorThatDroppedMalware();
    const refused = await malwareListAnswer(app);
    assert.equal(refused.status, 503);
    assert.match(
      refused.message!,
      /this server dropped its copy of the upstream's mw-4b at .*, when an update did not apply to it \(SB-9\)/,
    );
    const seAnswer = await app.inject({ url: '/v5/hashLists:batchGet?names=se-4b&alt=json' });
    assert.equal(seAnswer.statusCode, 200, 'the other lists are served');

    upstreamState = 'answering';
    await nextUpdate(mirror);
    assert.deepEqual(await malwareListAnswer(app), { status: 200 });
  });

  it('sends an unlisted prefix upstream while its newest copy could not be published, the old copy still current', async () => {
    let refusing = false;
    const refusingStore: SnapshotStore = {
      ...memorySnapshotStore,
      publishServed: (history: ListHistory, served: SortedHashes, receivedAt: number) =>
        refusing
          ? Promise.reject(new SnapshotStoreError('unavailable', 'Redis at redis://127.0.0.1:1: connection refused'))
          : memorySnapshotStore.publishServed(history, served, receivedAt),
    };
    await mirrorWithCopies(refusingStore);
    refusing = true;
    malwareAdded = 0x0a000006;
    await clock.advanceAsync(5 * MIN + 1_000);
    await mirror.update();
    assert.equal(mirror.upstream.listCurrent('mw-4b'), true, "the client holds the upstream's current copy, which lists the prefix");
    assert.deepEqual(await search(0x0a000006), { status: 200, wentUp: true }, 'the published copy lacks it: asked upstream');
    assert.deepEqual(await malwareListAnswer(app), { status: 200 }, 'the published copy, an update old, is still current');

    refusing = false;
    await clock.advanceAsync(5 * MIN + 1_000);
    await mirror.update();
    assert.deepEqual(await search(0x0a000007), { status: 200, wentUp: false }, 'published: unlisted prefixes answered here again');
  });
});

describe('mirrors sharing their copies through Redis', () => {
  const keyPrefix = uniqueKeyPrefix();
  let down: FakeWebRisk;

  before(async () => {
    await ensureRedis();
    down = await startFakeWebRisk(() => ({ status: 503 }));
  });
  after(async () => {
    await down.close();
    await deleteKeys(keyPrefix);
  });

  it('serve a copy another instance fetched as current while the upstream sent it recently, whoever fetched it', async () => {
    const [storeA, storeB] = [
      await RedisSnapshotStore.connect({ url: REDIS_URL, keyPrefix, refreshMs: 0 }),
      await RedisSnapshotStore.connect({ url: REDIS_URL, keyPrefix, refreshMs: 0 }),
    ];
    await mirrorWithCopies(storeA);
    // B's own updates never succeed (its upstream answers 503): what it serves is A's copy.
    const b = await UpstreamMirror.start({ url: down.url, protocol: 'webrisk', firstUpdateWindowMs: 0, clock, store: storeB });
    const appB = createApp({ catalog: b.catalog, fullHashes: b.fullHashes, listUnavailable: (name) => b.listUnavailable(name) });
    try {
      await b.update();
      assert.deepEqual(await malwareListAnswer(appB), { status: 200 }, "A's copy, sent a moment ago");

      // A keeps fetching the same content for twice the time B alone could vouch for a copy.
      const start = clock.now();
      while (clock.now() - start < 2 * MIN_CURRENT_MS) {
        await nextUpdate(mirror);
        await storeB.refresh();
      }
      await b.update();
      assert.deepEqual(await malwareListAnswer(appB), { status: 200 }, 'the upstream sent the same content again a moment ago');

      // A's updates stop too: an hour on, the copy is no instance's current one.
      upstreamState = 'down';
      await clock.advanceAsync(MIN_CURRENT_MS - 11 * MIN);
      await storeB.refresh();
      assert.deepEqual(await malwareListAnswer(appB), { status: 200 });
      await clock.advanceAsync(12 * MIN);
      await storeB.refresh();
      const refused = await malwareListAnswer(appB);
      assert.equal(refused.status, 503);
      assert.match(refused.message!, /copy of the upstream's mw-4b is not current: the upstream sent it at .*, 61 minutes ago/);
    } finally {
      await appB.close();
      await b.close();
      await storeA.close();
      await storeB.close();
    }
  });
});
