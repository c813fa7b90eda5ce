// The proxy's upstream made of the client's parts, against a scripted server on loopback: its searches
// (cut into requests, ruled as one search, answered in byte strings), its memory cache, and its lists.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { FindFullHashesResponseSchema } from '../../../src/proto/v4.ts';
import { BatchGetHashListsResponseSchema, SearchHashesResponseSchema } from '../../../src/proto/v5.ts';
import { ClientOptionError } from '../../../src/client/client-errors.ts';
import { SEARCH_PREFIXES_PER_REQUEST } from '../../../src/client/hash-searcher.ts';
import { clientUpstream } from '../../../src/server/proxy/upstream.ts';
import { expressionHashString, prefix32 } from '../../../src/url/hash.ts';
import { durationFromMs } from '../../../src/wire/duration.ts';
import type { DecodedWireRequest } from '../../../src/wire/rest/server-request.ts';
import { startFakeServer, type Answer, type FakeServer } from '../../client/fake-server.ts';
import { prefixList, prefixesOf } from '../../client/lists-fixture.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const MIN = 60_000;
const BAD = 'malware.sbtest.example/';
const listed = expressionHashString(BAD);

/** A v5 search answer holding `listed` when it was asked about, for five minutes. */
function searchAnswer(call: DecodedWireRequest): Answer {
  assert.equal(call.rpc, 'SearchHashes');
  const asked = call.request.hashPrefixes.map((p) => Buffer.from(p).toString('latin1'));
  assert.ok(asked.length <= SEARCH_PREFIXES_PER_REQUEST, `${asked.length} prefixes in one search`);
  const found = asked.includes(listed.slice(0, 4));
  return {
    rpc: 'SearchHashes',
    message: create(SearchHashesResponseSchema, {
      fullHashes: found ? [{ fullHash: Buffer.from(listed, 'latin1'), fullHashDetails: [{ threatType: 2 }] }] : [],
      cacheDuration: durationFromMs(5 * MIN),
    }),
  };
}

let server: FakeServer;
let handler: (call: DecodedWireRequest) => Answer;

before(async () => {
  server = await startFakeServer((call) => handler(call));
});
after(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
  assert.deepEqual(server.scriptErrors.splice(0), [], 'the scripted server saw unexpected requests');
});

const searches = () => server.requests.filter((r) => r.rpc === 'SearchHashes' || r.rpc === 'FindFullHashes');

describe('clientUpstream searches', () => {
  it('asks about many prefixes in several requests of SEARCH_PREFIXES_PER_REQUEST, and finds threats in every one', async () => {
    handler = searchAnswer;
    const upstream = clientUpstream({ server: server.url, mode: 'nostorage', clock: new FakeClock() });
    const prefixes = Array.from({ length: 2 * SEARCH_PREFIXES_PER_REQUEST }, (_, i) => i + 1);
    prefixes.push(prefix32(listed));
    const answer = await upstream.searchPrefixes(prefixes);
    assert.deepEqual(
      searches().map((r) => r.rpc === 'SearchHashes' && r.request.hashPrefixes.length),
      [SEARCH_PREFIXES_PER_REQUEST, SEARCH_PREFIXES_PER_REQUEST, 1],
    );
    assert.deepEqual(
      answer.fullHashes.map((f) => f.fullHash),
      [listed],
      'as 32-byte strings, the form the server answers in',
    );
    assert.deepEqual(answer.fullHashes[0]!.details, [{ threatType: 'SOCIAL_ENGINEERING', attributes: [] }]);
    assert.equal(answer.cacheDurationMs, 5 * MIN);
    await upstream.close();
  });

  it("answers from its memory cache what it was told, and names the prefixes it knows nothing of, for what is left of the answer's time", async () => {
    handler = searchAnswer;
    const clock = new FakeClock();
    const upstream = clientUpstream({ server: server.url, mode: 'nostorage', clock });
    const known = prefix32(listed);
    assert.deepEqual(upstream.cachedSearch([known, 7]), { fullHashes: [], remaining: [known, 7], cacheDurationMs: 0 });
    await upstream.searchPrefixes([known, 7]);
    clock.advance(MIN);
    const cached = upstream.cachedSearch([known, 7, 8]);
    assert.deepEqual(
      cached.fullHashes.map((f) => f.fullHash),
      [listed],
    );
    assert.deepEqual(cached.remaining, [8], 'a negative answer is an answer too');
    assert.equal(cached.cacheDurationMs, 4 * MIN);
    assert.equal(searches().length, 1, 'the cache asks nobody');
    await upstream.close();
  });

  it('sends a search of many prefixes over v4 as requests together, which one minimum wait cannot split (RF-3)', async () => {
    handler = () => ({
      rpc: 'FindFullHashes',
      message: create(FindFullHashesResponseSchema, { minimumWaitDuration: durationFromMs(60 * MIN) }),
    });
    const upstream = clientUpstream({ server: server.url, protocol: 'v4', mode: 'nostorage', lists: ['mw-4b'], clock: new FakeClock() });
    const answer = await upstream.searchPrefixes(Array.from({ length: SEARCH_PREFIXES_PER_REQUEST + 50 }, (_, i) => i));
    assert.deepEqual(answer.fullHashes, []);
    assert.equal(searches().length, 2);
    await assert.rejects(upstream.searchPrefixes([123_456_789]), /may not be asked again/);
    assert.equal(searches().length, 2);
    await upstream.close();
  });
});

describe('clientUpstream lists', () => {
  it('has no list before the upstream sent it, then the list with the moment it came', async () => {
    handler = () => ({
      rpc: 'BatchGetHashLists',
      message: create(BatchGetHashListsResponseSchema, {
        hashLists: [prefixList('mw-4b', 'v1', prefixesOf(BAD), { minimumWaitMs: 30 * MIN })],
      }),
    });
    const clock = new FakeClock();
    const upstream = clientUpstream({ server: server.url, mode: 'local', lists: ['mw-4b'], clock });
    await upstream.open();
    assert.equal(upstream.list('mw-4b'), undefined);
    await upstream.update();
    const sent = upstream.list('mw-4b');
    assert.equal(sent?.updatedAt, clock.now());
    assert.deepEqual(sent.hashes.sortedHashes(), { width: 4, values: prefixesOf(BAD) });
    assert.equal(upstream.list('se-4b'), undefined, 'a list not followed');
    await upstream.close();
  });

  it('refuses options the client refuses: over v4, a list v4 does not have', () => {
    assert.throws(() => clientUpstream({ server: server.url, protocol: 'v4', mode: 'local', lists: ['gc-32b'] }), ClientOptionError);
    assert.throws(() => clientUpstream({ server: 'ftp://example.com' }), ClientOptionError);
  });
});
