// Web Risk v1 answered from the server's own lists, through the application (inject): the mapping of
// threat types to lists, RESET and DIFF with their checksums, both compressions, searches by hash and by
// URI, refusals, submissions kept for the operator, and answers kept apart by enum encoding.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeV4RiceHashes, decodeV4RiceIndices, prefixesFromBytes } from '../../../src/codec/index.ts';
import { createApp } from '../../../src/server/http/app.ts';
import { ListCatalog } from '../../../src/server/catalog.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import { DEFAULT_API_SETTINGS } from '../../../src/server/api/settings.ts';
import { expressionHashBytes, expressionHashString } from '../../../src/url/hash.ts';
import { demoCatalog } from '../fixture.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { riceOf, sha256Of } from '../../support/web-risk-answers.ts';
import { upstreamSource } from './fixtures.ts';

const TOKEN = '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7';
const MALWARE_PAGE = 'testsafebrowsing.appspot.com/s/malware.html';
const NOW = Date.UTC(2026, 10, 28, 12);

interface Rice {
  firstValue?: string;
  riceParameter?: number;
  entryCount?: number;
  encodedData?: string;
}
interface Diff {
  responseType: string | number;
  additions?: { rawHashes?: { prefixSize: number; rawHashes: string }[]; riceHashes?: Rice };
  removals?: { rawIndices?: { indices: number[] }; riceIndices?: Rice };
  newVersionToken: string;
  checksum: { sha256: string };
  recommendedNextDiff: string;
}

/** A client's list after a diff: removals first, then additions, kept sorted (SB-9). */
function applyDiff(held: readonly number[], diff: Diff): number[] {
  const removed = new Set(
    diff.removals?.riceIndices !== undefined
      ? decodeV4RiceIndices(riceOf(diff.removals.riceIndices))
      : (diff.removals?.rawIndices?.indices ?? []),
  );
  const kept = held.filter((_, i) => !removed.has(i));
  const added = diff.additions?.riceHashes
    ? [...decodeV4RiceHashes(riceOf(diff.additions.riceHashes))]
    : (diff.additions?.rawHashes ?? []).flatMap((raw) => [...prefixesFromBytes(Buffer.from(raw.rawHashes, 'base64'))]);
  return [...kept, ...added].sort((a, b) => a - b);
}

function corpList(expressions: string[]): ListHistory {
  const history = new ListHistory(
    { name: 'corp-4b', hashLength: 4, threatTypes: ['MALWARE'], likelySafeTypes: [], description: '' },
    { keep: 3 },
  );
  history.publish(Buffer.concat(expressions.map((e) => expressionHashBytes(e))));
  return history;
}

function appOf(catalog = demoCatalog(), settings = {}) {
  const clock = new FakeClock(NOW);
  return { app: createApp({ catalog, adminToken: TOKEN, settings, clock }), clock };
}

async function getJson<T>(app: ReturnType<typeof createApp>, url: string): Promise<{ status: number; json: T }> {
  const answer = await app.inject({ method: 'GET', url });
  return { status: answer.statusCode, json: answer.json<T>() };
}

