import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import {
  FetchThreatListUpdatesRequestSchema,
  FindFullHashesRequestSchema,
  FindThreatMatchesRequestSchema,
  PlatformType,
  ThreatEntryType,
  ThreatType,
} from '../../../src/proto/v4.ts';
import type { FullHashSource } from '../../../src/server/api/full-hash-source.ts';
import { DEFAULT_API_SETTINGS } from '../../../src/server/api/settings.ts';
import { NO_LIST_VERSION, ListCatalog } from '../../../src/server/catalog.ts';
import { fetchThreatListUpdates, findFullHashes, findThreatMatches, listThreatLists } from '../../../src/server/api/v4.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import type { HashWidth } from '../../../src/lists/list-name.ts';
import type { ThreatTypeName } from '../../../src/lists/threat-types.ts';
import { V4_LISTS, type V4ListName } from '../../../src/lists/v4-lists.ts';
import { expressionHashBytes } from '../../../src/url/hash.ts';
import { demoCatalog } from '../fixture.ts';
import { catalogOf, counting, ownSource, poolLists, upstreamSource, URL_POOL } from './fixtures.ts';

const ASKABLE = [
  ThreatType.MALWARE,
  ThreatType.SOCIAL_ENGINEERING,
  ThreatType.SOCIAL_ENGINEERING_INTERNAL,
  ThreatType.UNWANTED_SOFTWARE,
  ThreatType.POTENTIALLY_HARMFUL_APPLICATION,
  ThreatType.MALICIOUS_BINARY,
];

function find(catalog: ListCatalog, source: FullHashSource, urls: readonly string[], threatTypes: readonly number[]) {
  const request = create(FindThreatMatchesRequestSchema, {
    threatInfo: { threatTypes: [...threatTypes], platformTypes: [PlatformType.WINDOWS], threatEntries: urls.map((url) => ({ url })) },
  });
  return findThreatMatches(catalog, source, request, DEFAULT_API_SETTINGS);
}

describe('threatMatches:find', () => {
  it('searches the source once for 500 URLs', async () => {
    const urls = Array.from({ length: 500 }, (_, i) => `http://host${i}.example/page`);
    const catalog = catalogOf([{ name: 'mw-4b', threatTypes: ['MALWARE'], expressions: ['host7.example/'] }]);
    const source = counting(ownSource(catalog));
    const response = await find(catalog, source, urls, [ThreatType.MALWARE]);
    assert.equal(source.calls.length, 1);
    assert.deepEqual(
      response.matches.map((m) => [m.threatType, m.threat?.url]),
      [[ThreatType.MALWARE, 'http://host7.example/page']],
    );
  });

  it('answers each URL as a request of that URL alone does, skipping empty and unreadable URLs', async () => {
    const entry = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...URL_POOL) },
      { weight: 1, arbitrary: fc.constantFrom('', 'ftp://a.example/', 'http://[::1') },
    );
    await fc.assert(
      fc.asyncProperty(poolLists, fc.array(entry, { minLength: 1, maxLength: 60 }), fc.subarray(ASKABLE), async (lists, urls, asked) => {
        const catalog = catalogOf(lists);
        const source = counting(ownSource(catalog));
        const together = await find(catalog, source, urls, asked);
        const readable = urls.filter((url) => URL_POOL.includes(url));
        assert.equal(source.calls.length, readable.length > 0 ? 1 : 0);
        const alone = [];
        for (const url of urls) alone.push(...(await find(catalog, ownSource(catalog), [url], asked)).matches);
        assert.deepEqual(together.matches, alone);
      }),
      { numRuns: 60 },
    );
  });
});

const matchesOf = (response: { matches: { threatType: number; platformType: number; threatEntryType: number }[] }) =>
  response.matches.map((m) => `${ThreatType[m.threatType]}/${PlatformType[m.platformType]}/${ThreatEntryType[m.threatEntryType]}`);

