import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import * as webrisk from '../../../src/proto/webrisk.ts';
import {
  MAX_HASH_PREFIXES,
  MAX_LIST_UPDATE_REQUESTS,
  MAX_SEARCH_URLS,
  MAX_THREAT_MATCH_URLS,
  checkRequestRules,
} from '../../../src/wire/rest/request-rules.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

const prefix = (n: number) => new Uint8Array([n >> 24, n >> 16, n >> 8, n].map((b) => b & 0xff));

function refused(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof WireError && error.status === 'INVALID_ARGUMENT' && error.httpStatus === 400, String(error));
    assert.match(error.message, pattern);
    return true;
  };
}

describe('checkRequestRules: SearchHashes', () => {
  const search =
    (hashPrefixes: Uint8Array[], filter = '', apiVersion: 'v5' | 'v5alpha1' = 'v5') =>
    () =>
      checkRequestRules({ rpc: 'SearchHashes', apiVersion, request: create(v5.SearchHashesRequestSchema, { hashPrefixes, filter }) });

  it('accepts 1 to 1000 prefixes of 4 bytes', () => {
    assert.doesNotThrow(search([prefix(1)]));
    assert.doesNotThrow(search(Array.from({ length: MAX_HASH_PREFIXES }, (_, i) => prefix(i))));
  });

  it('refuses none, more than 1000, and prefixes of another length', () => {
    assert.throws(search([]), refused(/hashPrefixes is required/));
    assert.throws(
      search(Array.from({ length: MAX_HASH_PREFIXES + 1 }, (_, i) => prefix(i))),
      refused(/1001 hashPrefixes sent; at most 1000/),
    );
    assert.throws(
      search([prefix(1), new Uint8Array(5)]),
      refused(/hashPrefixes\[1\] is 5 bytes long; each hash prefix must be exactly 4 bytes/),
    );
    assert.throws(search([new Uint8Array(32)]), refused(/exactly 4 bytes/));
    assert.throws(search([new Uint8Array()]), refused(/is 0 bytes long/));
  });

  it('accepts filter only under v5alpha1', () => {
    assert.doesNotThrow(search([prefix(1)], 'threat_type == ThreatType.SOCIAL_ENGINEERING', 'v5alpha1'));
    assert.throws(search([prefix(1)], 'threat_type == 2', 'v5'), refused(/filter is only available under \/v5alpha1\//));
  });
});

describe('checkRequestRules: hash lists', () => {
  const batch =
    (names: string[], maxUpdateEntries = 0) =>
    () =>
      checkRequestRules({
        rpc: 'BatchGetHashLists',
        apiVersion: 'v5',
        request: create(v5.BatchGetHashListsRequestSchema, { names, sizeConstraints: { maxUpdateEntries } }),
      });

  it('BatchGetHashLists: names required, valid and distinct', () => {
    assert.doesNotThrow(batch(['se-4b', 'mw-4b', 'uws-4b', 'mwb-4b', 'csdda-32b']));
    assert.throws(batch([]), refused(/names is required/));
    assert.throws(batch(['se-4b', 'mw-4b', 'se-4b']), refused(/names\[2\] repeats "se-4b"; name each list once/));
    assert.throws(batch(['se-4b', 'a/b']), refused(/names\[1\]: "a\/b" is not a list name/));
    assert.throws(batch(['se-4b'], -1), refused(/sizeConstraints must not be negative/));
  });

  it('GetHashList: a valid name and non-negative constraints', () => {
    const get =
      (name: string, maxDatabaseEntries = 0) =>
      () =>
        checkRequestRules({
          rpc: 'GetHashList',
          apiVersion: 'v5',
          request: create(v5.GetHashListRequestSchema, { name, sizeConstraints: { maxDatabaseEntries } }),
        });
    assert.doesNotThrow(get('gc-32b', 1 << 20));
    assert.throws(get(''), refused(/name is empty/));
    assert.throws(get('se', -1), refused(/must not be negative/));
  });

  it('ListHashLists: pageSize not negative', () => {
    const list = (pageSize: number) => () =>
      checkRequestRules({ rpc: 'ListHashLists', apiVersion: 'v5', request: create(v5.ListHashListsRequestSchema, { pageSize }) });
    assert.doesNotThrow(list(0));
    assert.doesNotThrow(list(10));
    assert.throws(list(-1), refused(/pageSize must not be negative/));
  });
});

describe('checkRequestRules: urls.search', () => {
  const urls = (count: number) => () =>
    checkRequestRules({
      rpc: 'SearchUrls',
      apiVersion: 'v5',
      request: create(v5.SearchUrlsRequestSchema, { urls: Array.from({ length: count }, (_, i) => `http://e${i}.example/`) }),
    });

  it('accepts 1 to 50 URLs', () => {
    assert.doesNotThrow(urls(1));
    assert.doesNotThrow(urls(MAX_SEARCH_URLS));
  });

  it('refuses none and more than 50', () => {
    assert.throws(urls(0), refused(/urls is required/));
    assert.throws(urls(MAX_SEARCH_URLS + 1), refused(/51 urls sent; at most 50/));
  });
});

describe('checkRequestRules: v4', () => {
  const find = (lengths: number[]) => () =>
    checkRequestRules({
      rpc: 'FindFullHashes',
      apiVersion: 'v4',
      request: create(v4.FindFullHashesRequestSchema, { threatInfo: { threatEntries: lengths.map((n) => ({ hash: new Uint8Array(n) })) } }),
    });

  it('FindFullHashes: hashes of 4 to 32 bytes', () => {
    assert.doesNotThrow(find([4, 8, 32]));
    assert.doesNotThrow(find([]));
    assert.throws(find([4, 3]), refused(/threatInfo\.threatEntries\[1\]\.hash is 3 bytes long; hash prefixes have 4 to 32 bytes/));
    assert.throws(find([33]), refused(/33 bytes/));
  });

  it('FindFullHashes: at most 1000 hash prefixes', () => {
    assert.doesNotThrow(find(Array.from({ length: MAX_HASH_PREFIXES }, () => 4)));
    assert.throws(
      find(Array.from({ length: MAX_HASH_PREFIXES + 1 }, () => 4)),
      refused(/1001 threatInfo\.threatEntries sent; at most 1000 hash prefixes/),
    );
  });

  it('FindThreatMatches: at most 500 URLs', () => {
    const matches = (count: number) => () =>
      checkRequestRules({
        rpc: 'FindThreatMatches',
        apiVersion: 'v4',
        request: create(v4.FindThreatMatchesRequestSchema, {
          threatInfo: { threatEntries: Array.from({ length: count }, (_, i) => ({ url: `http://e${i}.example/` })) },
        }),
      });
    assert.doesNotThrow(matches(MAX_THREAT_MATCH_URLS));
    assert.throws(matches(MAX_THREAT_MATCH_URLS + 1), refused(/501 threatInfo\.threatEntries sent; at most 500 URLs/));
  });

  it('FetchThreatListUpdates: at most 100 list requests, each triple once', () => {
    const fetch = (triples: [number, number, number][]) => () =>
      checkRequestRules({
        rpc: 'FetchThreatListUpdates',
        apiVersion: 'v4',
        request: create(v4.FetchThreatListUpdatesRequestSchema, {
          listUpdateRequests: triples.map(([threatType, platformType, threatEntryType]) => ({ threatType, platformType, threatEntryType })),
        }),
      });
    assert.doesNotThrow(fetch([]));
    // Chromium asks for one list per platform: the same threat type on two platforms is two lists.
    assert.doesNotThrow(
      fetch([
        [1, 1, 1],
        [1, 2, 1],
        [2, 1, 1],
      ]),
    );
    assert.doesNotThrow(fetch(Array.from({ length: MAX_LIST_UPDATE_REQUESTS }, (_, i): [number, number, number] => [1, i, 1])));
    assert.throws(
      fetch(Array.from({ length: MAX_LIST_UPDATE_REQUESTS + 1 }, (_, i): [number, number, number] => [1, i, 1])),
      refused(/101 listUpdateRequests sent; at most 100/),
    );
    assert.throws(
      fetch([
        [1, 1, 1],
        [2, 1, 1],
        [1, 1, 1],
      ]),
      refused(/listUpdateRequests\[2\] repeats the list \(threatType 1, platformType 1, threatEntryType 1\); ask for each list once/),
    );
  });

  it('has no rules for threatLists', () => {
    assert.doesNotThrow(() => checkRequestRules({ rpc: 'ListThreatLists', apiVersion: 'v4', request: create(EmptySchema) }));
  });
});

describe('checkRequestRules: Web Risk CreateSubmission', () => {
  const submit = (uri: string) => () =>
    checkRequestRules({
      rpc: 'CreateSubmission',
      apiVersion: 'v1',
      request: create(webrisk.CreateSubmissionRequestSchema, { parent: 'projects/p', submission: { uri } }),
    });

  it('takes a URI of up to 4096 characters, and refuses none and a longer one', () => {
    assert.doesNotThrow(submit(`http://a.example/${'x'.repeat(4096 - 17)}`));
    assert.throws(submit(''), refused(/submission\.uri is required/));
    assert.throws(submit(`http://a.example/${'x'.repeat(4096 - 16)}`), refused(/4097 characters long; a reported URI has at most 4096/));
  });
});