describe('Web Risk threatLists:computeDiff', () => {
  it('RESET from no token, DIFF from the token after a change, each with the checksum of the list it leaves', async () => {
    const corp = corpList(['a.example/', 'b.example/', 'c.example/']);
    const { app } = appOf(new ListCatalog([corp]), { webRiskLists: { ...DEFAULT_API_SETTINGS.webRiskLists, MALWARE: 'corp-4b' } });
    for (const rice of [false, true]) {
      const compression = rice ? '&constraints.supportedCompressions=RICE' : '&constraints.supportedCompressions=RAW';
      const first = await getJson<Diff>(app, `/v1/threatLists:computeDiff?threatType=MALWARE${compression}`);
      assert.equal(first.status, 200);
      assert.equal(first.json.responseType, 'RESET');
      assert.equal(rice ? first.json.additions?.riceHashes !== undefined : first.json.additions?.rawHashes !== undefined, true);
      let held = applyDiff([], first.json);
      assert.equal(held.length, 3);
      assert.equal(sha256Of(held).toString('base64'), first.json.checksum.sha256);
      corp.publish(Buffer.concat(['a.example/', 'c.example/', 'd.example/', 'e.example/'].map((e) => expressionHashBytes(e))));
      const token = encodeURIComponent(first.json.newVersionToken);
      const next = await getJson<Diff>(app, `/v1/threatLists:computeDiff?threatType=1&versionToken=${token}${compression}`);
      assert.equal(next.json.responseType, 'DIFF');
      assert.ok(next.json.removals !== undefined);
      held = applyDiff(held, next.json);
      assert.equal(held.length, 4);
      assert.equal(sha256Of(held).toString('base64'), next.json.checksum.sha256);
      corp.publish(Buffer.concat(['a.example/', 'b.example/', 'c.example/'].map((e) => expressionHashBytes(e))));
    }
  });

  it('recommends the next diff after the minimum wait, or at once when the constraints cut the diff short (SB-12)', async () => {
    const { app } = appOf(demoCatalog(), { minimumWaitMs: 600_000 });
    const whole = await getJson<Diff>(app, '/v1/threatLists:computeDiff?threatType=MALWARE');
    assert.equal(Date.parse(whole.json.recommendedNextDiff), NOW + 600_000);
    const cut = await getJson<Diff>(app, '/v1/threatLists:computeDiff?threatType=MALWARE&constraints.maxDiffEntries=1');
    assert.equal(Date.parse(cut.json.recommendedNextDiff), NOW);
    assert.equal(applyDiff([], cut.json).length, 1);
  });

  it('names the moment anew as time passes, though the list is unchanged: a kept answer is kept a minute at most', async () => {
    const { app, clock } = appOf(demoCatalog(), { minimumWaitMs: 600_000, listCacheSeconds: 300 });
    const url = '/v1/threatLists:computeDiff?threatType=MALWARE';
    const first = await app.inject({ method: 'GET', url });
    assert.equal(Date.parse(first.json<Diff>().recommendedNextDiff), NOW + 600_000);
    assert.equal(first.headers['cache-control'], 'public, max-age=60');
    clock.advance(30_000);
    const same = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(same.statusCode, 304, 'within the minute, the same answer');
    clock.advance(60 * 60_000);
    const later = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(later.statusCode, 200, 'an hour on, not the answer of an hour ago');
    assert.equal(Date.parse(later.json<Diff>().recommendedNextDiff), NOW + 60 * 60_000 + 600_000);
    assert.notEqual(later.headers.etag, first.headers.etag);
  });

  it('refuses a type no list answers by name, and THREAT_TYPE_UNSPECIFIED', async () => {
    const { app } = appOf();
    const unmapped = await getJson<{ error: { status: string; message: string } }>(
      app,
      '/v1/threatLists:computeDiff?threatType=SOCIAL_ENGINEERING_EXTENDED_COVERAGE',
    );
    assert.equal(unmapped.status, 400);
    assert.match(
      unmapped.json.error.message,
      /SOCIAL_ENGINEERING_EXTENDED_COVERAGE.*publishes MALWARE, SOCIAL_ENGINEERING, UNWANTED_SOFTWARE/,
    );
    const unspecified = await getJson<{ error: { status: string } }>(app, '/v1/threatLists:computeDiff?threatType=0');
    assert.equal(unspecified.status, 400);
    assert.equal(unspecified.json.error.status, 'INVALID_ARGUMENT');
  });

  it('keeps answers with enums by number apart from those by name, under different ETags', async () => {
    const { app } = appOf();
    const byName = await app.inject({ method: 'GET', url: '/v1/threatLists:computeDiff?threatType=MALWARE' });
    const byNumber = await app.inject({ method: 'GET', url: '/v1/threatLists:computeDiff?threatType=MALWARE&$alt=json;enum-encoding=int' });
    assert.equal(byName.json<Diff>().responseType, 'RESET');
    assert.equal(byNumber.json<Diff>().responseType, 2);
    assert.notEqual(byName.headers.etag, byNumber.headers.etag);
    const again = await app.inject({ method: 'GET', url: '/v1/threatLists:computeDiff?threatType=MALWARE' });
    assert.equal(again.json<Diff>().responseType, 'RESET');
  });
});

