import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { Counter, Registry } from 'prom-client';
import { createApp } from '../../../src/server/http/app.ts';
import type { ServerStatus } from '../../../src/server/web/status.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { KeyRing } from '../../../src/server/ohttp/key-ring.ts';
import { checksumOf } from '../../../src/store/hash-list.ts';
import { expressionHashBytes, expressionHashString, nodeSha256 } from '../../../src/url/hash.ts';
import { demoCatalog } from '../fixture.ts';

const PHISHING = 'testsafebrowsing.appspot.com/s/phishing.html';
const phishingHash = expressionHashString(PHISHING);
const b64 = (s: string) => Buffer.from(s, 'latin1').toString('base64');

function app(options: { apiKeys?: string[] } = {}) {
  return createApp({ catalog: demoCatalog(), ...options });
}

describe('v5 API', () => {
  it('hashes:search answers the Firefox form in binary protobuf with the full hash and threat type', async () => {
    const prefix = encodeURIComponent(b64(phishingHash.slice(0, 4)));
    const response = await app().inject({
      method: 'GET',
      url: `/v5/hashes:search?key=K&hashPrefixes=${prefix}`,
      headers: { accept: '*/*' },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/x-protobuf');
    const message = fromBinary(v5.SearchHashesResponseSchema, response.rawPayload);
    assert.equal(message.fullHashes.length, 1);
    assert.equal(Buffer.from(message.fullHashes[0]!.fullHash).toString('latin1'), phishingHash);
    assert.deepEqual(
      message.fullHashes[0]!.fullHashDetails.map((d) => d.threatType),
      [v5.ThreatType.SOCIAL_ENGINEERING],
    );
    assert.equal(message.cacheDuration?.seconds, 300n);
  });

  it('answers JSON when asked with alt=json', async () => {
    const prefix = Buffer.from(phishingHash.slice(0, 4), 'latin1').toString('base64url');
    const response = await app().inject({ method: 'GET', url: `/v5/hashes:search?hashPrefixes=${prefix}&alt=json` });
    assert.equal(response.statusCode, 200);
    const json = response.json<{
      fullHashes: { fullHash: string; fullHashDetails: { threatType: string }[] }[];
      cacheDuration: string;
    }>();
    assert.equal(json.fullHashes[0]!.fullHash, b64(phishingHash));
    assert.equal(json.fullHashes[0]!.fullHashDetails[0]!.threatType, 'SOCIAL_ENGINEERING');
    assert.equal(json.cacheDuration, '300s');
  });

  it('applies the v5alpha1 filter: a full hash of a type filtered out is not answered', async () => {
    const prefix = Buffer.from(phishingHash.slice(0, 4), 'latin1').toString('base64url');
    const search = async (filter: string) => {
      const response = await app().inject({
        url: `/v5alpha1/hashes:search?hashPrefixes=${prefix}&filter=${encodeURIComponent(filter)}&alt=json`,
      });
      assert.equal(response.statusCode, 200);
      return response.json<{ fullHashes?: unknown[] }>().fullHashes ?? [];
    };
    assert.equal((await search('threat_type == ThreatType.SOCIAL_ENGINEERING')).length, 1);
    assert.equal((await search('threat_type == ThreatType.MALWARE || threat_type == ThreatType.UNWANTED_SOFTWARE')).length, 0);
    assert.equal(
      (
        await app().inject({
          url: `/v5alpha1/hashes:search?hashPrefixes=${prefix}&filter=${encodeURIComponent('threat_type != ThreatType.MALWARE')}`,
        })
      ).statusCode,
      400,
    );
  });

  it('hashLists:batchGet answers every list in request order with version, checksum and wait', async () => {
    const url = '/v5/hashLists:batchGet?key=K&names=se-4b&names=mw-4b&names=gc-32b&version=&version=&version=';
    const response = await app().inject({ method: 'GET', url });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['cache-control']), /max-age=300/);
    const message = fromBinary(v5.BatchGetHashListsResponseSchema, response.rawPayload);
    assert.deepEqual(
      message.hashLists.map((l) => l.name),
      ['se-4b', 'mw-4b', 'gc-32b'],
    );
    for (const list of message.hashLists) {
      assert.ok(list.version.length > 0);
      assert.equal(list.sha256Checksum.length, 32);
      assert.equal(list.partialUpdate, false);
      assert.equal(list.minimumWaitDuration?.seconds, 1800n);
    }
    assert.equal(message.hashLists[0]!.compressedAdditions.case, 'additionsFourBytes');
    assert.equal(message.hashLists[2]!.compressedAdditions.case, 'additionsThirtyTwoBytes');
  });

  it("answers Firefox's five lists, and a list of Firefox's the server lacks (its test table) in a batch as an empty list", async () => {
    const names = ['se-4b', 'mw-4b', 'uws-4b', 'mwb-4b', 'csdda-32b', 'test-4b'];
    const response = await app().inject({ url: `/v5/hashLists:batchGet?${names.map((n) => `names=${n}`).join('&')}` });
    assert.equal(response.statusCode, 200);
    const lists = fromBinary(v5.BatchGetHashListsResponseSchema, response.rawPayload).hashLists;
    assert.deepEqual(
      lists.map((l) => l.name),
      names,
    );
    assert.equal(lists[4]!.compressedAdditions.case, 'additionsThirtyTwoBytes');
    const unknown = lists[5]!;
    assert.ok(unknown.version.length > 0);
    assert.deepEqual(Buffer.from(unknown.sha256Checksum), Buffer.from(checksumOf({ width: 4, values: new Uint32Array(0) }, nodeSha256)));
    assert.equal(unknown.compressedAdditions.case, undefined);
  });

  it('answers the current version with an empty update', async () => {
    const first = fromBinary(v5.HashListSchema, (await app().inject({ url: '/v5/hashList/se-4b' })).rawPayload);
    const server = app();
    const again = fromBinary(
      v5.HashListSchema,
      (await server.inject({ url: `/v5/hashList/se?version=${Buffer.from(first.version).toString('base64url')}` })).rawPayload,
    );
    assert.equal(again.partialUpdate, true);
    assert.equal(again.compressedAdditions.case, undefined);
    assert.deepEqual(again.sha256Checksum, first.sha256Checksum);
  });

  it('lists the lists with their metadata, a page at a time', async () => {
    const page = (await app().inject({ url: '/v5/hashLists?pageSize=4&alt=json' })).json<{
      hashLists: { name: string; metadata: { hashLength: string } }[];
      nextPageToken: string;
    }>();
    assert.equal(page.hashLists.length, 4);
    const rest = (await app().inject({ url: `/v5/hashLists?pageSize=4&alt=json&pageToken=${page.nextPageToken}` })).json<{
      hashLists: { name: string; metadata: { hashLength: string; likelySafeTypes?: string[] } }[];
    }>();
    const gc = rest.hashLists.find((l) => l.name === 'gc-32b')!;
    assert.equal(gc.metadata.hashLength, 'THIRTY_TWO_BYTES');
    assert.deepEqual(gc.metadata.likelySafeTypes, ['GENERAL_BROWSING']);
  });

  it('urls:search names the threat types of listed URLs', async () => {
    const response = await app().inject({
      url: `/v5/urls:search?alt=json&urls=${encodeURIComponent(`http://${PHISHING}`)}&urls=http%3A%2F%2Fexample.com%2F`,
    });
    const json = response.json<{ threats: { url: string; threatTypes: string[] }[] }>();
    assert.deepEqual(json.threats, [{ url: `http://${PHISHING}`, threatTypes: ['SOCIAL_ENGINEERING'] }]);
  });

  it('refuses unknown lists and malformed requests with Google-style errors', async () => {
    const unknown = await app().inject({ url: '/v5/hashList/nope-4b' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json<{ error: { status: string } }>().error.status, 'NOT_FOUND');
    const bad = await app().inject({ url: '/v5/hashes:search?hashPrefixes=***' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ error: { status: string; code: number } }>().error.code, 400);
    assert.equal((await app().inject({ url: '/v9/what' })).statusCode, 404);
  });
});

describe('API keys', () => {
  it('refuses a request without a key (403) or with a wrong one (400), as Google does', async () => {
    const server = app({ apiKeys: ['right'] });
    const missing = await server.inject({ url: '/v5/hashList/se-4b' });
    assert.equal(missing.statusCode, 403);
    assert.equal(missing.json<{ error: { status: string } }>().error.status, 'PERMISSION_DENIED');
    const wrong = await server.inject({ url: '/v5/hashList/se-4b?key=wrong' });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.json<{ error: { message: string } }>().error.message, /API key not valid/);
    assert.equal((await server.inject({ url: '/v5/hashList/se-4b?key=right' })).statusCode, 200);
  });

  it('checks the key before the request itself, as Google does: a malformed request without a key is refused for the key', async () => {
    const server = app({ apiKeys: ['right'] });
    const garbage = {
      method: 'POST' as const,
      url: '/v4/fullHashes:find',
      headers: { 'content-type': 'application/x-protobuf' },
      payload: Buffer.from([0xff, 0xff, 0xff]),
    };
    assert.equal((await server.inject(garbage)).statusCode, 403);
    assert.equal((await server.inject({ ...garbage, url: `${garbage.url}?key=right` })).statusCode, 400);
    assert.equal((await server.inject({ url: '/v5/hashes:search?hashPrefixes=not-base64!' })).statusCode, 403);
  });
});

