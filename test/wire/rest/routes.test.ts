import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { PlatformType, ThreatEntryType, ThreatType } from '../../../src/proto/v4.ts';
import { isListUpdate, listsNamedBy, RPCS, matchRoute, rpcPath } from '../../../src/wire/rest/routes.ts';
import type { AnyRpc, ApiVersion, RpcCall } from '../../../src/wire/rest/routes.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

function hasStatus(httpStatus: number, status: string) {
  return (error: unknown) => error instanceof WireError && error.httpStatus === httpStatus && error.status === status;
}

describe('matchRoute: every path of the REST surface (docs/api.md)', () => {
  const v5Paths: Array<[string, string]> = [
    ['hashes:search', 'SearchHashes'],
    ['hashList/se-4b', 'GetHashList'],
    ['hashLists/se-4b', 'GetHashList'],
    ['hashLists:batchGet', 'BatchGetHashLists'],
    ['hashLists', 'ListHashLists'],
    ['urls:search', 'SearchUrls'],
  ];

  for (const version of ['v5', 'v5alpha1'] as const) {
    for (const [rest, rpc] of v5Paths) {
      it(`GET /${version}/${rest} → ${rpc}`, () => {
        const match = matchRoute('GET', `/${version}/${rest}`);
        assert.equal(match.rpc.id, rpc);
        assert.equal(match.apiVersion, version);
        assert.equal(match.listName, rpc === 'GetHashList' ? 'se-4b' : undefined);
      });
    }
  }

  const v4Paths: Array<[string, string, string]> = [
    ['POST', 'threatListUpdates:fetch', 'FetchThreatListUpdates'],
    ['POST', 'fullHashes:find', 'FindFullHashes'],
    ['POST', 'threatMatches:find', 'FindThreatMatches'],
    ['GET', 'threatLists', 'ListThreatLists'],
    ['POST', 'threatHits', 'CreateThreatHit'],
  ];
  for (const [method, rest, rpc] of v4Paths) {
    it(`${method} /v4/${rest} → ${rpc}`, () => {
      const match = matchRoute(method, `/v4/${rest}`);
      assert.equal(match.rpc.id, rpc);
      assert.equal(match.apiVersion, 'v4');
    });
  }

  it('does not take :batchGet for a list name', () => {
    assert.equal(matchRoute('GET', '/v5/hashLists:batchGet').rpc.id, 'BatchGetHashLists');
    assert.throws(() => matchRoute('GET', '/v5/hashList/:batchGet'), hasStatus(400, 'INVALID_ARGUMENT'));
    assert.throws(() => matchRoute('GET', '/v5/hashLists/se-4b:batchGet'), hasStatus(400, 'INVALID_ARGUMENT'));
    assert.throws(() => matchRoute('GET', '/v5/hashList:batchGet'), hasStatus(404, 'NOT_FOUND'));
  });

  it('decodes percent-escapes in the path (some clients escape ":")', () => {
    assert.equal(matchRoute('GET', '/v5/hashLists%3AbatchGet').rpc.id, 'BatchGetHashLists');
    assert.equal(matchRoute('GET', '/v5/hashList/se%2D4b').listName, 'se-4b');
  });

  it('checks list names in the path', () => {
    for (const path of ['/v5/hashList/se%2F4b', '/v5/hashList/se 4b', `/v5/hashList/${'a'.repeat(65)}`, '/v5/hashList/%C3%A9']) {
      assert.throws(() => matchRoute('GET', path), hasStatus(400, 'INVALID_ARGUMENT'), path);
    }
    assert.throws(() => matchRoute('GET', '/v5/hashList/%E0%A4%A'), hasStatus(400, 'INVALID_ARGUMENT'));
  });

  it('answers 404 NOT_FOUND for unknown paths', () => {
    for (const path of [
      '/',
      '/v5',
      '/v5/',
      '/v3/hashes:search',
      '/v4/hashes:search',
      '/v5/threatLists',
      '/v5/hashList/',
      '/v5/hashes:search/',
      '/V5/hashes:search',
      'v5/hashes:search',
      '/v5/hashes:find',
    ]) {
      assert.throws(() => matchRoute('GET', path), hasStatus(404, 'NOT_FOUND'), path);
    }
  });

  it('answers 405 with the allowed method for a known path and the wrong method', () => {
    assert.throws(
      () => matchRoute('POST', '/v5/hashes:search'),
      (error: unknown) => {
        assert.ok(hasStatus(405, 'UNIMPLEMENTED')(error));
        assert.deepEqual((error as WireError).allow, ['GET']);
        return true;
      },
    );
    assert.throws(
      () => matchRoute('GET', '/v4/fullHashes:find'),
      (error: unknown) => {
        assert.deepEqual((error as WireError).allow, ['POST']);
        return true;
      },
    );
    assert.throws(() => matchRoute('DELETE', '/v4/threatLists'), hasStatus(405, 'UNIMPLEMENTED'));
  });

  it('property: any path and method match, or fail with 400, 404 or 405', () => {
    const segment = fc.constantFrom(
      'v5',
      'v5alpha1',
      'v4',
      'hashList',
      'hashLists',
      ':batchGet',
      'hashes:search',
      'se-4b',
      '%3A',
      '%',
      '',
      '..',
      'threatLists',
    );
    const path = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'PUT', 'HEAD'), fc.oneof(path, fc.string()), (method, candidate) => {
        try {
          matchRoute(method, candidate);
        } catch (error) {
          assert.ok(error instanceof WireError && [400, 404, 405].includes(error.httpStatus), String(error));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('matchRoute: the Web Risk v1 surface', () => {
  for (const [method, rest, rpc] of [
    ['GET', 'threatLists:computeDiff', 'ComputeThreatListDiff'],
    ['GET', 'uris:search', 'SearchUris'],
    ['GET', 'hashes:search', 'WebRiskSearchHashes'],
    ['POST', 'projects/my-project/submissions', 'CreateSubmission'],
  ] as const) {
    it(`${method} /v1/${rest} → ${rpc}`, () => {
      const match = matchRoute(method, `/v1/${rest}`);
      assert.equal(match.rpc.id, rpc);
      assert.equal(match.rpc.protocol, 'webrisk');
      assert.equal(match.apiVersion, 'v1');
    });
  }

  it('takes the project of a submission from its one path segment', () => {
    assert.equal(matchRoute('POST', '/v1/projects/1234567/submissions').project, '1234567');
    assert.throws(() => matchRoute('POST', '/v1/projects/a/b/submissions'), hasStatus(404, 'NOT_FOUND'));
    assert.throws(() => matchRoute('POST', '/v1/projects//submissions'), hasStatus(404, 'NOT_FOUND'));
    assert.throws(() => matchRoute('POST', '/v1/projects/Not%20One/submissions'), hasStatus(400, 'INVALID_ARGUMENT'));
    assert.throws(() => matchRoute('GET', '/v1/projects/p/submissions'), hasStatus(405, 'UNIMPLEMENTED'));
  });

  it('keeps Web Risk and v5 apart: /v5/hashes:search is v5, /v1/hashLists is nothing', () => {
    assert.equal(matchRoute('GET', '/v5/hashes:search').rpc.id, 'SearchHashes');
    assert.throws(() => matchRoute('GET', '/v1/hashLists'), hasStatus(404, 'NOT_FOUND'));
    assert.throws(() => matchRoute('GET', '/v5/threatLists:computeDiff'), hasStatus(404, 'NOT_FOUND'));
  });

  it("names a threat type's list by its alias, and none for an unspecified type", () => {
    const call = (threatType: number): RpcCall => ({
      rpc: 'ComputeThreatListDiff',
      apiVersion: 'v1',
      request: create(RPCS.ComputeThreatListDiff.requestSchema, { threatType }),
    });
    assert.deepEqual(listsNamedBy(call(1)), ['webrisk:MALWARE']);
    assert.deepEqual(listsNamedBy(call(4)), ['webrisk:SOCIAL_ENGINEERING_EXTENDED_COVERAGE']);
    assert.deepEqual(listsNamedBy(call(0)), [undefined]);
    assert.deepEqual(listsNamedBy(call(99)), [undefined]);
  });
});

describe('rpcPath', () => {
  it('gives the canonical path of each RPC: singular hashList/{name}', () => {
    assert.equal(rpcPath(RPCS.SearchHashes, 'v5'), '/v5/hashes:search');
    assert.equal(rpcPath(RPCS.GetHashList, 'v5alpha1', 'se-4b'), '/v5alpha1/hashList/se-4b');
    assert.equal(rpcPath(RPCS.FetchThreatListUpdates, 'v4'), '/v4/threatListUpdates:fetch');
  });

  it('refuses a path the server would refuse', () => {
    assert.throws(() => rpcPath(RPCS.GetHashList, 'v5'), TypeError);
    assert.throws(() => rpcPath(RPCS.GetHashList, 'v5', 'a/b'), WireError);
    assert.throws(() => rpcPath(RPCS.SearchHashes, 'v4'), TypeError);
    assert.throws(() => rpcPath(RPCS.FindFullHashes, 'v5'), TypeError);
  });

  it('matchRoute inverts it for every RPC', () => {
    for (const rpc of Object.values(RPCS) as AnyRpc[]) {
      if (rpc.id === 'CreateSubmission') continue;
      const versions: ApiVersion[] = rpc.protocol === 'v4' ? ['v4'] : rpc.protocol === 'webrisk' ? ['v1'] : ['v5', 'v5alpha1'];
      for (const version of versions) {
        const match = matchRoute(rpc.httpMethod, rpcPath(rpc, version, 'gc-32b'));
        assert.equal(match.rpc, rpc);
        assert.equal(match.apiVersion, version);
      }
    }
  });
});

describe('what an RPC answers', () => {
  it('holds list data for the list RPCs, and list updates for those that name lists in their request', () => {
    const holds = Object.fromEntries((Object.values(RPCS) as AnyRpc[]).map((rpc) => [rpc.id, rpc.answer.holds]));
    assert.deepEqual(holds, {
      SearchHashes: 'search',
      GetHashList: 'list update',
      ListHashLists: 'list listing',
      BatchGetHashLists: 'list update',
      SearchUrls: 'search',
      FetchThreatListUpdates: 'list update',
      FindFullHashes: 'search',
      FindThreatMatches: 'search',
      ListThreatLists: 'list listing',
      CreateThreatHit: 'acknowledgement',
      ComputeThreatListDiff: 'list update',
      SearchUris: 'search',
      WebRiskSearchHashes: 'search',
      CreateSubmission: 'search',
    });
  });

  it('names the lists of a list update in the order its answer gives them, and none for other calls', () => {
    const v5 = 'v5' as const;
    const getHashList = { rpc: 'GetHashList' as const, apiVersion: v5, request: create(RPCS.GetHashList.requestSchema, { name: 'se-4b' }) };
    const batch = {
      rpc: 'BatchGetHashLists' as const,
      apiVersion: v5,
      request: create(RPCS.BatchGetHashLists.requestSchema, { names: ['mw-4b', 'nothing-4b', 'se-4b'] }),
    };
    const fetch = {
      rpc: 'FetchThreatListUpdates' as const,
      apiVersion: 'v4' as const,
      request: create(RPCS.FetchThreatListUpdates.requestSchema, {
        listUpdateRequests: [
          { threatType: ThreatType.SOCIAL_ENGINEERING, platformType: PlatformType.ANY_PLATFORM, threatEntryType: ThreatEntryType.URL },
          { threatType: ThreatType.THREAT_TYPE_UNSPECIFIED, platformType: PlatformType.ANY_PLATFORM, threatEntryType: ThreatEntryType.URL },
          { threatType: ThreatType.MALWARE, platformType: PlatformType.ANY_PLATFORM, threatEntryType: ThreatEntryType.URL },
        ],
      }),
    };
    const listing = { rpc: 'ListHashLists' as const, apiVersion: v5, request: create(RPCS.ListHashLists.requestSchema) };
    const search = {
      rpc: 'SearchHashes' as const,
      apiVersion: v5,
      request: create(RPCS.SearchHashes.requestSchema, { hashPrefixes: [new Uint8Array(4)] }),
    };
    assert.deepEqual(listsNamedBy(getHashList), ['se-4b']);
    assert.deepEqual(listsNamedBy(batch), ['mw-4b', 'nothing-4b', 'se-4b']);
    assert.deepEqual(listsNamedBy(fetch), ['se-4b', undefined, 'mw-4b']);
    assert.deepEqual(listsNamedBy(listing), []);
    assert.deepEqual(listsNamedBy(search), []);
    const calls: RpcCall[] = [getHashList, batch, fetch, listing, search];
    assert.deepEqual(calls.map(isListUpdate), [true, true, true, false, false]);
  });
});
