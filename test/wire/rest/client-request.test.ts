import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { buildWireRequest } from '../../../src/wire/rest/client-request.ts';
import type { OutgoingRequest } from '../../../src/wire/rest/client-request.ts';
import { decodeWireRequest } from '../../../src/wire/rest/server-request.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

const GOOGLE = 'https://safebrowsing.googleapis.com';
const PREFIX = new Uint8Array([0xbf, 0xd0, 0x0f, 0x8e]);

// What our server makes of what our client sends.
function serve(outgoing: OutgoingRequest) {
  const url = new URL(outgoing.url);
  return decodeWireRequest({
    method: outgoing.method,
    url: url.pathname + url.search,
    headers: outgoing.headers,
    body: outgoing.body ?? new Uint8Array(),
  });
}

describe('buildWireRequest: v5', () => {
  it('hashes:search with base64url prefixes, the key, and alt=proto', () => {
    const request = create(v5.SearchHashesRequestSchema, { hashPrefixes: [PREFIX, new Uint8Array([0xfb, 0xff, 0xbf, 0x00])] });
    const outgoing = buildWireRequest(GOOGLE, 'SearchHashes', request, { apiKey: 'K' });
    assert.deepEqual(outgoing, {
      method: 'GET',
      url: `${GOOGLE}/v5/hashes:search?key=K&alt=proto&hashPrefixes=v9APjg&hashPrefixes=-_-_AA`,
      headers: { accept: 'application/x-protobuf' },
      body: undefined,
    });
  });

  it('batchGet with names, positional versions (empty ones kept) and size constraints', () => {
    const request = create(v5.BatchGetHashListsRequestSchema, {
      names: ['se-4b', 'mw-4b', 'uws-4b'],
      version: [new Uint8Array([0x76, 0x31]), new Uint8Array(), new Uint8Array([0xff])],
      sizeConstraints: { maxUpdateEntries: 1024, maxDatabaseEntries: 1 << 20 },
    });
    const outgoing = buildWireRequest('http://127.0.0.1:8080/', 'BatchGetHashLists', request, { apiVersion: 'v5alpha1' });
    assert.equal(
      outgoing.url,
      'http://127.0.0.1:8080/v5alpha1/hashLists:batchGet?alt=proto&names=se-4b&names=mw-4b&names=uws-4b&version=djE&version=&version=_w' +
        '&sizeConstraints.maxUpdateEntries=1024&sizeConstraints.maxDatabaseEntries=1048576',
    );
  });

  it('hashList/{name} puts the name in the (singular) path, not the query', () => {
    const request = create(v5.GetHashListRequestSchema, { name: 'gc-32b', version: new Uint8Array([1]) });
    const outgoing = buildWireRequest(`${GOOGLE}/prefix`, 'GetHashList', request, { encoding: 'json' });
    assert.equal(outgoing.url, `${GOOGLE}/prefix/v5/hashList/gc-32b?alt=json&version=AQ`);
    assert.equal(outgoing.headers['accept'], 'application/json; charset=utf-8');
  });

  it('refuses a list name the server would refuse', () => {
    assert.throws(() => buildWireRequest(GOOGLE, 'GetHashList', create(v5.GetHashListRequestSchema, { name: 'a/b' })), WireError);
  });

  it('hashLists with page size and token', () => {
    const outgoing = buildWireRequest(GOOGLE, 'ListHashLists', create(v5.ListHashListsRequestSchema, { pageSize: 10, pageToken: 'n x' }));
    assert.equal(outgoing.url, `${GOOGLE}/v5/hashLists?alt=proto&pageSize=10&pageToken=n%20x`);
  });
});

