import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, toBinary, toJsonString } from '@bufbuild/protobuf';
import fc from 'fast-check';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { decodeWireRequest } from '../../../src/wire/rest/server-request.ts';
import type { DecodedWireRequest, WireRequest } from '../../../src/wire/rest/server-request.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { bytes, lengthField, unpackedField, varintField } from '../../proto/hand-built.ts';

// The prefix of malware.sbtest.example/ (docs/api.md §3).
const PREFIX = new Uint8Array([0xbf, 0xd0, 0x0f, 0x8e]);
const NO_BODY = new Uint8Array();
const FIREFOX_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';
const NPM_HEADERS = {
  'x-goog-api-client': 'gdcl/8.0.0 gl-node/20.19.0',
  'user-agent': 'google-api-nodejs-client/8.0.0 (gzip)',
  accept: '*/*',
};

function get(url: string, headers: WireRequest['headers'] = {}): WireRequest {
  return { method: 'GET', url, headers, body: NO_BODY };
}

function expect<R extends DecodedWireRequest['rpc']>(decoded: DecodedWireRequest, rpc: R): Extract<DecodedWireRequest, { rpc: R }> {
  assert.equal(decoded.rpc, rpc);
  return decoded as Extract<DecodedWireRequest, { rpc: R }>;
}

const base64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');
const base64urlPadded = (data: Uint8Array) => Buffer.from(data).toString('base64').replaceAll('+', '-').replaceAll('/', '_');

// Firefox's v4 update request as its proto2 encoder writes it: repeated enums unpacked.
const FIREFOX_V4_UPDATE = bytes(
  lengthField(1, [...lengthField(1, 'navclient-auto-ffox'), ...lengthField(2, '153.0')]),
  lengthField(3, [
    ...varintField(1, 5),
    ...varintField(2, 2),
    ...varintField(5, 1),
    ...lengthField(3, [0xfb, 0xef]),
    ...lengthField(4, unpackedField(4, [2])),
  ]),
  lengthField(3, [...varintField(1, 1), ...varintField(2, 2), ...varintField(5, 1), ...lengthField(4, unpackedField(4, [2]))]),
  lengthField(3, [...varintField(1, 7), ...varintField(2, 2), ...varintField(5, 1), ...lengthField(4, unpackedField(4, [2]))]),
);

// Chromium's fullHashes:find (docs/api.md §3 pitfall 7): many threat types, two platforms, two entry types,
// one client state per stored list, all repeated enums unpacked.
const CHROMIUM_THREAT_TYPES = [1, 3, 5, 6, 7, 8, 9, 13, 14, 15, 16];
const CHROMIUM_FIND = bytes(
  lengthField(1, [...lengthField(1, 'chromium'), ...lengthField(2, '156.0.7000.0')]),
  lengthField(2, 'state-se'),
  lengthField(2, 'state-mw'),
  lengthField(3, [
    ...unpackedField(1, CHROMIUM_THREAT_TYPES),
    ...unpackedField(2, [2, 8]),
    ...unpackedField(4, [1, 4]),
    ...lengthField(3, lengthField(1, PREFIX)),
  ]),
);

