// Lists a server does not publish, asked for through the API: the names and triples real clients ask
// for get an empty stand-in, any other is refused with its name and the lists there are (SB-11,
// docs/api.md "Lists the server does not publish"). Requests in the forms the clients send them
// (docs/api.md §3); what those clients check of a stand-in is test/server/client-lists-v*.test.ts's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { CLIENT_LISTS, clientsAskFor } from '../../../src/lists/client-lists.ts';
import { KNOWN_LISTS } from '../../../src/lists/known-lists.ts';
import type { V4List } from '../../../src/lists/v4-lists.ts';
import * as v4 from '../../../src/proto/v4.ts';
import * as v5 from '../../../src/proto/v5.ts';
import { createApp } from '../../../src/server/http/app.ts';
import { EMPTY_LIST_CHECKSUM, NO_LIST_VERSION } from '../../../src/server/catalog.ts';
import { catalogOf } from './fixtures.ts';

const { ThreatType: T, PlatformType: P, ThreatEntryType: E } = v4;

/** An operator's server: two SB-11 lists and one of its own name, which no client asks for. */
function operator() {
  return createApp({
    catalog: catalogOf([
      { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], expressions: ['phishing.sbtest.example/'] },
      { name: 'mw-4b', threatTypes: ['MALWARE'], expressions: ['malware.sbtest.example/'] },
      { name: 'corp-4b', threatTypes: ['SOCIAL_ENGINEERING'], expressions: ['corp-phish.sbtest.example/'] },
    ]),
  });
}
const PUBLISHED = 'se-4b, mw-4b, corp-4b';

interface ErrorBody {
  error: { code: number; message: string; status: string; details: { reason: string; domain: string }[] };
}

