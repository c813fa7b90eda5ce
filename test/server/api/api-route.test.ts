import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { ListCatalog } from '../../../src/server/catalog.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import { createServer, type SafeBrowsingServer } from '../../../src/server/http/server.ts';
import { expressionHashBytes } from '../../../src/url/hash.ts';

const ADMIN_TOKEN = '3f0c9d1e7a5b42c8a9e6d0b1c2f3a4b5';
const API_KEY = 'edge-key';
const LISTED = 'evil.example/';

function seList(): ListHistory {
  const history = new ListHistory(
    { name: 'se-4b', hashLength: 4, threatTypes: ['SOCIAL_ENGINEERING'], likelySafeTypes: [], description: '' },
    { keep: 3 },
  );
  history.publish(expressionHashBytes(LISTED));
  return history;
}

/** Firefox's v4 form: a GET with the request in `$req`, the override header and `$httpMethod` (docs/api.md §3). */
function firefoxV4Url(state: Uint8Array = new Uint8Array(0)): string {
  const request = create(v4.FetchThreatListUpdatesRequestSchema, {
    listUpdateRequests: [
      {
        threatType: v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL,
        platformType: v4.PlatformType.ANY_PLATFORM,
        threatEntryType: v4.ThreatEntryType.URL,
        state,
        constraints: { supportedCompressions: [v4.CompressionType.RICE] },
      },
    ],
  });
  const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url');
  return `/v4/threatListUpdates:fetch?$ct=application/x-protobuf&key=${API_KEY}&$httpMethod=POST&$req=${req}`;
}
const FIREFOX_V4_HEADERS = { 'x-http-method-override': 'POST' };

let server: SafeBrowsingServer;
let base: string;
let history: ListHistory;
let loadControl: LoadControl;

before(async () => {
  history = seList();
  loadControl = await LoadControl.create();
  server = createServer({
    catalog: new ListCatalog([history]),
    settings: { listCacheSeconds: 120, positiveCacheDurationMs: 90_000, negativeCacheDurationMs: 90_000 },
    apiKeys: [API_KEY],
    adminToken: ADMIN_TOKEN,
    loadControl,
    port: 0,
  });
  base = await server.listen();
});
after(async () => {
  await server?.close();
  await loadControl?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

describe('list answers: ETag, Cache-Control, Vary, 304', () => {
  for (const [form, path, headers] of [
    ['v5 hashList', `/v5/hashList/se-4b?key=${API_KEY}`, {}],
    [
      'v5 hashLists:batchGet (Firefox)',
      `/v5/hashLists:batchGet?key=${API_KEY}&names=se-4b&names=mw-4b&version=&version=`,
      { accept: '*/*' },
    ],
    ['v4 threatListUpdates:fetch as Firefox GETs it', firefoxV4Url(), FIREFOX_V4_HEADERS],
  ] as const) {
    it(`${form}: a strong ETag, public for listCacheSeconds; If-None-Match gets 304 with the same headers and no body`, async () => {
      const first = await get(path, headers);
      assert.equal(first.status, 200);
      const body = Buffer.from(await first.arrayBuffer());
      assert.ok(body.length > 0);
      const tag = first.headers.get('etag') ?? '';
      assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/);
      assert.equal(first.headers.get('cache-control'), 'public, max-age=120');
      assert.match(first.headers.get('vary') ?? '', /Accept, .*X-Goog-Api-Client/);

      for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const again = await get(path, { ...headers, 'if-none-match': ifNoneMatch });
        assert.equal(again.status, 304, ifNoneMatch);
        assert.equal(again.headers.get('etag'), tag);
        assert.equal(again.headers.get('cache-control'), 'public, max-age=120');
        assert.equal(again.headers.get('vary'), first.headers.get('vary'));
        assert.equal((await again.arrayBuffer()).byteLength, 0);
      }
      const other = await get(path, { ...headers, 'if-none-match': '"not-this-one"' });
      assert.equal(other.status, 200);
      assert.deepEqual(Buffer.from(await other.arrayBuffer()), body);
      assert.equal(other.headers.get('etag'), tag);
    });
  }

  it('HEAD answers as GET does without the body: the same ETag, caching headers and length, and 304 on If-None-Match', async () => {
    const path = `/v5/hashList/se-4b?key=${API_KEY}`;
    const full = await get(path);
    const length = (await full.arrayBuffer()).byteLength;
    const head = await fetch(`${base}${path}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('etag'), full.headers.get('etag'));
    assert.equal(head.headers.get('cache-control'), 'public, max-age=120');
    assert.equal(head.headers.get('vary'), full.headers.get('vary'));
    assert.equal(head.headers.get('content-length'), String(length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const conditional = await fetch(`${base}${path}`, { method: 'HEAD', headers: { 'if-none-match': full.headers.get('etag')! } });
    assert.equal(conditional.status, 304);
  });

  it('a publish changes the tag: the old one gets the new answer, not 304', async () => {
    const path = `/v5/hashList/se-4b?key=${API_KEY}&alt=json`;
    const before = await get(path);
    const tag = before.headers.get('etag')!;
    const { version } = (await before.json()) as { version: string };
    history.publish(Buffer.concat([expressionHashBytes(LISTED), expressionHashBytes('another.example/')]));
    const after = await get(path, { 'if-none-match': tag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), tag);
    assert.notEqual(((await after.json()) as { version: string }).version, version);
  });

  it('the same URL in JSON and in binary has two tags', async () => {
    const path = `/v5/hashList/se-4b?key=${API_KEY}`;
    const binary = await get(path);
    const json = await get(path, { accept: 'application/json' });
    assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.notEqual(binary.headers.get('etag'), json.headers.get('etag'));
    assert.equal((await get(path, { accept: 'application/json', 'if-none-match': binary.headers.get('etag')! })).status, 200);
  });

  it('v4 as GET /v4/encodedUpdates/{request} carries a tag; the POST form (the Go client) carries none and ignores If-None-Match', async () => {
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      listUpdateRequests: [{ threatType: 2, platformType: 6, threatEntryType: 1, constraints: { supportedCompressions: [2] } }],
    });
    const binary = toBinary(v4.FetchThreatListUpdatesRequestSchema, request);
    const encoded = await get(`/v4/encodedUpdates/${Buffer.from(binary).toString('base64url')}?key=${API_KEY}`);
    assert.equal(encoded.status, 200);
    assert.ok(encoded.headers.get('etag'));
    const post = await fetch(`${base}/v4/threatListUpdates:fetch?alt=proto&key=${API_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'if-none-match': '*' },
      body: binary,
    });
    assert.equal(post.status, 200);
    assert.equal(post.headers.get('etag'), null);
    const answer = fromBinary(v4.FetchThreatListUpdatesResponseSchema, Buffer.from(await post.arrayBuffer()));
    assert.equal(answer.listUpdateResponses.length, 1);
  });
  it("keeps CORS's Vary: Origin beside its own, on 200 and 304", async () => {
    const cors = createServer({ catalog: new ListCatalog([seList()]), corsOrigins: ['https://mail.example'], port: 0 });
    const url = `${await cors.listen()}/v5/hashList/se-4b`;
    try {
      const headers = { origin: 'https://mail.example' };
      const first = await fetch(url, { headers });
      assert.match(first.headers.get('vary') ?? '', /^Origin, Accept, /);
      assert.equal(first.headers.get('access-control-allow-origin'), 'https://mail.example');
      const again = await fetch(url, { headers: { ...headers, 'if-none-match': first.headers.get('etag')! } });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get('vary'), first.headers.get('vary'));
    } finally {
      await cors.close();
    }
  });
});

