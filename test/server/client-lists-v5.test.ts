// The v5 clients' list requests, each as the client sends it, answered in the way it tolerates
// (docs/api.md "The lists each client asks for"; client-lists-fixture.ts has the checks): Firefox's
// batchGet, Chromium's behind its LocalListsUseSBv5 feature, and Google's npm client.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { safebrowsing } from '@googleapis/safebrowsing';
import { hashListUpdate } from '../../src/client/transport/transport-v5.ts';
import { widthOfListName } from '../../src/lists/list-name.ts';
import * as v4 from '../../src/proto/v4.ts';
import * as v5 from '../../src/proto/v5.ts';
import { FeedLists } from '../../src/server/feeds/feed-lists.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { createServer } from '../../src/server/http/server.ts';
import { HashList, hashBytes } from '../../src/store/hash-list.ts';
import { nodeSha256 } from '../../src/url/hash.ts';
import {
  alwaysAsked,
  binary,
  checkV4Answer,
  checkV5Answer,
  expectedBytes,
  get,
  KEY,
  nameOf,
  rows,
  runningServers,
  sha256,
} from './client-lists-fixture.ts';

const SERVERS = runningServers();

describe('Firefox, google5 provider: hashLists:batchGet', () => {
  // Captured on loopback: the five lists, a version per name by position, empty the first time.
  const CAPTURED = ['se-4b', 'mw-4b', 'uws-4b', 'mwb-4b', 'csdda-32b'];
  const query = (versions: readonly string[]) =>
    `/v5/hashLists:batchGet?key=${KEY}&${CAPTURED.map((n) => `names=${n}`).join('&')}&${versions.map((v) => `version=${encodeURIComponent(v)}`).join('&')}`;

  it('is what the table says Firefox always asks for', () => {
    assert.deepEqual(alwaysAsked('firefox-v5').map(nameOf), CAPTURED);
  });

  for (const [index, name] of ['demo', 'operator'].entries()) {
    it(`is answered whole, first and again by version (${name})`, async () => {
      const { url, catalog, label } = SERVERS[index]!;
      const expected = alwaysAsked('firefox-v5').map((row) => expectedBytes(catalog, row));
      const first = fromBinary(
        v5.BatchGetHashListsResponseSchema,
        await binary(await get(url, query(CAPTURED.map(() => '')), { accept: '*/*' })),
      );
      checkV5Answer(first, CAPTURED, expected, label);
      // The next update sends each version back in standard base64, by position: nothing changes.
      const versions = first.hashLists.map((list) => Buffer.from(list.version).toString('base64'));
      const again = fromBinary(v5.BatchGetHashListsResponseSchema, await binary(await get(url, query(versions), { accept: '*/*' })));
      assert.deepEqual(
        again.hashLists.map((list) => [list.name, Buffer.from(list.version).toString('base64'), list.compressedAdditions.case]),
        first.hashLists.map((list) => [list.name, Buffer.from(list.version).toString('base64'), undefined]),
      );
    });
  }

  it('answers the global cache and the test tables a table pref names: from lists of those names, else empty', async () => {
    const tables = new Map(rows('firefox-v5').map((row) => [row.clientName, nameOf(row)]));
    assert.equal(tables.get('goog-globalcache-proto'), 'gc-32b');
    const names = ['gc-32b', 'test-4b', 'test-32b'];
    assert.deepEqual(
      names.filter((name) => [...tables.values()].includes(name)),
      names,
    );
    const byName = new Map(rows('firefox-v5').map((row) => [nameOf(row), row]));
    for (const { url, catalog, label } of SERVERS) {
      const response = fromBinary(
        v5.BatchGetHashListsResponseSchema,
        await binary(await get(url, `/v5/hashLists:batchGet?key=${KEY}&${names.map((n) => `names=${n}`).join('&')}`)),
      );
      const expected = names.map((name) => expectedBytes(catalog, byName.get(name)!));
      checkV5Answer(response, names, expected, label);
      if (catalog.get('gc-32b') !== undefined) {
        assert.equal(
          response.hashLists[0]!.compressedAdditions.case,
          'additionsThirtyTwoBytes',
          `${label}: the global cache's full hashes`,
        );
        assert.ok(expected[0]!.length > 0);
      }
    }
  });

  it('gives Android builds pha-4b in the same batch', async () => {
    const names = rows('firefox-v5').map(nameOf);
    for (const { url, catalog, label } of SERVERS) {
      const response = fromBinary(
        v5.BatchGetHashListsResponseSchema,
        await binary(await get(url, `/v5/hashLists:batchGet?key=${KEY}&${names.map((n) => `names=${n}`).join('&')}`)),
      );
      checkV5Answer(
        response,
        names,
        rows('firefox-v5').map((row) => expectedBytes(catalog, row)),
        label,
      );
    }
  });
});