describe('decodeWireRequest: the request forms captured from real clients (docs/api.md §3)', () => {
  it('Firefox v5 batchGet: positional standard-base64 versions with empty placeholders, no alt → protobuf', () => {
    const version = new Uint8Array([0xfb, 0xff, 0xbf, 0x01]); // "+/+/AQ==": both + and / need escaping
    const url =
      '/v5/hashLists:batchGet?key=K&names=se-4b&names=mw-4b&names=uws-4b&names=mwb-4b&names=csdda-32b' +
      `&version=&version=${encodeURIComponent(Buffer.from(version).toString('base64'))}&version=&version=&version=`;
    const decoded = expect(decodeWireRequest(get(url, { accept: '*/*', 'user-agent': FIREFOX_UA })), 'BatchGetHashLists');
    assert.deepEqual(decoded.request.names, ['se-4b', 'mw-4b', 'uws-4b', 'mwb-4b', 'csdda-32b']);
    assert.deepEqual(decoded.request.version, [NO_BODY, version, NO_BODY, NO_BODY, NO_BODY]);
    assert.equal(decoded.responseEncoding, 'protobuf');
    assert.equal(decoded.apiKey, 'K');
    assert.equal(decoded.apiVersion, 'v5');
  });

  it('Firefox v5 hashes:search: hashPrefixes=v9APjg%3D%3D', () => {
    const decoded = expect(decodeWireRequest(get('/v5/hashes:search?key=K&hashPrefixes=v9APjg%3D%3D', { accept: '*/*' })), 'SearchHashes');
    assert.deepEqual(decoded.request.hashPrefixes, [PREFIX]);
    assert.equal(decoded.responseEncoding, 'protobuf');
  });

  it('Firefox v4 update: GET with $ct, $httpMethod, padded base64url $req and X-HTTP-Method-Override', () => {
    const url = `/v4/threatListUpdates:fetch?$ct=application/x-protobuf&key=K&$httpMethod=POST&$req=${base64urlPadded(FIREFOX_V4_UPDATE)}`;
    const decoded = expect(
      decodeWireRequest(get(url, { 'X-HTTP-Method-Override': 'POST', 'User-Agent': FIREFOX_UA })),
      'FetchThreatListUpdates',
    );
    const lists = decoded.request.listUpdateRequests.map((r) => [r.threatType, r.platformType, r.threatEntryType]);
    assert.deepEqual(lists, [
      [v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL, v4.PlatformType.LINUX, v4.ThreatEntryType.URL],
      [v4.ThreatType.MALWARE, v4.PlatformType.LINUX, v4.ThreatEntryType.URL],
      [v4.ThreatType.MALICIOUS_BINARY, v4.PlatformType.LINUX, v4.ThreatEntryType.URL],
    ]);
    assert.deepEqual(decoded.request.listUpdateRequests[0]?.state, new Uint8Array([0xfb, 0xef]));
    assert.deepEqual(decoded.request.listUpdateRequests[0]?.constraints?.supportedCompressions, [v4.CompressionType.RICE]);
    assert.equal(decoded.request.client?.clientId, 'navclient-auto-ffox');
    assert.equal(decoded.responseEncoding, 'protobuf');
    assert.equal(decoded.apiKey, 'K');
  });

  it('Firefox v4 gethash: the same envelope on fullHashes:find, $ escaped as %24', () => {
    const url = `/v4/fullHashes:find?%24ct=application%2Fx-protobuf&key=K&%24httpMethod=POST&%24req=${encodeURIComponent(base64urlPadded(CHROMIUM_FIND))}`;
    const decoded = expect(decodeWireRequest(get(url, { 'x-http-method-override': 'POST' })), 'FindFullHashes');
    assert.deepEqual(decoded.request.threatInfo?.threatEntries[0]?.hash, PREFIX);
    assert.equal(decoded.responseEncoding, 'protobuf');
  });

  it("Chromium v4 gethash: unpadded $req, method override by header only; browsers' enum values kept", () => {
    const url = `/v4/fullHashes:find?$req=${base64url(CHROMIUM_FIND)}&$ct=application/x-protobuf&key=K`;
    const decoded = expect(decodeWireRequest(get(url, { 'x-http-method-override': 'POST' })), 'FindFullHashes');
    assert.deepEqual(decoded.request.threatInfo?.threatTypes, CHROMIUM_THREAT_TYPES);
    assert.deepEqual(decoded.request.threatInfo?.platformTypes, [v4.PlatformType.LINUX, v4.PlatformType.CHROME]);
    assert.deepEqual(decoded.request.threatInfo?.threatEntryTypes, [v4.ThreatEntryType.URL, v4.ThreatEntryType.CHROME_EXTENSION]);
    assert.equal(decoded.request.clientStates.length, 2);
    assert.equal(decoded.responseEncoding, 'protobuf');
  });

  it('Chromium v5: the request proto in $req on a GET route', () => {
    const request = toBinary(
      v5.SearchHashesRequestSchema,
      create(v5.SearchHashesRequestSchema, { hashPrefixes: [PREFIX, new Uint8Array(4)] }),
    );
    const decoded = expect(
      decodeWireRequest(get(`/v5/hashes:search?$req=${base64url(request)}&$ct=application/x-protobuf&key=K`)),
      'SearchHashes',
    );
    assert.deepEqual(decoded.request.hashPrefixes, [PREFIX, new Uint8Array(4)]);
    assert.equal(decoded.responseEncoding, 'protobuf');
  });

  it('Go reference client: binary POST with alt=proto (proto3, packed)', () => {
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      client: { clientId: 'GoSafeBrowser', clientVersion: '1.0.0' },
      listUpdateRequests: [
        {
          threatType: v4.ThreatType.MALWARE,
          platformType: v4.PlatformType.ANY_PLATFORM,
          threatEntryType: v4.ThreatEntryType.URL,
          constraints: { supportedCompressions: [v4.CompressionType.RICE] },
        },
        {
          threatType: v4.ThreatType.SOCIAL_ENGINEERING,
          platformType: v4.PlatformType.ANY_PLATFORM,
          threatEntryType: v4.ThreatEntryType.URL,
          state: new Uint8Array([1]),
        },
      ],
    });
    const decoded = decodeWireRequest({
      method: 'POST',
      url: '/v4/threatListUpdates:fetch?key=K&alt=proto',
      headers: { 'content-type': 'application/x-protobuf', 'user-agent': 'Go-http-client/1.1' },
      body: toBinary(v4.FetchThreatListUpdatesRequestSchema, request),
    });
    assert.deepEqual(expect(decoded, 'FetchThreatListUpdates').request, request);
    assert.equal(decoded.responseEncoding, 'protobuf');
    assert.equal(decoded.apiKey, 'K');
  });

  it('npm client: JSON POST with REST-only fields → JSON', () => {
    const body = JSON.stringify({
      client: { clientId: 'npm-test', clientVersion: '1.0' },
      apiClient: { clientId: 'npm-test', clientVersion: '1.0' },
      clientStates: ['c3RhdGU='],
      threatInfo: {
        threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING'],
        platformTypes: ['ANY_PLATFORM'],
        threatEntryTypes: ['URL'],
        threatEntries: [{ hash: 'v9APjg==' }],
      },
    });
    const decoded = decodeWireRequest({
      method: 'POST',
      url: '/v4/fullHashes:find?key=K',
      headers: { ...NPM_HEADERS, 'content-type': 'application/json' },
      body: new TextEncoder().encode(body),
    });
    const find = expect(decoded, 'FindFullHashes');
    assert.deepEqual(find.request.threatInfo?.threatTypes, [v4.ThreatType.MALWARE, v4.ThreatType.SOCIAL_ENGINEERING]);
    assert.deepEqual(find.request.threatInfo?.threatEntries[0]?.hash, PREFIX);
    assert.equal(decoded.responseEncoding, 'json');
  });

  it('npm client: JSON threatMatches:find and threatListUpdates:fetch', () => {
    const post = (url: string, json: unknown) =>
      decodeWireRequest({
        method: 'POST',
        url,
        headers: { ...NPM_HEADERS, 'content-type': 'application/json' },
        body: new TextEncoder().encode(JSON.stringify(json)),
      });
    const matches = expect(
      post('/v4/threatMatches:find?key=K', { threatInfo: { threatEntries: [{ url: 'http://malware.sbtest.example/' }] } }),
      'FindThreatMatches',
    );
    assert.equal(matches.request.threatInfo?.threatEntries[0]?.url, 'http://malware.sbtest.example/');
    const fetch = expect(
      post('/v4/threatListUpdates:fetch?key=K', {
        listUpdateRequests: [
          { threatType: 'MALWARE', platformType: 'WINDOWS', threatEntryType: 'URL', state: '', constraints: { language: 'en' } },
        ],
      }),
      'FetchThreatListUpdates',
    );
    assert.equal(fetch.request.listUpdateRequests[0]?.platformType, v4.PlatformType.WINDOWS);
    assert.equal(fetch.responseEncoding, 'json');
  });

  it('npm client: v5 GETs without alt get JSON (x-goog-api-client)', () => {
    const search = expect(decodeWireRequest(get('/v5/hashes:search?hashPrefixes=v9APjg%3D%3D&key=K', NPM_HEADERS)), 'SearchHashes');
    assert.deepEqual(search.request.hashPrefixes, [PREFIX]);
    assert.equal(search.responseEncoding, 'json');

    const batch = expect(
      decodeWireRequest(
        get('/v5/hashLists:batchGet?names=se&names=mw&version=djE%3D&version=&sizeConstraints.maxUpdateEntries=1024&key=K', NPM_HEADERS),
      ),
      'BatchGetHashLists',
    );
    assert.deepEqual(batch.request.names, ['se', 'mw']);
    assert.deepEqual(batch.request.version, [new TextEncoder().encode('v1'), NO_BODY]);
    assert.equal(batch.request.sizeConstraints?.maxUpdateEntries, 1024);
    assert.equal(batch.responseEncoding, 'json');

    const one = expect(decodeWireRequest(get('/v5/hashList/se?version=djE%3D&key=K', NPM_HEADERS)), 'GetHashList');
    assert.equal(one.request.name, 'se');
    assert.deepEqual(one.request.version, new TextEncoder().encode('v1'));
    assert.equal(one.responseEncoding, 'json');

    const list = expect(decodeWireRequest(get('/v5/hashLists?pageSize=10&key=K', NPM_HEADERS)), 'ListHashLists');
    assert.equal(list.request.pageSize, 10);
    const next = expect(decodeWireRequest(get('/v5/hashLists?pageSize=10&pageToken=c2U%3D&key=K', NPM_HEADERS)), 'ListHashLists');
    assert.equal(next.request.pageToken, 'c2U=');

    const urls = expect(
      decodeWireRequest(
        get('/v5/urls:search?urls=http%3A%2F%2Fmalware.sbtest.example%2F&urls=https%3A%2F%2Fexample.com%2F&key=K', NPM_HEADERS),
      ),
      'SearchUrls',
    );
    assert.deepEqual(urls.request.urls, ['http://malware.sbtest.example/', 'https://example.com/']);
    assert.equal(urls.responseEncoding, 'json');
  });

  it("SB-13's examples, v5alpha1 included", () => {
    const search = expect(decodeWireRequest(get('/v5/hashes:search?key=API_KEY&hashPrefixes=WwuJdQ')), 'SearchHashes');
    assert.deepEqual(search.request.hashPrefixes, [new Uint8Array([0x5b, 0x0b, 0x89, 0x75])]);
    const batch = expect(decodeWireRequest(get('/v5alpha1/hashLists:batchGet?key=API_KEY&names=se&names=mw')), 'BatchGetHashLists');
    assert.equal(batch.apiVersion, 'v5alpha1');
    assert.deepEqual(batch.request.names, ['se', 'mw']);
    const filtered = expect(
      decodeWireRequest(get('/v5alpha1/hashes:search?hashPrefixes=WwuJdQ&filter=threat_type%20%3D%3D%20ThreatType.MALWARE')),
      'SearchHashes',
    );
    assert.equal(filtered.request.filter, 'threat_type == ThreatType.MALWARE');
  });

  it('the name in the path wins over one in the query, and hashLists/{name} works too', () => {
    const decoded = expect(decodeWireRequest(get('/v5/hashLists/gc-32b?name=se-4b')), 'GetHashList');
    assert.equal(decoded.request.name, 'gc-32b');
  });

  it('reads the API key from X-Goog-Api-Key when the query has none', () => {
    assert.equal(decodeWireRequest(get('/v5/hashes:search?hashPrefixes=v9APjg', { 'X-Goog-Api-Key': 'H' })).apiKey, 'H');
    assert.equal(decodeWireRequest(get('/v5/hashes:search?hashPrefixes=v9APjg&key=Q', { 'x-goog-api-key': 'H' })).apiKey, 'Q');
    assert.equal(decodeWireRequest(get('/v5/hashes:search?hashPrefixes=v9APjg')).apiKey, undefined);
  });

  it('v4 threatLists is a plain GET; threatHits a POST', () => {
    assert.equal(decodeWireRequest(get('/v4/threatLists?key=K')).rpc, 'ListThreatLists');
    const hit = create(v4.ThreatHitSchema, { threatType: 5, entry: { url: 'bad.example/' } });
    const decoded = decodeWireRequest({
      method: 'GET',
      url: `/v4/threatHits?$ct=application/x-protobuf&$httpMethod=POST&$req=${base64url(toBinary(v4.ThreatHitSchema, hit))}`,
      headers: {},
      body: NO_BODY,
    });
    assert.deepEqual(expect(decoded, 'CreateThreatHit').request, hit);
  });

  it('a POST body without a usable Content-Type is JSON when it starts with {, binary otherwise', () => {
    const json = decodeWireRequest({
      method: 'POST',
      url: '/v4/threatMatches:find',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new TextEncoder().encode(' {"client":{"clientId":"curl"}}'),
    });
    assert.equal(expect(json, 'FindThreatMatches').request.client?.clientId, 'curl');
    const request = create(v4.FindThreatMatchesRequestSchema, { client: { clientId: 'bin' } });
    const binary = decodeWireRequest({
      method: 'POST',
      url: '/v4/threatMatches:find',
      headers: {},
      body: toBinary(v4.FindThreatMatchesRequestSchema, request),
    });
    assert.equal(expect(binary, 'FindThreatMatches').request.client?.clientId, 'bin');
    assert.equal(binary.responseEncoding, 'protobuf');
  });

  it('a JSON $req envelope is read as JSON', () => {
    const envelope = base64url(
      new TextEncoder().encode(
        toJsonString(v5.SearchHashesRequestSchema, create(v5.SearchHashesRequestSchema, { hashPrefixes: [PREFIX] })),
      ),
    );
    const decoded = decodeWireRequest(get(`/v5/hashes:search?$req=${envelope}&$ct=application/json`));
    assert.deepEqual(expect(decoded, 'SearchHashes').request.hashPrefixes, [PREFIX]);
    assert.equal(decoded.responseEncoding, 'json');
  });
});