describe('threatMatches:find, the platform and duration of a match', () => {
  it('gives each match the triple of a list asked for that holds the URL: ANDROID for the Android lists', async () => {
    const catalog = catalogOf([
      { name: 'uws-4b', threatTypes: ['UNWANTED_SOFTWARE'], expressions: ['desktop.example/'] },
      { name: 'uwsa-4b', threatTypes: ['UNWANTED_SOFTWARE'], expressions: ['android.example/'] },
      { name: 'pha-4b', threatTypes: ['POTENTIALLY_HARMFUL_APPLICATION'], expressions: ['app.example/'] },
    ]);
    const lookup = async (url: string, platformTypes: PlatformType[]) =>
      matchesOf(
        await findThreatMatches(
          catalog,
          ownSource(catalog),
          create(FindThreatMatchesRequestSchema, {
            threatInfo: {
              threatTypes: [ThreatType.UNWANTED_SOFTWARE, ThreatType.POTENTIALLY_HARMFUL_APPLICATION],
              platformTypes,
              threatEntries: [{ url }],
            },
          }),
          DEFAULT_API_SETTINGS,
        ),
      );
    const both = [PlatformType.WINDOWS, PlatformType.ANDROID];
    assert.deepEqual(await lookup('http://desktop.example/', both), ['UNWANTED_SOFTWARE/WINDOWS/URL']);
    assert.deepEqual(await lookup('http://android.example/', both), ['UNWANTED_SOFTWARE/ANDROID/URL']);
    assert.deepEqual(await lookup('http://android.example/', [PlatformType.WINDOWS]), [], "not on a desktop's list");
    assert.deepEqual(await lookup('http://app.example/', both), ['POTENTIALLY_HARMFUL_APPLICATION/ANDROID/URL']);
    // threatListUpdates:fetch serves pha-4b under any platform: a client keeping it under WINDOWS files its matches there.
    assert.deepEqual(await lookup('http://app.example/', [PlatformType.WINDOWS]), ['POTENTIALLY_HARMFUL_APPLICATION/WINDOWS/URL']);
  });

  it("keeps a match for the positive duration, no longer than the upstream's answer holds (SB-8)", async () => {
    const settings = { ...DEFAULT_API_SETTINGS, positiveCacheDurationMs: 300_000 };
    const request = create(FindThreatMatchesRequestSchema, {
      threatInfo: {
        threatTypes: [ThreatType.MALWARE],
        platformTypes: [PlatformType.WINDOWS],
        threatEntries: [{ url: 'http://evil.example/' }],
      },
    });
    for (const [upstreamMs, expectedSeconds] of [
      [60_000, 60n],
      [900_000, 300n],
    ] as const) {
      const source = upstreamSource({ 'evil.example/': ['MALWARE'] }, upstreamMs);
      const { matches } = await findThreatMatches(catalogOf([]), source, request, settings);
      assert.deepEqual(
        matches.map((m) => m.cacheDuration?.seconds),
        [expectedSeconds],
        `upstream answer of ${upstreamMs} ms`,
      );
    }
  });
});

/** The Go client's lists (docs/api.md), with their threat types: DefaultThreatLists, and the two Android ones a program may add. */
const GO_CLIENT_TYPES = {
  'mw-4b': 'MALWARE',
  'se-4b': 'SOCIAL_ENGINEERING',
  'uws-4b': 'UNWANTED_SOFTWARE',
  'uwsa-4b': 'UNWANTED_SOFTWARE',
  'pha-4b': 'POTENTIALLY_HARMFUL_APPLICATION',
} as const satisfies Record<V4ListName, ThreatTypeName>;
const GO_CLIENT_LISTS = Object.keys(GO_CLIENT_TYPES) as V4ListName[];