describe('buildWireRequest: v4', () => {
  const request = create(v4.FetchThreatListUpdatesRequestSchema, {
    client: { clientId: 'sbkit', clientVersion: '0.1.0' },
    listUpdateRequests: [
      { threatType: v4.ThreatType.MALWARE, platformType: v4.PlatformType.ANY_PLATFORM, threatEntryType: v4.ThreatEntryType.URL },
    ],
  });

  it('binary POST with alt=proto, like the Go client', () => {
    const outgoing = buildWireRequest(GOOGLE, 'FetchThreatListUpdates', request, { apiKey: 'K', apiVersion: 'v5alpha1' });
    assert.equal(outgoing.method, 'POST');
    assert.equal(outgoing.url, `${GOOGLE}/v4/threatListUpdates:fetch?key=K&alt=proto`);
    assert.equal(outgoing.headers['content-type'], 'application/x-protobuf');
    assert.deepEqual(fromBinary(v4.FetchThreatListUpdatesRequestSchema, outgoing.body!), request);
  });

  it('JSON POST with alt=json, like the npm client', () => {
    const outgoing = buildWireRequest(GOOGLE, 'FetchThreatListUpdates', request, { encoding: 'json' });
    assert.equal(outgoing.url, `${GOOGLE}/v4/threatListUpdates:fetch?alt=json`);
    assert.equal(outgoing.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(new TextDecoder().decode(outgoing.body)), {
      client: { clientId: 'sbkit', clientVersion: '0.1.0' },
      listUpdateRequests: [{ threatType: 'MALWARE', platformType: 'ANY_PLATFORM', threatEntryType: 'URL' }],
    });
  });

  it('threatLists is a GET without a body', () => {
    const outgoing = buildWireRequest(GOOGLE, 'ListThreatLists', create(EmptySchema));
    assert.equal(outgoing.method, 'GET');
    assert.equal(outgoing.url, `${GOOGLE}/v4/threatLists?alt=proto`);
    assert.equal(outgoing.body, undefined);
  });
});

describe('our server decodes what our client sends', () => {
  const prefix = fc.uint8Array({ minLength: 4, maxLength: 4 });
  const name = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
  const encoding = fc.constantFrom('json' as const, 'protobuf' as const);

  it('property: hashes:search', () => {
    fc.assert(
      fc.property(
        fc.array(prefix, { minLength: 1, maxLength: 30 }),
        encoding,
        fc.constantFrom('v5' as const, 'v5alpha1' as const),
        (hashPrefixes, enc, apiVersion) => {
          const request = create(v5.SearchHashesRequestSchema, { hashPrefixes });
          const decoded = serve(buildWireRequest(GOOGLE, 'SearchHashes', request, { apiKey: 'K', encoding: enc, apiVersion }));
          assert.equal(decoded.rpc, 'SearchHashes');
          assert.deepEqual(decoded.request, request);
          assert.equal(decoded.responseEncoding, enc);
          assert.equal(decoded.apiVersion, apiVersion);
          assert.equal(decoded.apiKey, 'K');
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('property: batchGet, positional versions included', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 8 }),
        fc.array(fc.uint8Array({ maxLength: 16 }), { maxLength: 8 }),
        fc.nat(1 << 20),
        (names, version, maxUpdateEntries) => {
          const request = create(v5.BatchGetHashListsRequestSchema, { names, version, sizeConstraints: { maxUpdateEntries } });
          const decoded = serve(buildWireRequest(GOOGLE, 'BatchGetHashLists', request));
          assert.equal(decoded.rpc, 'BatchGetHashLists');
          assert.deepEqual(decoded.request.names, names);
          assert.deepEqual(decoded.request.version, version);
          assert.equal(decoded.request.sizeConstraints?.maxUpdateEntries ?? 0, maxUpdateEntries);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('property: v4 fullHashes:find in both encodings', () => {
    const hash = fc.uint8Array({ minLength: 4, maxLength: 32 });
    const threatType = fc.constantFrom(...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17]);
    fc.assert(
      fc.property(
        fc.array(hash, { maxLength: 10 }),
        fc.array(threatType, { maxLength: 11 }),
        fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 3 }),
        encoding,
        (hashes, threatTypes, clientStates, enc) => {
          const request = create(v4.FindFullHashesRequestSchema, {
            clientStates,
            threatInfo: {
              threatTypes,
              platformTypes: [v4.PlatformType.LINUX, v4.PlatformType.CHROME],
              threatEntries: hashes.map((h) => ({ hash: h })),
            },
          });
          const decoded = serve(buildWireRequest(GOOGLE, 'FindFullHashes', request, { encoding: enc }));
          assert.equal(decoded.rpc, 'FindFullHashes');
          assert.deepEqual(toBinary(v4.FindFullHashesRequestSchema, decoded.request), toBinary(v4.FindFullHashesRequestSchema, request));
          assert.equal(decoded.responseEncoding, enc);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