describe('v4 API', () => {
  const triple = (threatType: number, platformType: number) => ({ threatType, platformType, threatEntryType: v4.ThreatEntryType.URL });

  it("threatListUpdates:fetch in Firefox's $req form: one answer per triple, in order, state and checksum always", async () => {
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      client: { clientId: 'navclient-auto-ffox', clientVersion: '153.0' },
      listUpdateRequests: [
        {
          ...triple(v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL, v4.PlatformType.ANY_PLATFORM),
          constraints: { supportedCompressions: [v4.CompressionType.RICE] },
        },
        {
          ...triple(v4.ThreatType.CSD_DOWNLOAD_ALLOWLIST, v4.PlatformType.ANY_PLATFORM),
          constraints: { supportedCompressions: [v4.CompressionType.RAW] },
        },
        {
          ...triple(v4.ThreatType.MALWARE, v4.PlatformType.ANY_PLATFORM),
          constraints: { supportedCompressions: [v4.CompressionType.RAW] },
        },
      ],
    });
    const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url');
    const response = await app().inject({
      method: 'GET',
      url: `/v4/threatListUpdates:fetch?$ct=application/x-protobuf&key=K&$httpMethod=POST&$req=${req}`,
      headers: { 'x-http-method-override': 'POST' },
    });
    assert.equal(response.statusCode, 200);
    const message = fromBinary(v4.FetchThreatListUpdatesResponseSchema, response.rawPayload);
    assert.deepEqual(
      message.listUpdateResponses.map((l) => l.threatType),
      [5, 9, 1],
    );
    for (const list of message.listUpdateResponses) {
      assert.ok(list.newClientState.length > 0);
      assert.equal(list.checksum?.sha256.length, 32);
    }
    assert.equal(message.listUpdateResponses[0]!.additions[0]!.compressionType, v4.CompressionType.RICE);
    // The download allowlist comes from csdda-32b, its 32-byte hashes raw (v4 Rice-codes 4-byte prefixes only).
    const allowlist = message.listUpdateResponses[1]!;
    assert.equal(allowlist.additions[0]!.compressionType, v4.CompressionType.RAW);
    assert.deepEqual(Buffer.from(allowlist.additions[0]!.rawHashes!.rawHashes), expressionHashBytes('downloads.sbtest.example/'));
    assert.deepEqual(
      Buffer.from(allowlist.checksum!.sha256),
      Buffer.from(checksumOf({ width: 32, bytes: expressionHashBytes('downloads.sbtest.example/') }, nodeSha256)),
    );
    assert.equal(message.listUpdateResponses[2]!.additions[0]!.rawHashes?.prefixSize, 4);
    assert.equal(message.minimumWaitDuration?.seconds, 1800n);
  });

  it('fullHashes:find answers from the lists that hold the hash, numbered as asked', async () => {
    const request = create(v4.FindFullHashesRequestSchema, {
      threatInfo: {
        threatTypes: [1, 3, 5],
        platformTypes: [v4.PlatformType.ANY_PLATFORM],
        threatEntryTypes: [v4.ThreatEntryType.URL],
        threatEntries: [{ hash: Buffer.from(phishingHash.slice(0, 4), 'latin1') }, { hash: Buffer.from([1, 2, 3, 4]) }],
      },
    });
    const response = await app().inject({
      method: 'POST',
      url: '/v4/fullHashes:find?alt=proto',
      headers: { 'content-type': 'application/x-protobuf' },
      payload: Buffer.from(toBinary(v4.FindFullHashesRequestSchema, request)),
    });
    const message = fromBinary(v4.FindFullHashesResponseSchema, response.rawPayload);
    assert.equal(message.matches.length, 1);
    assert.equal(message.matches[0]!.threatType, 5);
    assert.equal(Buffer.from(message.matches[0]!.threat!.hash).toString('latin1'), phishingHash);
    assert.equal(message.negativeCacheDuration?.seconds, 30n, 'the default negative duration');
  });

  it('fullHashes:find names a hash of mwb-4b MALICIOUS_BINARY, as v4 clients keep that list, and malware MALWARE', async () => {
    const binary = expressionHashString('malicious-binary.sbtest.example/download.exe');
    const malware = expressionHashString('testsafebrowsing.appspot.com/s/malware.html');
    const find = async (threatTypes: number[]) => {
      const request = create(v4.FindFullHashesRequestSchema, {
        threatInfo: { threatTypes, threatEntries: [binary, malware].map((h) => ({ hash: Buffer.from(h.slice(0, 4), 'latin1') })) },
      });
      const response = await app().inject({
        method: 'POST',
        url: '/v4/fullHashes:find',
        headers: { 'content-type': 'application/x-protobuf' },
        payload: Buffer.from(toBinary(v4.FindFullHashesRequestSchema, request)),
      });
      const matches = fromBinary(v4.FindFullHashesResponseSchema, response.rawPayload).matches;
      return new Map(matches.map((m) => [Buffer.from(m.threat!.hash).toString('latin1'), m.threatType]));
    };
    assert.deepEqual(
      await find([v4.ThreatType.MALWARE, v4.ThreatType.MALICIOUS_BINARY]),
      new Map([
        [binary, v4.ThreatType.MALICIOUS_BINARY],
        [malware, v4.ThreatType.MALWARE],
      ]),
    );
    assert.deepEqual(await find([v4.ThreatType.MALWARE]), new Map([[malware, v4.ThreatType.MALWARE]]));
  });

  it('threatMatches:find takes JSON and finds listed URLs', async () => {
    const response = await app().inject({
      method: 'POST',
      url: '/v4/threatMatches:find',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        client: { clientId: 'x' },
        threatInfo: {
          threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING'],
          platformTypes: ['ANY_PLATFORM'],
          threatEntryTypes: ['URL'],
          threatEntries: [{ url: `http://${PHISHING}` }, { url: 'http://example.com/' }],
        },
      }),
    });
    assert.equal(response.statusCode, 200);
    const json = response.json<{ matches: { threatType: string; threat: { url: string } }[] }>();
    assert.deepEqual(
      json.matches.map((m) => [m.threatType, m.threat.url]),
      [['SOCIAL_ENGINEERING', `http://${PHISHING}`]],
    );
  });

  it('threatMatches:find reports a malicious binary as malware, and as MALICIOUS_BINARY when asked for that', async () => {
    const find = async (threatTypes: string[]) => {
      const response = await app().inject({
        method: 'POST',
        url: '/v4/threatMatches:find',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          threatInfo: {
            threatTypes,
            threatEntries: [
              { url: 'http://malicious-binary.sbtest.example/download.exe' },
              { url: 'http://testsafebrowsing.appspot.com/s/malware.html' },
            ],
          },
        }),
      });
      return response
        .json<{ matches: { threatType: string; threat: { url: string } }[] }>()
        .matches.map((m) => [m.threatType, m.threat.url]);
    };
    assert.deepEqual(await find(['MALWARE', 'MALICIOUS_BINARY']), [
      ['MALWARE', 'http://malicious-binary.sbtest.example/download.exe'],
      ['MALICIOUS_BINARY', 'http://malicious-binary.sbtest.example/download.exe'],
      ['MALWARE', 'http://testsafebrowsing.appspot.com/s/malware.html'],
    ]);
    assert.deepEqual(await find(['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION']), [
      ['MALWARE', 'http://malicious-binary.sbtest.example/download.exe'],
      ['MALWARE', 'http://testsafebrowsing.appspot.com/s/malware.html'],
    ]);
  });

  it('threatLists names the triples it serves', async () => {
    const json = (await app().inject({ url: '/v4/threatLists?alt=json' })).json<{
      threatLists: { threatType: string; platformType: string }[];
    }>();
    assert.ok(json.threatLists.some((l) => l.threatType === 'SOCIAL_ENGINEERING' && l.platformType === 'ANY_PLATFORM'));
    assert.ok(json.threatLists.some((l) => l.threatType === 'POTENTIALLY_HARMFUL_APPLICATION' && l.platformType === 'ANDROID'));
    assert.ok(json.threatLists.some((l) => l.threatType === 'MALICIOUS_BINARY'));
    assert.equal(json.threatLists.filter((l) => l.threatType === 'MALWARE').length, 1, 'mw-4b alone is MALWARE');
  });
});