describe('fullHashes:find, the triple of a match', () => {
  const HELD = 'held.example/';
  const prefixOf = (expression: string) => expressionHashBytes(expression).subarray(0, 4);
  const find = (catalog: ListCatalog, source: FullHashSource, threatTypes: number[], platformTypes: number[]) =>
    findFullHashes(
      catalog,
      source,
      create(FindFullHashesRequestSchema, {
        threatInfo: { threatTypes, platformTypes, threatEntryTypes: [ThreatEntryType.URL], threatEntries: [{ hash: prefixOf(HELD) }] },
      }),
    );

  it("matches each of a Go client's lists that holds the hash once, under its own triple, whatever order it asks in", async () => {
    // The Go client names the types and platforms of its lists from a map (in any order), and ignores a
    // match whose triple is not one of its lists: the prefix is then unlisted to it.
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(GO_CLIENT_LISTS, { minLength: 1 }),
        fc.subarray(GO_CLIENT_LISTS),
        fc.boolean(),
        async (kept, holding, platformsReversed) => {
          const catalog = catalogOf(
            GO_CLIENT_LISTS.map((name) => ({
              name,
              threatTypes: [GO_CLIENT_TYPES[name]],
              expressions: holding.includes(name) ? [HELD] : [],
            })),
          );
          const triples = kept.map((name) => V4_LISTS[name]);
          const platforms = [...new Set(triples.map((t) => t.platformType))];
          const response = await find(
            catalog,
            ownSource(catalog),
            [...new Set(triples.map((t) => t.threatType))],
            platformsReversed ? platforms.reverse() : platforms,
          );
          const keptTriples = new Set(matchesOf({ matches: triples.map((t) => ({ ...t })) }));
          assert.deepEqual(
            matchesOf(response)
              .filter((triple) => keptTriples.has(triple))
              .sort(),
            matchesOf({ matches: kept.filter((name) => holding.includes(name)).map((name) => ({ ...V4_LISTS[name] })) }).sort(),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it("answers an upstream's hash that no list here holds by its type alone: the type's list, not mwb-4b's or uwsa-4b's", async () => {
    const catalog = catalogOf([]);
    const linux = await find(
      catalog,
      upstreamSource({ [HELD]: ['MALWARE', 'SOCIAL_ENGINEERING'] }, 300_000),
      [ThreatType.MALWARE, ThreatType.SOCIAL_ENGINEERING_INTERNAL, ThreatType.MALICIOUS_BINARY],
      [PlatformType.LINUX, PlatformType.CHROME],
    );
    assert.deepEqual(matchesOf(linux), [
      'MALWARE/LINUX/URL',
      'MALWARE/CHROME/URL',
      'SOCIAL_ENGINEERING_INTERNAL/LINUX/URL',
      'SOCIAL_ENGINEERING_INTERNAL/CHROME/URL',
    ]);
    const android = await find(
      catalog,
      upstreamSource({ [HELD]: ['UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'] }, 300_000),
      [ThreatType.UNWANTED_SOFTWARE, ThreatType.POTENTIALLY_HARMFUL_APPLICATION],
      [PlatformType.ANY_PLATFORM, PlatformType.ANDROID],
    );
    assert.deepEqual(matchesOf(android), ['UNWANTED_SOFTWARE/ANY_PLATFORM/URL', 'POTENTIALLY_HARMFUL_APPLICATION/ANDROID/URL']);
  });
});

function listOf(name: string, hashLength: HashWidth, threatTypes: ('MALWARE' | 'SOCIAL_ENGINEERING' | 'UNWANTED_SOFTWARE')[]): ListHistory {
  const history = new ListHistory({ name, hashLength, threatTypes, likelySafeTypes: [], description: '' }, { keep: 2 });
  history.publish(expressionHashBytes(`${name}.example/`));
  return history;
}

const tripleOf = (t: { threatType: number; platformType: number; threatEntryType: number }) => [
  t.threatType,
  t.platformType,
  t.threatEntryType,
];

describe('threatLists', () => {
  it('names only triples threatListUpdates:fetch serves from a list, each once, in SB-11 order', () => {
    const catalog = new ListCatalog([
      listOf('corp-phish', 4, ['SOCIAL_ENGINEERING']),
      listOf('mw-4b', 4, ['MALWARE']),
      listOf('se-8b', 8, ['SOCIAL_ENGINEERING']),
      listOf('mw-32b', 32, ['MALWARE']),
      listOf('se-4b', 4, ['SOCIAL_ENGINEERING']),
      listOf('uwsa-4b', 4, ['UNWANTED_SOFTWARE']),
    ]);
    assert.deepEqual(listThreatLists(catalog).threatLists.map(tripleOf), [
      [ThreatType.SOCIAL_ENGINEERING, PlatformType.ANY_PLATFORM, ThreatEntryType.URL],
      [ThreatType.MALWARE, PlatformType.ANY_PLATFORM, ThreatEntryType.URL],
      [ThreatType.UNWANTED_SOFTWARE, PlatformType.ANDROID, ThreatEntryType.URL],
    ]);
  });

  it('names the demo lists in a stable order, and every triple named fetches a real list', () => {
    for (const catalog of [
      demoCatalog(),
      new ListCatalog([listOf('corp-phish', 4, ['SOCIAL_ENGINEERING']), listOf('mwb-4b', 4, ['MALWARE'])]),
    ]) {
      const triples = listThreatLists(catalog).threatLists;
      assert.equal(new Set(triples.map((t) => tripleOf(t).join())).size, triples.length, 'no triple twice');
      const request = create(FetchThreatListUpdatesRequestSchema, {
        listUpdateRequests: triples.map((t) => ({
          threatType: t.threatType,
          platformType: t.platformType,
          threatEntryType: t.threatEntryType,
        })),
      });
      for (const answer of fetchThreatListUpdates(catalog, request, DEFAULT_API_SETTINGS, Date.now()).listUpdateResponses) {
        assert.notDeepEqual(answer.newClientState, NO_LIST_VERSION, `triple ${tripleOf(answer).join()} is served`);
      }
    }
    assert.deepEqual(
      listThreatLists(demoCatalog()).threatLists.map((t) => t.threatType),
      [
        ThreatType.SOCIAL_ENGINEERING,
        ThreatType.MALWARE,
        ThreatType.UNWANTED_SOFTWARE,
        ThreatType.UNWANTED_SOFTWARE,
        ThreatType.POTENTIALLY_HARMFUL_APPLICATION,
        ThreatType.MALICIOUS_BINARY,
        ThreatType.CSD_ALLOWLIST,
        ThreatType.CSD_DOWNLOAD_ALLOWLIST,
        ThreatType.HIGH_CONFIDENCE_ALLOWLIST,
      ],
    );
  });
});