describe('Web Risk searches', () => {
  const hash = Buffer.from(expressionHashString(MALWARE_PAGE), 'latin1');

  it('hashes:search answers the full hashes under a prefix of 4 to 32 bytes, with expiry times', async () => {
    const { app } = appOf(demoCatalog(), { positiveCacheDurationMs: 300_000, negativeCacheDurationMs: 30_000 });
    for (const length of [4, 12, 32]) {
      const prefix = encodeURIComponent(hash.subarray(0, length).toString('base64'));
      const { status, json } = await getJson<{
        threats: { threatTypes: string[]; hash: string; expireTime: string }[];
        negativeExpireTime: string;
      }>(app, `/v1/hashes:search?threatTypes=MALWARE&threatTypes=SOCIAL_ENGINEERING&hashPrefix=${prefix}`);
      assert.equal(status, 200);
      assert.deepEqual(
        json.threats.map((t) => [t.hash, t.threatTypes]),
        [[hash.toString('base64'), ['MALWARE']]],
      );
      assert.equal(Date.parse(json.threats[0]!.expireTime), NOW + 300_000);
      assert.equal(Date.parse(json.negativeExpireTime), NOW + 30_000);
    }
    const otherType = await getJson<{ threats?: unknown[] }>(
      app,
      `/v1/hashes:search?threatTypes=UNWANTED_SOFTWARE&hashPrefix=${encodeURIComponent(hash.subarray(0, 4).toString('base64'))}`,
    );
    assert.deepEqual(otherType.json.threats ?? [], []);
    const short = await getJson<{ error: { message: string } }>(app, `/v1/hashes:search?threatTypes=MALWARE&hashPrefix=AAA=`);
    assert.equal(short.status, 400);
    assert.match(short.json.error.message, /2 bytes long.*4 to 32 bytes/);
    const untyped = await getJson<{ error: { message: string } }>(app, `/v1/hashes:search?hashPrefix=AAAAAA==`);
    assert.match(untyped.json.error.message, /threatTypes is required/);
  });

  it('uris:search: a threat for a listed URI, none for an unlisted one, INVALID_ARGUMENT for no URL', async () => {
    const { app } = appOf(demoCatalog(), { positiveCacheDurationMs: 300_000 });
    const listed = await getJson<{ threat?: { threatTypes: string[]; expireTime: string } }>(
      app,
      `/v1/uris:search?threatTypes=MALWARE&threatTypes=UNWANTED_SOFTWARE&uri=${encodeURIComponent(`http://${MALWARE_PAGE}`)}`,
    );
    assert.deepEqual(listed.json.threat?.threatTypes, ['MALWARE']);
    assert.equal(Date.parse(listed.json.threat?.expireTime ?? ''), NOW + 300_000);
    const unlisted = await getJson<{ threat?: unknown }>(app, `/v1/uris:search?threatTypes=MALWARE&uri=http%3A%2F%2Fexample.com%2F`);
    assert.equal(unlisted.status, 200);
    assert.equal(unlisted.json.threat, undefined);
    const bad = await getJson<{ error: { status: string } }>(app, `/v1/uris:search?threatTypes=MALWARE&uri=http%3A%2F%2F`);
    assert.equal(bad.json.error.status, 'INVALID_ARGUMENT');
  });

  it('answers a type by the list it is mapped to only, not by another list of the same v5 type', async () => {
    // uwsa-4b is UNWANTED_SOFTWARE too, but Web Risk's UNWANTED_SOFTWARE is uws-4b.
    const { app } = appOf();
    const { json } = await getJson<{ threat?: unknown }>(
      app,
      `/v1/uris:search?threatTypes=UNWANTED_SOFTWARE&uri=${encodeURIComponent('http://unwanted-android.sbtest.example/')}`,
    );
    assert.equal(json.threat, undefined);
  });
});

describe('Web Risk searches answered from an upstream', () => {
  // A proxy's copy of mw-4b lacks what the upstream listed since the last copy (or before the first), and
  // what only Google's real-time search knows; the upstream's threat types say what such a hash is.
  const EVIL = 'evil.example/';
  const upstream = upstreamSource(
    { [EVIL]: ['MALWARE'], [MALWARE_PAGE]: ['MALWARE'], 'unwanted-android.sbtest.example/': ['UNWANTED_SOFTWARE'] },
    120_000,
  );
  const proxy = () =>
    createApp({
      catalog: demoCatalog(),
      adminToken: TOKEN,
      settings: { positiveCacheDurationMs: 300_000 },
      clock: new FakeClock(NOW),
      fullHashes: upstream,
    });
  const uri = (host: string) => encodeURIComponent(`http://${host}`);

  it('answers a hash no list here holds under the threat type the upstream gives, as v5 does', async () => {
    const app = proxy();
    const listed = await getJson<{ threat?: { threatTypes: string[] } }>(
      app,
      `/v1/uris:search?threatTypes=MALWARE&threatTypes=SOCIAL_ENGINEERING&uri=${uri(EVIL)}`,
    );
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json.threat?.threatTypes, ['MALWARE']);
    const otherType = await getJson<{ threat?: unknown }>(app, `/v1/uris:search?threatTypes=SOCIAL_ENGINEERING&uri=${uri(EVIL)}`);
    assert.equal(otherType.json.threat, undefined);
    const hash = Buffer.from(expressionHashString(EVIL), 'latin1');
    const searched = await getJson<{ threats?: { threatTypes: string[]; hash: string }[] }>(
      app,
      `/v1/hashes:search?threatTypes=MALWARE&hashPrefix=${encodeURIComponent(hash.subarray(0, 4).toString('base64'))}`,
    );
    assert.deepEqual(
      searched.json.threats?.map((t) => [t.hash, t.threatTypes]),
      [[hash.toString('base64'), ['MALWARE']]],
    );
  });

  it("still answers a hash that another list of the type holds as that list's: uwsa-4b's is no UNWANTED_SOFTWARE", async () => {
    const { json } = await getJson<{ threat?: unknown }>(
      proxy(),
      `/v1/uris:search?threatTypes=UNWANTED_SOFTWARE&uri=${uri('unwanted-android.sbtest.example/')}`,
    );
    assert.equal(json.threat, undefined);
  });

  it("keeps a threat until the positive duration, no later than the upstream's answer holds (SB-8)", async () => {
    const { json } = await getJson<{ threat?: { expireTime: string } }>(
      proxy(),
      `/v1/uris:search?threatTypes=MALWARE&uri=${uri(MALWARE_PAGE)}`,
    );
    assert.equal(Date.parse(json.threat?.expireTime ?? ''), NOW + 120_000);
  });
});

