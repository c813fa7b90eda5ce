// A mirror of Web Risk (listed-searches.ts: its lists are the upstream's whole database) whose list
// updates start failing, against the scripted Web Risk server of the client tests and a fake clock: a
// prefix no list holds is answered locally only while every copy is current by the mirroring client's
// rules; past that, or once a list is dropped (SB-9), it goes upstream, and an upstream that cannot
// answer makes the search 503, never an unlisted answer.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ClientEvent } from '../../../src/client/options.ts';
import { HashListUpdateError } from '../../../src/store/hash-list.ts';
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

/** A mirror of the fake's three lists, each copied once. */
async function mirrorWithCopies(): Promise<void> {
  upstreamState = 'answering';
  clock = new FakeClock();
  dropped = [];
  const onEvent = (event: ClientEvent) => {
    if (event.type === 'list-dropped')
      dropped.push(`${event.list}: ${event.error instanceof HashListUpdateError ? event.error.reason : event.error.message}`);
  };
  mirror = await UpstreamMirror.start({ url: fake.url, protocol: 'webrisk', firstUpdateWindowMs: 0, clock, onEvent });
  await mirror.update();
  app = createApp({ catalog: mirror.catalog, fullHashes: mirror.fullHashes, listReady: (name) => mirror.listReady(name) });
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
    await mirrorWithCopies();
    upstreamState = 'malware-mismatch';
    await clock.advanceAsync(5 * MIN + 1_000);
    await mirror.update();
    assert.deepEqual(dropped, ['mw-4b: checksum-mismatch']);
    assert.equal(mirror.listReady('mw-4b'), true, 'the old copy of mw-4b is still published');
    upstreamState = 'answering';
    assert.deepEqual(await search(0x0a000005), { status: 200, wentUp: true });
  });
});