describe('operator endpoints', () => {
  const TOKEN = 'an-admin-token-of-length';

  it("pause refuses every request but the operator's with 503 and Retry-After until resume, also without load control (LC-5 service_paused)", async () => {
    const server = createApp({ catalog: demoCatalog(), adminToken: TOKEN, ohttpKeys: await KeyRing.create() });
    const auth = { authorization: `Bearer ${TOKEN}` };
    assert.equal((await server.inject({ method: 'POST', url: '/admin/pause', headers: auth })).statusCode, 200);
    const refused = await server.inject({ url: '/v5/hashList/se-4b?alt=json' });
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.headers['retry-after'], '60');
    assert.equal(refused.json<{ error: { status: string } }>().error.status, 'UNAVAILABLE');
    const page = await server.inject({ url: '/?url=http%3A%2F%2Fexample.com%2F', headers: { accept: 'text/html' } });
    assert.deepEqual([page.statusCode, page.headers['content-type']], [503, 'text/html; charset=utf-8']);
    for (const url of ['/status.json', '/ohttp-keys']) assert.equal((await server.inject({ url })).statusCode, 503, url);
    assert.equal((await server.inject({ url: '/healthz' })).json<{ status: string }>().status, 'paused');
    assert.equal((await server.inject({ method: 'POST', url: '/admin/resume', headers: auth })).statusCode, 200);
    assert.equal((await server.inject({ url: '/v5/hashList/se-4b' })).statusCode, 200);
  });

  it('needs the token, and does not exist without one', async () => {
    const server = createApp({ catalog: demoCatalog(), adminToken: TOKEN });
    assert.equal(
      (await server.inject({ method: 'POST', url: '/admin/pause', headers: { authorization: 'Bearer wrong' } })).statusCode,
      401,
    );
    assert.equal((await server.inject({ method: 'POST', url: '/admin/pause' })).statusCode, 401);
    assert.equal((await server.inject({ url: '/v5/hashList/se-4b' })).statusCode, 200);
    assert.equal((await createApp({ catalog: demoCatalog() }).inject({ method: 'POST', url: '/admin/pause' })).statusCode, 404);
  });

  it('reload loads the feeds again, where there are feeds', async () => {
    let reloads = 0;
    const withFeeds = createApp({ catalog: demoCatalog(), adminToken: TOKEN, reload: async () => ++reloads });
    const response = await withFeeds.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.deepEqual([response.statusCode, response.json(), reloads], [200, { reloaded: 1 }, 1]);
    const demo = await createApp({ catalog: demoCatalog(), adminToken: TOKEN }).inject({
      method: 'POST',
      url: '/admin/reload',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(demo.statusCode, 400);
  });
});

describe('readiness', () => {
  it('/readyz is 200 without a readiness check, 503 with the reason while there is one, and passes a paused gate', async () => {
    assert.deepEqual((await createApp({ catalog: demoCatalog() }).inject({ url: '/readyz' })).json(), { status: 'ready' });
    let reason: string | null = 'the shared lists have not been reached';
    const loadControl = await LoadControl.create();
    try {
      const server = createApp({ catalog: demoCatalog(), readiness: () => reason, loadControl, adminToken: 'an-admin-token-of-length' });
      const notReady = await server.inject({ url: '/readyz' });
      assert.equal(notReady.statusCode, 503);
      assert.deepEqual(notReady.json(), { status: 'not-ready', reason: 'the shared lists have not been reached' });
      assert.equal((await server.inject({ url: '/healthz' })).statusCode, 200, 'alive meanwhile');
      await server.inject({ method: 'POST', url: '/admin/pause', headers: { authorization: 'Bearer an-admin-token-of-length' } });
      reason = null;
      const paused = await server.inject({ url: '/readyz' });
      assert.deepEqual([paused.statusCode, paused.json()], [200, { status: 'ready' }], 'answered, not refused by the paused gate');
    } finally {
      await loadControl.close();
    }
  });

  it('/metrics serves the metrics it is given beside load control’s, and exists with either alone', async () => {
    const extra = new Registry();
    new Counter({ name: 'sbkit_test_total', help: 'a test counter', registers: [extra] }).inc(3);
    const alone = await createApp({ catalog: demoCatalog(), metrics: extra }).inject({ url: '/metrics' });
    assert.match(alone.body, /^sbkit_test_total 3$/m);
    const loadControl = await LoadControl.create();
    try {
      const both = await createApp({ catalog: demoCatalog(), metrics: extra, loadControl }).inject({ url: '/metrics' });
      assert.match(both.body, /^sbkit_test_total 3$/m);
      assert.match(both.body, /^# TYPE sbkit_requests_admitted_total counter$/m);
    } finally {
      await loadControl.close();
    }
    assert.equal((await createApp({ catalog: demoCatalog() }).inject({ url: '/metrics' })).statusCode, 404);
  });
});

describe('methods no route takes', () => {
  it('get a Google-style 405 with Allow on API paths and 404 elsewhere', async () => {
    const server = createApp({ catalog: demoCatalog() });
    const put = await server.inject({ method: 'PUT', url: '/v5/hashLists?alt=json' });
    assert.deepEqual([put.statusCode, put.headers.allow], [405, 'GET']);
    assert.match(put.json<{ error: { message: string } }>().error.message, /does not accept PUT; use GET/);
    const elsewhere = await server.inject({ method: 'DELETE', url: '/nothing?alt=json' });
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(elsewhere.json<{ error: { status: string } }>().error.status, 'NOT_FOUND');
  });
});

describe('lists not fit to serve (a proxy before its first copy, or while its copy is not current)', () => {
  const noCopy = { held: false, reason: "this server has no copy of the upstream's mw-4b yet", retryAfterSeconds: 60 };

  it('get 503 with Retry-After, by name, alias or v4 triple, while the other lists are served', async () => {
    const server = createApp({ catalog: demoCatalog(), listUnavailable: (name) => (name === 'mw-4b' ? noCopy : undefined) });
    const status = async (url: string, init: { method?: 'POST'; payload?: string } = {}) =>
      (await server.inject({ url, ...init, headers: { 'content-type': 'application/json' } })).statusCode;
    assert.equal(await status('/v5/hashLists:batchGet?names=se-4b&alt=json'), 200);
    const refused = await server.inject({ url: '/v5/hashLists:batchGet?names=se-4b&names=mw&alt=json' });
    assert.deepEqual([refused.statusCode, refused.headers['retry-after']], [503, '60']);
    assert.match(refused.json<{ error: { message: string } }>().error.message, /no copy of the upstream's mw-4b yet; try again in 60 s/);
    assert.equal(await status('/v5/hashList/mw-4b?alt=json'), 503);
    const fetch = (threatType: string) =>
      JSON.stringify({ listUpdateRequests: [{ threatType, platformType: 'ANY_PLATFORM', threatEntryType: 'URL', state: '' }] });
    assert.equal(await status('/v4/threatListUpdates:fetch?alt=json', { method: 'POST', payload: fetch('MALWARE') }), 503);
    assert.equal(await status('/v4/threatListUpdates:fetch?alt=json', { method: 'POST', payload: fetch('SOCIAL_ENGINEERING') }), 200);
    // Naming the lists would tell clients the upstream has mw-4b before the proxy knows it does.
    assert.equal(await status('/v5/hashLists?alt=json'), 503);
    const ready = createApp({ catalog: demoCatalog(), listUnavailable: () => undefined });
    assert.equal((await ready.inject({ url: '/v5/hashLists?alt=json' })).statusCode, 200);
  });

  it('name a list held but not current in listings, refuse its contents with every reason, and show it on the status page', async () => {
    const stale = { held: true, reason: "this server's copy of the upstream's se-4b is not current", retryAfterSeconds: 900 };
    const unavailable = new Map([
      ['mw-4b', noCopy],
      ['se-4b', stale],
    ]);
    const server = createApp({ catalog: demoCatalog(), listUnavailable: (name) => unavailable.get(name) });
    const both = await server.inject({ url: '/v5/hashLists:batchGet?names=se-4b&names=mw-4b&alt=json' });
    assert.deepEqual([both.statusCode, both.headers['retry-after']], [503, '900'], 'the longer wait: neither list is served sooner');
    const message = both.json<{ error: { message: string } }>().error.message;
    assert.match(message, /se-4b is not current; .*no copy of the upstream's mw-4b yet; try again in 900 s/);
    unavailable.delete('mw-4b');
    assert.equal((await server.inject({ url: '/v5/hashLists?alt=json' })).statusCode, 200, 'se-4b exists upstream: a listing names it');
    assert.equal((await server.inject({ url: '/v5/hashList/se-4b?alt=json' })).statusCode, 503);
    const status = (await server.inject({ url: '/status.json' })).json<ServerStatus>();
    assert.deepEqual(
      status.lists.flatMap((list) => (list.unavailable === undefined ? [] : [[list.name, list.unavailable]])),
      [['se-4b', stale.reason]],
    );
    assert.match(
      (await server.inject({ url: '/status' })).body,
      /<li><code>se-4b<\/code>: this server&#39;s copy of the upstream&#39;s se-4b is not current<\/li>/,
    );
  });
});