describe('decodeWireRequest: hostile and malformed input', () => {
  function refuses(request: WireRequest, httpStatus: number, status: string, message?: RegExp, maxBodyBytes?: number) {
    assert.throws(
      () => decodeWireRequest(request, maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      (error: unknown) => {
        assert.ok(error instanceof WireError, String(error));
        assert.equal(error.httpStatus, httpStatus, error.message);
        assert.equal(error.status, status);
        if (message !== undefined) assert.match(error.message, message);
        return true;
      },
    );
  }
  const post = (url: string, body: Uint8Array | string, contentType?: string): WireRequest => ({
    method: 'POST',
    url,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
  });
  const prefixes = (count: number) =>
    Array.from({ length: count }, (_, i) => `hashPrefixes=${base64url(new Uint8Array([0, 0, i >> 8, i & 0xff]))}`).join('&');

  it('malformed base64 → 400', () => {
    refuses(get('/v5/hashes:search?hashPrefixes=v9AP!g'), 400, 'INVALID_ARGUMENT', /hashPrefixes\[0\] is not valid base64/);
    refuses(get('/v5/hashLists:batchGet?names=se&version=djE%3D%3D%3D'), 400, 'INVALID_ARGUMENT', /version\[0\]/);
    refuses(get('/v4/fullHashes:find?$req=%%%', { 'x-http-method-override': 'POST' }), 400, 'INVALID_ARGUMENT');
    refuses(
      get('/v4/fullHashes:find?$req=ab.c', { 'x-http-method-override': 'POST' }),
      400,
      'INVALID_ARGUMENT',
      /\$req is not valid base64/,
    );
  });

  it('malformed percent-escapes → 400', () => {
    refuses(get('/v5/hashes:search?hashPrefixes=%ZZ'), 400, 'INVALID_ARGUMENT', /percent-escape/);
    refuses(get('/v5/hashList/%E0%A4%A'), 400, 'INVALID_ARGUMENT');
  });

  it('malformed or truncated protobuf → 400', () => {
    refuses(
      post('/v4/threatListUpdates:fetch?alt=proto', CHROMIUM_FIND.slice(0, 20), 'application/x-protobuf'),
      400,
      'INVALID_ARGUMENT',
      /not a valid binary protobuf/,
    );
    refuses(post('/v4/fullHashes:find', bytes([0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f]), 'application/x-protobuf'), 400, 'INVALID_ARGUMENT');
    refuses(
      get(`/v4/fullHashes:find?$req=${base64url(CHROMIUM_FIND.slice(0, -3))}`, { 'x-http-method-override': 'POST' }),
      400,
      'INVALID_ARGUMENT',
      /\$req is not a valid/,
    );
  });

  it('invalid JSON and JSON of the wrong shape → 400', () => {
    refuses(post('/v4/fullHashes:find', '{"client": {', 'application/json'), 400, 'INVALID_ARGUMENT', /not a valid proto3 JSON/);
    refuses(post('/v4/fullHashes:find', '["client"]', 'application/json'), 400, 'INVALID_ARGUMENT');
    refuses(post('/v4/fullHashes:find', '{"threatInfo":{"threatEntries":"v9APjg=="}}', 'application/json'), 400, 'INVALID_ARGUMENT');
    refuses(post('/v4/fullHashes:find', 'null', 'application/json'), 400, 'INVALID_ARGUMENT');
  });

  it('more than 1000 prefixes, prefixes of the wrong length → 400', () => {
    assert.equal(decodeWireRequest(get(`/v5/hashes:search?${prefixes(1000)}`)).rpc, 'SearchHashes');
    refuses(get(`/v5/hashes:search?${prefixes(1001)}`), 400, 'INVALID_ARGUMENT', /at most 1000/);
    refuses(get('/v5/hashes:search?hashPrefixes=v9APjgA'), 400, 'INVALID_ARGUMENT', /exactly 4 bytes/);
    refuses(get('/v5/hashes:search?hashPrefixes='), 400, 'INVALID_ARGUMENT', /exactly 4 bytes/);
    refuses(get('/v5/hashes:search?key=K'), 400, 'INVALID_ARGUMENT', /hashPrefixes is required/);
  });

  it('more than 50 URLs for urls:search → 400', () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `urls=http%3A%2F%2Fe${i}.example%2F`).join('&');
    assert.equal(decodeWireRequest(get(`/v5/urls:search?${urls(50)}`)).rpc, 'SearchUrls');
    refuses(get(`/v5/urls:search?${urls(51)}`), 400, 'INVALID_ARGUMENT', /at most 50/);
  });

  it('duplicate names in batchGet, bad names, repeated singular parameters → 400', () => {
    refuses(get('/v5/hashLists:batchGet?names=se-4b&names=mw-4b&names=se-4b'), 400, 'INVALID_ARGUMENT', /repeats "se-4b"/);
    refuses(get('/v5/hashLists:batchGet?names=se%2F4b'), 400, 'INVALID_ARGUMENT', /not a list name/);
    refuses(get('/v5/hashLists:batchGet'), 400, 'INVALID_ARGUMENT', /names is required/);
    refuses(get('/v5/hashLists?pageSize=1&pageSize=2'), 400, 'INVALID_ARGUMENT', /more than once/);
    refuses(get('/v5/hashLists?pageSize=ten'), 400, 'INVALID_ARGUMENT', /whole number/);
    refuses(get('/v5/hashes:search?hashPrefixes=v9APjg&key=a&key=b'), 400, 'INVALID_ARGUMENT', /key is given more than once/);
  });

  it('a body over the cap → 413 RESOURCE_EXHAUSTED, for a body and for $req', () => {
    refuses(
      post('/v4/fullHashes:find', new Uint8Array(2048), 'application/x-protobuf'),
      413,
      'RESOURCE_EXHAUSTED',
      /2048 bytes; this server accepts at most 1024/,
      1024,
    );
    refuses(
      get(`/v4/fullHashes:find?$req=${'A'.repeat(4000)}`, { 'x-http-method-override': 'POST' }),
      413,
      'RESOURCE_EXHAUSTED',
      /\$req/,
      1024,
    );
    refuses(post('/v5/nowhere', new Uint8Array(2048)), 413, 'RESOURCE_EXHAUSTED', undefined, 1024);
  });

  it('wrong method → 405; unknown path → 404', () => {
    refuses(post('/v5/hashes:search?hashPrefixes=v9APjg', ''), 405, 'UNIMPLEMENTED', /does not accept POST; use GET/);
    refuses(get('/v4/fullHashes:find'), 405, 'UNIMPLEMENTED', /use POST/);
    refuses({ ...get('/v5/hashLists'), method: 'DELETE' }, 405, 'UNIMPLEMENTED');
    refuses(get('/v5/hashes:search', { 'x-http-method-override': 'PUT' }), 405, 'UNIMPLEMENTED');
    refuses(get('/v6/hashes:search'), 404, 'NOT_FOUND');
    refuses(get('/favicon.ico'), 404, 'NOT_FOUND');
    refuses(get(''), 404, 'NOT_FOUND');
  });

  it('an alt it cannot serve, a request in both $req and body, a GET with a body → 400', () => {
    refuses(get('/v5/hashes:search?hashPrefixes=v9APjg&alt=xml'), 400, 'INVALID_ARGUMENT', /alt=/);
    refuses(get('/v5/hashes:search?hashPrefixes=v9APjg&$alt=json%2Bprotobuf'), 400, 'INVALID_ARGUMENT');
    refuses(
      post(`/v4/fullHashes:find?$req=${base64url(CHROMIUM_FIND)}`, CHROMIUM_FIND),
      400,
      'INVALID_ARGUMENT',
      /both in \$req and in the body/,
    );
    refuses({ ...get('/v5/hashes:search?hashPrefixes=v9APjg'), body: new Uint8Array([1]) }, 400, 'INVALID_ARGUMENT', /body must be empty/);
  });

  it('property: arbitrary requests decode or raise WireError, never anything else', () => {
    const path = fc.constantFrom(
      '/v5/hashes:search',
      '/v5alpha1/hashes:search',
      '/v5/hashLists:batchGet',
      '/v5/hashList/se-4b',
      '/v5/hashLists/x',
      '/v5/hashLists',
      '/v5/urls:search',
      '/v4/threatListUpdates:fetch',
      '/v4/fullHashes:find',
      '/v4/threatMatches:find',
      '/v4/threatLists',
      '/v4/threatHits',
      '/v5/hashList/',
      '/nope',
    );
    const parameterName = fc.constantFrom(
      'hashPrefixes',
      'names',
      'version',
      'sizeConstraints.maxUpdateEntries',
      'pageSize',
      'pageToken',
      'urls',
      'filter',
      'key',
      'alt',
      '$alt',
      '$ct',
      '$req',
      '$httpMethod',
      'name',
      'x',
    );
    const parameterValue = fc.oneof(
      fc.string(),
      fc.constantFrom('v9APjg%3D%3D', 'v9APjg', 'proto', 'json', 'POST', 'application/x-protobuf', 'application/json', '%', '-1', '1024'),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url')),
    );
    const query = fc
      .array(fc.tuple(parameterName, parameterValue), { maxLength: 6 })
      .map((ps) => ps.map(([n, v]) => `${n}=${v}`).join('&'));
    const headers = fc.dictionary(
      fc.constantFrom('content-type', 'accept', 'x-http-method-override', 'x-goog-api-client', 'X-Goog-Api-Key'),
      fc.constantFrom('application/json', 'application/x-protobuf', '*/*', 'POST', 'GET', 'gdcl/1', ''),
    );
    const body = fc.oneof(
      fc.constant(NO_BODY),
      fc.uint8Array({ maxLength: 120 }),
      fc.json().map((j) => new TextEncoder().encode(j)),
      fc.constant(CHROMIUM_FIND),
    );
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT'),
      url: fc.oneof(
        fc.tuple(path, query).map(([p, q]) => `${p}?${q}`),
        fc.string(),
      ),
      headers,
      body,
    });
    fc.assert(
      fc.property(request, (candidate) => {
        try {
          decodeWireRequest(candidate, { maxBodyBytes: 100 });
        } catch (error) {
          assert.ok(error instanceof WireError, `not a WireError: ${String(error)}`);
          assert.ok(error.httpStatus >= 400 && error.httpStatus < 500, String(error));
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe('v4 requests in the path (encodedUpdates, encodedFullHashes)', () => {
  it('decodes the serialized request from the last path segment', () => {
    const find = create(v4.FindFullHashesRequestSchema, { threatInfo: { threatEntries: [{ hash: Uint8Array.of(1, 2, 3, 4) }] } });
    const encoded = Buffer.from(toBinary(v4.FindFullHashesRequestSchema, find)).toString('base64url');
    const decoded = decodeWireRequest({
      method: 'GET',
      url: `/v4/encodedFullHashes/${encoded}?clientId=x&clientVersion=1&alt=json`,
      headers: {},
      body: new Uint8Array(0),
    });
    assert.equal(decoded.rpc, 'FindFullHashes');
    assert.equal(decoded.responseEncoding, 'json');
    assert.deepEqual(decoded.rpc === 'FindFullHashes' && [...decoded.request.threatInfo!.threatEntries[0]!.hash], [1, 2, 3, 4]);
    const update = create(v4.FetchThreatListUpdatesRequestSchema, {
      listUpdateRequests: [{ threatType: 1, platformType: 6, threatEntryType: 1 }],
    });
    const updates = decodeWireRequest({
      method: 'GET',
      url: `/v4/encodedUpdates/${Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, update)).toString('base64')}`,
      headers: {},
      body: new Uint8Array(0),
    });
    assert.equal(updates.rpc, 'FetchThreatListUpdates');
  });

  it('refuses garbage in the path and other methods', () => {
    assert.throws(
      () => decodeWireRequest({ method: 'GET', url: '/v4/encodedUpdates/%%%', headers: {}, body: new Uint8Array(0) }),
      WireError,
    );
    assert.throws(
      () => decodeWireRequest({ method: 'GET', url: '/v4/encodedUpdates/!!!!', headers: {}, body: new Uint8Array(0) }),
      WireError,
    );
    assert.throws(
      () => decodeWireRequest({ method: 'POST', url: '/v4/encodedUpdates/AAAA', headers: {}, body: new Uint8Array(0) }),
      (err: unknown) => err instanceof WireError && err.httpStatus === 405,
    );
  });
});

// What @google-cloud/web-risk 6.2.0 sends in its REST mode (fallback: true), captured on loopback.
const WEB_RISK_HEADERS = {
  accept: '*/*',
  'content-type': 'application/json',
  'user-agent': 'google-api-nodejs-client/11.3.4',
  'x-goog-api-client': 'gax/6.17.0-fallback gapic/6.2.0 gl-node/20.20.2 rest/6.17.0 grpc-web/6.17.0-fallback',
  'x-goog-api-key': 'K1',
};

describe("decodeWireRequest: Web Risk v1, as Google's Node client sends it", () => {
  it('computeDiff: enums by number, nested constraints, a standard-base64 token, enum-encoding=int', () => {
    const decoded = expect(
      decodeWireRequest(
        get(
          '/v1/threatLists:computeDiff?threatType=1&versionToken=AQID&constraints.supportedCompressions=1&constraints.supportedCompressions=2&constraints.maxDiffEntries=1024&constraints.maxDatabaseEntries=4096&$alt=json%3Benum-encoding=int',
          WEB_RISK_HEADERS,
        ),
      ),
      'ComputeThreatListDiff',
    );
    assert.equal(decoded.apiVersion, 'v1');
    assert.equal(decoded.request.threatType, 1);
    assert.deepEqual([...decoded.request.versionToken], [1, 2, 3]);
    assert.deepEqual(decoded.request.constraints?.supportedCompressions, [1, 2]);
    assert.equal(decoded.request.constraints?.maxDiffEntries, 1024);
    assert.equal(decoded.request.constraints?.maxDatabaseEntries, 4096);
    assert.equal(decoded.responseEncoding, 'json');
    assert.equal(decoded.enumsAsNumbers, true);
    assert.equal(decoded.apiKey, 'K1');
  });

  it('uris:search and hashes:search: repeated threat types, the prefix in standard base64', () => {
    const uris = expect(
      decodeWireRequest(
        get(
          '/v1/uris:search?threatTypes=1&threatTypes=2&uri=http%3A//testsafebrowsing.appspot.com/s/malware.html&$alt=json%3Benum-encoding=int',
          WEB_RISK_HEADERS,
        ),
      ),
      'SearchUris',
    );
    assert.equal(uris.request.uri, 'http://testsafebrowsing.appspot.com/s/malware.html');
    assert.deepEqual(uris.request.threatTypes, [1, 2]);
    const hashes = expect(
      decodeWireRequest(get('/v1/hashes:search?threatTypes=1&hashPrefix=3q2%2B7w%3D%3D&$alt=json%3Benum-encoding=int', WEB_RISK_HEADERS)),
      'WebRiskSearchHashes',
    );
    assert.deepEqual([...hashes.request.hashPrefix], [0xde, 0xad, 0xbe, 0xef]);
    assert.deepEqual(hashes.request.threatTypes, [1]);
  });

  it('takes enums by name too, as curl users write them, and answers them by name without enum-encoding', () => {
    const decoded = expect(
      decodeWireRequest(get('/v1/uris:search?threatTypes=MALWARE&threatTypes=UNWANTED_SOFTWARE&uri=a.example&key=K')),
      'SearchUris',
    );
    assert.deepEqual(decoded.request.threatTypes, [1, 3]);
    assert.equal(decoded.enumsAsNumbers, false);
    assert.throws(
      () => decodeWireRequest(get('/v1/uris:search?threatTypes=MALWAR&uri=a.example')),
      (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT' && /MALWAR.*no ThreatType/.test(error.message),
    );
  });

  it('submissions: the body is the Submission, the project comes from the path', () => {
    const decoded = expect(
      decodeWireRequest({
        method: 'POST',
        url: '/v1/projects/my-project/submissions?$alt=json%3Benum-encoding=int',
        headers: { ...WEB_RISK_HEADERS, 'x-goog-request-params': 'parent=projects%2Fmy-project' },
        body: new TextEncoder().encode('{"uri":"http://bad.example/"}'),
      }),
      'CreateSubmission',
    );
    assert.equal(decoded.request.parent, 'projects/my-project');
    assert.equal(decoded.request.submission?.uri, 'http://bad.example/');
    assert.throws(
      () =>
        decodeWireRequest({
          method: 'POST',
          url: '/v1/projects/my-project/submissions',
          headers: { 'content-type': 'application/json' },
          body: new TextEncoder().encode('{"uri": 5'),
        }),
      (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT',
    );
  });
});