describe('search answers', () => {
  const prefix = encodeURIComponent(createHash('sha256').update(LISTED).digest().subarray(0, 4).toString('base64'));

  it('hashes:search may be kept by the asker only, for its cache duration, and has no tag', async () => {
    const response = await get(`/v5/hashes:search?key=${API_KEY}&hashPrefixes=${prefix}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'private, max-age=90');
    assert.equal(response.headers.get('etag'), null);
    assert.equal(fromBinary(v5.SearchHashesResponseSchema, Buffer.from(await response.arrayBuffer())).fullHashes.length, 1);
  });

  it('v4 fullHashes:find, as Firefox GETs it, is private for the shortest of its durations', async () => {
    const request = create(v4.FindFullHashesRequestSchema, {
      threatInfo: {
        threatTypes: [5],
        platformTypes: [6],
        threatEntryTypes: [1],
        threatEntries: [{ hash: expressionHashBytes(LISTED).subarray(0, 4) }],
      },
    });
    const req = Buffer.from(toBinary(v4.FindFullHashesRequestSchema, request)).toString('base64url');
    const response = await get(
      `/v4/fullHashes:find?$ct=application/x-protobuf&key=${API_KEY}&$httpMethod=POST&$req=${req}`,
      FIREFOX_V4_HEADERS,
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'private, max-age=90');
    assert.equal(fromBinary(v4.FindFullHashesResponseSchema, Buffer.from(await response.arrayBuffer())).matches.length, 1);
  });
});

describe('errors are never stored', () => {
  for (const [what, path, status] of [
    ['a list not published', `/v5/hashList/nope-4b?key=${API_KEY}`, 404],
    ['a missing key', '/v5/hashList/se-4b', 403],
    ['a wrong key', '/v5/hashList/se-4b?key=wrong', 400],
    ['a malformed request', `/v5/hashList/se-4b?key=${API_KEY}&version=%%%`, 400],
    ['an unknown path', '/v6/nothing', 404],
  ] as const) {
    it(`${what}: ${status} with Cache-Control: no-store and no tag, If-None-Match: * or not`, async () => {
      for (const headers of [{}, { 'if-none-match': '*' }] as Record<string, string>[]) {
        const response = await get(path, headers);
        assert.equal(response.status, status);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(response.headers.get('etag'), null);
      }
    });
  }

  it("load control's 503 (paused by the operator) is no-store too, for list requests and pages alike", async () => {
    const pause = (action: string) =>
      fetch(`${base}/admin/${action}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal((await pause('pause')).status, 200);
    try {
      for (const [path, accept] of [
        [`/v5/hashList/se-4b?key=${API_KEY}`, '*/*'],
        ['/', 'text/html'],
      ] as const) {
        const response = await get(path, { accept });
        assert.equal(response.status, 503);
        assert.ok(response.headers.get('retry-after'));
        assert.equal(response.headers.get('cache-control'), 'no-store');
      }
    } finally {
      assert.equal((await pause('resume')).status, 200);
    }
  });
});