describe('Chromium with its LocalListsUseSBv5 feature: hashLists:batchGet', () => {
  // v5_update_protocol_manager.cc: the names of GetV5ListName, a version only for lists it holds.
  const NAMES = ['se-4b', 'mw-4b', 'uws-4b', 'mwb-4b', 'mcrx-16b', 'bi-4b', 'csdda-32b', 'csda-32b', 'srf-4b', 'sus-4b', 'gc-32b'];

  it('is what the table says Chromium asks for', () => {
    assert.deepEqual([...rows('chromium-v5').map(nameOf)].sort(), [...NAMES].sort());
  });

  it('gets every name answered under that name, at its width', async () => {
    for (const { url, catalog, label } of SERVERS) {
      const request = create(v5.BatchGetHashListsRequestSchema, { names: NAMES });
      const req = Buffer.from(toBinary(v5.BatchGetHashListsRequestSchema, request)).toString('base64url');
      const response = fromBinary(
        v5.BatchGetHashListsResponseSchema,
        await binary(await get(url, `/v5/hashLists:batchGet?$req=${req}&$ct=application/x-protobuf&key=${KEY}`)),
      );
      const byName = new Map(rows('chromium-v5').map((row) => [nameOf(row), row]));
      checkV5Answer(
        response,
        NAMES,
        NAMES.map((name) => expectedBytes(catalog, byName.get(name)!)),
        label,
      );
    }
  });
});

describe("Chromium's lists v5 has no threat type for (billing, subresource filter, suspicious sites, extensions)", () => {
  const NAMES = ['bi-4b', 'srf-4b', 'sus-4b', 'mcrx-16b'];
  const ENTRY = 'published.example/';

  it('are empty by default, served by v5 name when a configuration publishes them, and empty by v4 triple always', async () => {
    assert.deepEqual(
      NAMES.map((name) => rows('chromium-v5').some((row) => nameOf(row) === name)),
      [true, true, true, true],
    );
    const config = parseServerConfig(
      { lists: NAMES.map((name) => ({ name, threatTypes: ['MALWARE'], sources: [{ entries: [ENTRY] }] })) },
      process.cwd(),
    );
    const feeds = await FeedLists.start(config, () => {}, undefined, { watch: false });
    const server = createServer({ catalog: feeds.catalog, apiKeys: [KEY], port: 0 });
    try {
      const url = await server.listen();
      const request = create(v5.BatchGetHashListsRequestSchema, { names: NAMES });
      const req = Buffer.from(toBinary(v5.BatchGetHashListsRequestSchema, request)).toString('base64url');
      const response = fromBinary(
        v5.BatchGetHashListsResponseSchema,
        await binary(await get(url, `/v5/hashLists:batchGet?$req=${req}&$ct=application/x-protobuf&key=${KEY}`)),
      );
      const hash = createHash('sha256').update(ENTRY).digest();
      checkV5Answer(
        response,
        NAMES,
        NAMES.map((name) => hash.subarray(0, widthOfListName(name))),
        'published by a configuration',
      );
      const { ThreatType: T, PlatformType: P, ThreatEntryType: E } = v4;
      const triples = [
        { threatType: T.BILLING, platformType: P.LINUX, threatEntryType: E.URL },
        { threatType: T.SUBRESOURCE_FILTER, platformType: P.LINUX, threatEntryType: E.URL },
        { threatType: T.SUSPICIOUS, platformType: P.LINUX, threatEntryType: E.URL },
        { threatType: T.MALWARE, platformType: P.CHROME, threatEntryType: E.CHROME_EXTENSION },
      ];
      const fetchRequest = create(v4.FetchThreatListUpdatesRequestSchema, {
        listUpdateRequests: triples.map((triple) => ({ ...triple, constraints: { supportedCompressions: [v4.CompressionType.RICE] } })),
      });
      const v4Req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, fetchRequest)).toString('base64url');
      const answer = fromBinary(
        v4.FetchThreatListUpdatesResponseSchema,
        await binary(
          await get(url, `/v4/threatListUpdates:fetch?$req=${v4Req}&$ct=application/x-protobuf&key=${KEY}`, {
            'x-http-method-override': 'POST',
          }),
        ),
      );
      checkV4Answer(
        answer,
        triples,
        triples.map(() => Buffer.alloc(0)),
        'their v4 triples',
      );
    } finally {
      await server.close();
      await feeds.close();
    }
  });
});