function assertRefused(response: { statusCode: number; json: () => unknown }, status: number, named: readonly string[]): string {
  const { error } = response.json() as ErrorBody;
  assert.equal(response.statusCode, status, error.message);
  assert.equal(error.status, status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT');
  assert.deepEqual(error.details, [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SBKIT_UNKNOWN_LIST', domain: 'sbkit' }]);
  for (const name of named) assert.ok(error.message.includes(name), `${error.message} names ${name}`);
  return error.message;
}

/** Firefox's batchGet as captured (docs/api.md §3), names added: a version per name, by position, empty. */
const firefoxBatch = (names: readonly string[]) =>
  `/v5/hashLists:batchGet?key=K&${names.map((n) => `names=${n}`).join('&')}&${names.map(() => 'version=').join('&')}`;
const FIREFOX_NAMES = ['se-4b', 'mw-4b', 'uws-4b', 'mwb-4b', 'csdda-32b'];

describe('hashLists:batchGet of lists the server does not publish', () => {
  it("refuses Firefox's batch with a name no client asks for: 404, naming it and the lists there are", async () => {
    const response = await operator().inject({ url: firefoxBatch([...FIREFOX_NAMES, 'foo-4b']), headers: { accept: '*/*' } });
    const message = assertRefused(response, 404, ['"foo-4b"', PUBLISHED]);
    // The names Firefox asks for are not the refused ones, published or not.
    assert.ok(!message.includes('"uws-4b"'), message);
  });

  it('names every unknown name of the batch', async () => {
    const response = await operator().inject({ url: firefoxBatch(['se-4b', 'foo-4b', 'sse-4b']) });
    assertRefused(response, 404, ['"foo-4b"', '"sse-4b"']);
  });

  it('refuses before any tag: If-None-Match: * gets the 404, not a 304', async () => {
    const response = await operator().inject({ url: firefoxBatch(['se-4b', 'foo-4b']), headers: { 'if-none-match': '*' } });
    assertRefused(response, 404, ['"foo-4b"']);
    assert.equal(response.headers['etag'], undefined);
    assert.equal(response.headers['cache-control'], 'no-store');
  });

  it('stands in for every name a client asks for, short names included, with a version and the empty checksum', async () => {
    const asked = [...new Set(CLIENT_LISTS.flatMap(({ asked }) => ('name' in asked ? [asked.name] : [])))];
    const names = [...asked, 'uws', 'gc'].filter((name) => !['se-4b', 'mw-4b', 'se', 'mw'].includes(name));
    const response = await operator().inject({ url: firefoxBatch(names) });
    assert.equal(response.statusCode, 200, response.body);
    const { hashLists } = fromBinary(v5.BatchGetHashListsResponseSchema, response.rawPayload);
    assert.deepEqual(
      hashLists.map((list) => list.name),
      names,
    );
    for (const list of hashLists) {
      assert.deepEqual(Buffer.from(list.version), Buffer.from(NO_LIST_VERSION), list.name);
      assert.deepEqual(Buffer.from(list.sha256Checksum), Buffer.from(EMPTY_LIST_CHECKSUM), list.name);
      assert.equal(list.compressedAdditions.case, undefined, list.name);
    }
  });

  it('answers a published list of a name no client asks for from the list', async () => {
    const response = await operator().inject({ url: firefoxBatch(['corp-4b', 'se-4b']) });
    assert.equal(response.statusCode, 200, response.body);
    const { hashLists } = fromBinary(v5.BatchGetHashListsResponseSchema, response.rawPayload);
    assert.equal(hashLists[0]!.compressedAdditions.case, 'additionsFourBytes');
  });

  it('answers exactly the batches whose every name is published or asked for by a client, refusing the others by name', async () => {
    const published = new Set(['se-4b', 'mw-4b', 'corp-4b', 'se', 'mw']);
    const app = operator();
    const pool = [...published, ...KNOWN_LISTS.map((list) => list.name), 'test-4b', 'bi-4b', 'foo-4b', 'corp', 'se-8b', 'uwsa-32b'];
    const name = fc.oneof(fc.constantFrom(...pool), fc.stringMatching(/^[a-z]{1,6}-(4|8|16|32)b$/));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), async (names) => {
        const unknown = names.filter((n) => !published.has(n) && !clientsAskFor(n));
        const response = await app.inject({ url: `${firefoxBatch(names)}&alt=json` });
        if (unknown.length === 0) {
          assert.equal(response.statusCode, 200, response.body);
          assert.deepEqual(
            response.json<{ hashLists: { name: string }[] }>().hashLists.map((list) => list.name),
            names,
          );
        } else {
          const message = assertRefused(
            response,
            404,
            unknown.map((n) => JSON.stringify(n)),
          );
          for (const n of names.filter((n) => !unknown.includes(n))) assert.ok(!message.includes(JSON.stringify(n)), message);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('hashList/{name} and hashLists', () => {
  it('hashList of a list not published is 404 naming the lists there are, stand-in or not', async () => {
    for (const name of ['foo-4b', 'uws-4b']) {
      const response = await operator().inject({ url: `/v5/hashList/${name}?alt=json` });
      assertRefused(response, 404, [`"${name}"`, PUBLISHED]);
    }
  });

  it('hashLists names every published list, and a batch of all of them is answered', async () => {
    const app = operator();
    const listed = (await app.inject({ url: '/v5/hashLists?alt=json' })).json<{ hashLists: { name: string }[] }>().hashLists;
    const names = listed.map((list) => list.name);
    assert.deepEqual(names, PUBLISHED.split(', '));
    assert.equal((await app.inject({ url: firefoxBatch(names) })).statusCode, 200);
  });
});

/** A v4 fetch as Chromium sends it: `$req` in a GET with the override header. */
async function fetchTriples(triples: readonly V4List[]) {
  const request = create(v4.FetchThreatListUpdatesRequestSchema, {
    listUpdateRequests: triples.map(({ threatType, platformType, threatEntryType }) => ({
      threatType,
      platformType,
      threatEntryType,
      constraints: { supportedCompressions: [v4.CompressionType.RICE] },
    })),
  });
  const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url');
  return operator().inject({
    url: `/v4/threatListUpdates:fetch?$req=${req}&$ct=application/x-protobuf`,
    headers: { 'x-http-method-override': 'POST' },
  });
}

describe('threatListUpdates:fetch of triples no published list answers', () => {
  it('refuses a triple no client fetches with 400, naming it and the triples the server publishes', async () => {
    const response = await fetchTriples([
      { threatType: T.SOCIAL_ENGINEERING_INTERNAL, platformType: P.WINDOWS, threatEntryType: E.URL },
      { threatType: T.MALWARE, platformType: P.ANDROID, threatEntryType: E.EXECUTABLE },
      { threatType: T.POTENTIALLY_HARMFUL_APPLICATION, platformType: P.ANY_PLATFORM, threatEntryType: E.URL },
    ]);
    const message = assertRefused(response, 400, [
      '(MALWARE, ANDROID, EXECUTABLE)',
      '(POTENTIALLY_HARMFUL_APPLICATION, ANY_PLATFORM, URL)',
      '(SOCIAL_ENGINEERING, ANY_PLATFORM, URL), (MALWARE, ANY_PLATFORM, URL)',
    ]);
    assert.ok(!message.includes('SOCIAL_ENGINEERING_INTERNAL'), message);
  });

  it('names a number the enum does not', async () => {
    const response = await fetchTriples([{ threatType: 99 as v4.ThreatType, platformType: P.LINUX, threatEntryType: E.URL }]);
    assertRefused(response, 400, ['(99, LINUX, URL)']);
  });

  it("stands in for the triples clients fetch, a browser's on every desktop system, with a state and the empty checksum", async () => {
    // Each triple once: a request may not name a list twice, and Firefox and Chromium share theirs.
    const byKey = new Map(
      CLIENT_LISTS.flatMap(({ asked }) =>
        'triple' in asked
          ? [[`${asked.triple.threatType}/${asked.triple.platformType}/${asked.triple.threatEntryType}`, asked.triple]]
          : [],
      ),
    );
    const fetched = [...byKey.values()];
    for (const platformType of [P.WINDOWS, P.LINUX, P.OSX]) {
      const triples = fetched.map((t) => (t.platformType === P.LINUX ? { ...t, platformType } : t));
      const response = await fetchTriples(triples);
      assert.equal(response.statusCode, 200, response.body);
      const answers = fromBinary(v4.FetchThreatListUpdatesResponseSchema, response.rawPayload).listUpdateResponses;
      assert.equal(answers.length, triples.length);
      for (const answer of answers) assert.ok(answer.newClientState.length > 0 && answer.checksum?.sha256.length === 32);
    }
  });

  it('refuses a browser triple on a platform no browser of the table asks with', async () => {
    const response = await fetchTriples([{ threatType: T.BILLING, platformType: P.ANY_PLATFORM, threatEntryType: E.URL }]);
    assertRefused(response, 400, ['(BILLING, ANY_PLATFORM, URL)']);
  });
});

describe('fullHashes:find and threatMatches:find naming threat types', () => {
  const find = (threatTypes: number[], platformTypes: number[], threatEntryTypes: number[]) => {
    const request = create(v4.FindFullHashesRequestSchema, {
      threatInfo: { threatTypes, platformTypes, threatEntryTypes, threatEntries: [{ hash: Buffer.from('v9APjg==', 'base64') }] },
    });
    return operator().inject({
      method: 'POST',
      url: '/v4/fullHashes:find?alt=proto',
      headers: { 'content-type': 'application/x-protobuf' },
      payload: Buffer.from(toBinary(v4.FindFullHashesRequestSchema, request)),
    });
  };

  it("answers Chromium's wide search (pitfall 7): its types, two platforms, two entry types", async () => {
    const response = await find([1, 3, 5, 6, 7, 8, 9, 13, 14, 15, 16], [P.LINUX, P.CHROME], [E.URL, E.CHROME_EXTENSION]);
    assert.equal(response.statusCode, 200, response.body);
  });

  it('refuses a threat type no client searches for, naming its triples', async () => {
    const response = await find([T.MALWARE, T.ACCURACY_TIPS], [P.WINDOWS], [E.URL]);
    const message = assertRefused(response, 400, ['(ACCURACY_TIPS, WINDOWS, URL)']);
    assert.ok(!message.includes('(MALWARE, WINDOWS, URL)'), message);
  });

  it('refuses THREAT_TYPE_UNSPECIFIED in a Lookup API request, and answers the types clients name', async () => {
    const lookup = (threatTypes: string[]) =>
      operator().inject({
        method: 'POST',
        url: '/v4/threatMatches:find',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          threatInfo: {
            threatTypes,
            platformTypes: ['ANY_PLATFORM'],
            threatEntryTypes: ['URL'],
            threatEntries: [{ url: 'http://phishing.sbtest.example/' }],
          },
        }),
      });
    assertRefused(await lookup(['THREAT_TYPE_UNSPECIFIED']), 400, ['(THREAT_TYPE_UNSPECIFIED, ANY_PLATFORM, URL)']);
    const answered = await lookup(['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION']);
    assert.equal(answered.statusCode, 200, answered.body);
    assert.deepEqual(
      answered.json<{ matches: { threatType: string }[] }>().matches.map((m) => m.threatType),
      ['SOCIAL_ENGINEERING'],
    );
  });
});
