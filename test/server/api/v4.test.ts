import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import {
  FetchThreatListUpdatesRequestSchema,
  FindThreatMatchesRequestSchema,
  PlatformType,
  ThreatEntryType,
  ThreatType,
} from '../../../src/proto/v4.ts';
import type { FullHashSource } from '../../../src/server/api/full-hash-source.ts';
import { DEFAULT_API_SETTINGS } from '../../../src/server/api/settings.ts';
import { NO_LIST_VERSION, ListCatalog } from '../../../src/server/catalog.ts';
import { fetchThreatListUpdates, findThreatMatches, listThreatLists } from '../../../src/server/api/v4.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import type { HashWidth } from '../../../src/lists/list-name.ts';
import { expressionHashBytes } from '../../../src/url/hash.ts';
import { demoCatalog } from '../fixture.ts';
import { catalogOf, counting, ownSource, poolLists, URL_POOL } from './fixtures.ts';

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