describe('Chromium with its LocalListsUseSBv5 feature: the next batchGet', () => {
  const NAMES = rows('chromium-v5').map(nameOf);
  const batchGet = async (url: string, names: readonly string[], version: readonly Uint8Array[]) => {
    const request = create(v5.BatchGetHashListsRequestSchema, { names: [...names], version: [...version] });
    const req = Buffer.from(toBinary(v5.BatchGetHashListsRequestSchema, request)).toString('base64url');
    return fromBinary(
      v5.BatchGetHashListsResponseSchema,
      await binary(await get(url, `/v5/hashLists:batchGet?$req=${req}&$ct=application/x-protobuf&key=${KEY}`)),
    );
  };

  it('changes nothing for the lists it holds, versions sent only for those', async () => {
    for (const { url, catalog, label } of SERVERS) {
      const first = await batchGet(url, NAMES, []);
      const width = (name: string) => widthOfListName(name)!;
      const kept = first.hashLists.map((list) =>
        HashList.empty(list.name, width(list.name)).applyUpdate(hashListUpdate(list, width(list.name), list.name, 1_000_000), nodeSha256),
      );
      // Chromium sends a version only for a list it holds: here every other one, so that positions differ.
      const holds = (i: number) => i % 2 === 0;
      const again = await batchGet(
        url,
        NAMES,
        kept.filter((_, i) => holds(i)).map((list) => list.version),
      );
      assert.deepEqual(
        again.hashLists.map((list) => list.name),
        NAMES,
      );
      again.hashLists.forEach((list, i) => {
        const what = `${label}: ${list.name}`;
        const base = holds(i) ? kept[i]! : HashList.empty(list.name, width(list.name));
        const applied = base.applyUpdate(hashListUpdate(list, width(list.name), list.name, 1_000_000), nodeSha256);
        assert.deepEqual(Buffer.from(hashBytes(applied.sortedHashes())), expectedBytes(catalog, rows('chromium-v5')[i]!), what);
        // A published list it holds comes back as no change, not in full.
        if (holds(i) && catalog.get(list.name) !== undefined) assert.equal(list.compressedAdditions.case, undefined, what);
      });
    }
  });
});

describe("Google's npm client: hashLists.batchGet and hashList.get", () => {
  it('is what the table says the captured calls name', () => {
    assert.deepEqual(rows('npm-v5').map(nameOf), ['se', 'mw']);
  });

  it('gets the lists under the short names it asked with, and a list clients ask for that the server lacks empty in a batch', async () => {
    for (const { url, catalog } of SERVERS) {
      const client = safebrowsing({ version: 'v5', rootUrl: `${url}/`, auth: KEY });
      // test-4b, Firefox's test table, is published by neither server.
      assert.equal(catalog.get('test-4b'), undefined);
      const { data } = await client.hashLists.batchGet({ names: ['se', 'mw', 'test-4b'], version: ['', ''] });
      assert.deepEqual(
        data.hashLists?.map((list) => list.name),
        ['se', 'mw', 'test-4b'],
      );
      for (const list of data.hashLists ?? []) {
        assert.ok(list.version && list.sha256Checksum, `${list.name}: a version and a checksum`);
      }
      const se = catalog.get('se')!.current();
      assert.equal(data.hashLists?.[0]?.sha256Checksum, Buffer.from(se.checksum).toString('base64'));
      assert.equal(data.hashLists?.[2]?.sha256Checksum, sha256(new Uint8Array(0)).toString('base64'));
    }
  });

  it('gets the whole batch refused with 404 for a name no client asks for, the message naming it and the lists there are', async () => {
    const client = safebrowsing({ version: 'v5', rootUrl: `${SERVERS[1]!.url}/`, auth: KEY });
    await assert.rejects(
      client.hashLists.batchGet({ names: ['se', 'mw', 'nope-4b'], version: ['', ''] }),
      (err: { status?: number; message?: string }) =>
        err.status === 404 && /"nope-4b"/.test(err.message ?? '') && /se-4b, mw-4b/.test(err.message ?? ''),
    );
  });

  it('gets 404 for one list the server lacks asked alone, which rejects that call only', async () => {
    const client = safebrowsing({ version: 'v5', rootUrl: `${SERVERS[1]!.url}/`, auth: KEY });
    await assert.rejects(client.hashList.get({ name: 'uws-4b' }), (err: { status?: number }) => err.status === 404);
    assert.ok((await client.hashList.get({ name: 'se' })).data.version);
  });
});