describe('Web Risk submissions', () => {
  it('are kept for the operator, answered with no threat types, counted on the status page', async () => {
    const { app } = appOf();
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/projects/my-project/submissions',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ uri: 'http://reported.example/login' }),
    });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(answer.json(), { uri: 'http://reported.example/login' });
    const refused = await app.inject({ method: 'GET', url: '/admin/submissions' });
    assert.equal(refused.statusCode, 401);
    const admin = await app.inject({ method: 'GET', url: '/admin/submissions', headers: { authorization: `Bearer ${TOKEN}` } });
    const kept = admin.json<{ received: number; submissions: { at: string; project: string; uri: string; client: string }[] }>();
    assert.equal(kept.received, 1);
    assert.deepEqual(kept.submissions, [
      { at: new Date(NOW).toISOString(), project: 'my-project', uri: 'http://reported.example/login', client: '127.0.0.1' },
    ]);
    const status = (await app.inject({ method: 'GET', url: '/status.json' })).json<{ submissions: unknown }>();
    assert.deepEqual(status.submissions, { received: 1, kept: 1 });
    const bad = await app.inject({
      method: 'POST',
      url: '/v1/projects/my-project/submissions',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ uri: 'http://' }),
    });
    assert.equal(bad.statusCode, 400);
  });

  it("keep every other client's reports through a flood from one IPv6 /64's addresses, and from one /56's /64s", async () => {
    const { app } = appOf();
    const report = async (uri: string, remoteAddress: string) => {
      const answer = await app.inject({
        method: 'POST',
        url: '/v1/projects/my-project/submissions',
        remoteAddress,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ uri }),
      });
      assert.equal(answer.statusCode, 200, answer.body);
    };
    for (let n = 0; n < 10; n++) await report(`http://reported.example/${n}`, '198.51.100.7');
    // One host: 50 addresses of its /64, 20 reports from each.
    for (let host = 1; host <= 50; host++)
      for (let n = 0; n < 20; n++) await report(`http://flood.example/${host}/${n}`, `2001:db8:0:1::${host.toString(16)}`);
    // One subscriber: 60 of the /64s of its /56, 20 reports from each.
    for (let block = 0; block < 60; block++)
      for (let n = 0; n < 20; n++)
        await report(`http://flood.example/${block}/${n}`, `2001:db8:0:2${block.toString(16).padStart(2, '0')}::1`);
    const admin = await app.inject({ method: 'GET', url: '/admin/submissions', headers: { authorization: `Bearer ${TOKEN}` } });
    const kept = admin.json<{ received: number; submissions: { client: string }[] }>();
    assert.equal(kept.received, 10 + 50 * 20 + 60 * 20);
    const from = (test: (client: string) => boolean) => kept.submissions.filter(({ client }) => test(client)).length;
    assert.equal(
      from((client) => client === '198.51.100.7'),
      10,
      "the IPv4 client's reports, all kept",
    );
    assert.equal(
      from((client) => client.startsWith('2001:db8:0:1::')),
      20,
      "the /64's, as many as one client's",
    );
    assert.equal(
      from((client) => client.startsWith('2001:db8:0:2')),
      50,
      "the /56's, as many as one neighbourhood's",
    );
  });
});
