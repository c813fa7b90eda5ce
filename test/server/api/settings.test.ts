// What the operator's freshness settings put into answers: cache durations of searches, positive and
// negative (SB-8), and the minimum wait of list updates while a list is changing (SB-12).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import * as v4proto from '../../../src/proto/v4.ts';
import * as v5proto from '../../../src/proto/v5.ts';
import { catalogFullHashes } from '../../../src/server/api/full-hash-source.ts';
import { type ApiSettings, DEFAULT_API_SETTINGS, minimumWaitOf } from '../../../src/server/api/settings.ts';
import { fetchThreatListUpdates, findFullHashes } from '../../../src/server/api/v4.ts';
import { batchGetHashLists, searchHashes, searchUrls } from '../../../src/server/api/v5.ts';
import { ListCatalog } from '../../../src/server/catalog.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import { durationToMs } from '../../../src/wire/duration.ts';
import { expressionHashBytes } from '../../../src/url/hash.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const LISTED = 'evil.example/';
/** When the answers are made. */
const NOW = new FakeClock().now();

/** se-4b holding LISTED, its current version published `ageMs` before NOW. */
function seList(ageMs: number): ListHistory {
  const history = new ListHistory(
    { name: 'se-4b', hashLength: 4, threatTypes: ['SOCIAL_ENGINEERING'], likelySafeTypes: [], description: '' },
    { keep: 3, clock: new FakeClock(NOW - ageMs) },
  );
  history.publish(expressionHashBytes(LISTED));
  return history;
}

const SPLIT: ApiSettings = { ...DEFAULT_API_SETTINGS, positiveCacheDurationMs: 10 * MIN, negativeCacheDurationMs: 30_000 };
const CHANGING: ApiSettings = { ...DEFAULT_API_SETTINGS, changingMinimumWaitMs: 5 * MIN, changingWindowMs: 30 * MIN };
const ms = (duration: Parameters<typeof durationToMs>[0]) => durationToMs(duration, DAY);
const prefixOf = (expression: string) => expressionHashBytes(expression).subarray(0, 4);

describe('cache durations of search answers', () => {
  const source = catalogFullHashes(new ListCatalog([seList(0)]), SPLIT);

  it('v5 hashes:search: the positive one with a full hash, the negative one without', async () => {
    const hit = await searchHashes(source, create(v5proto.SearchHashesRequestSchema, { hashPrefixes: [prefixOf(LISTED)] }));
    assert.equal(hit.fullHashes.length, 1);
    assert.equal(ms(hit.cacheDuration), 10 * MIN);
    const miss = await searchHashes(source, create(v5proto.SearchHashesRequestSchema, { hashPrefixes: [prefixOf('fine.example/')] }));
    assert.equal(miss.fullHashes.length, 0);
    assert.equal(ms(miss.cacheDuration), 30_000);
  });

  it('v5 a full hash filtered out by the request is a negative answer', async () => {
    const filtered = await searchHashes(
      source,
      create(v5proto.SearchHashesRequestSchema, { hashPrefixes: [prefixOf(LISTED)], filter: 'threat_type == ThreatType.MALWARE' }),
    );
    assert.equal(filtered.fullHashes.length, 0);
    assert.equal(ms(filtered.cacheDuration), 30_000);
  });

  it('v5 urls:search likewise', async () => {
    assert.equal(
      ms((await searchUrls(source, create(v5proto.SearchUrlsRequestSchema, { urls: ['http://evil.example/'] }), SPLIT)).cacheDuration),
      10 * MIN,
    );
    assert.equal(
      ms((await searchUrls(source, create(v5proto.SearchUrlsRequestSchema, { urls: ['http://fine.example/'] }), SPLIT)).cacheDuration),
      30_000,
    );
  });

  it('v4 fullHashes:find: matches keep the positive one, negative_cache_duration is the negative one', async () => {
    const catalog = new ListCatalog([seList(0)]);
    const answer = await findFullHashes(
      catalog,
      catalogFullHashes(catalog, SPLIT),
      create(v4proto.FindFullHashesRequestSchema, {
        threatInfo: {
          threatTypes: [v4proto.ThreatType.SOCIAL_ENGINEERING],
          threatEntries: [{ hash: prefixOf(LISTED) }, { hash: prefixOf('fine.example/') }],
        },
      }),
    );
    assert.ok(answer.matches.length > 0);
    for (const match of answer.matches) assert.equal(ms(match.cacheDuration), 10 * MIN);
    assert.equal(ms(answer.negativeCacheDuration), 30_000);
  });
});

describe('the minimum wait of a changing list', () => {
  it('is the short one while the newest version is younger than the window, the usual one after', () => {
    assert.equal(minimumWaitOf(seList(10 * MIN), CHANGING, NOW), 5 * MIN);
    assert.equal(minimumWaitOf(seList(31 * MIN), CHANGING, NOW), 30 * MIN);
    assert.equal(minimumWaitOf(undefined, CHANGING, NOW), 30 * MIN, 'a list not published here');
    assert.equal(minimumWaitOf(seList(0), DEFAULT_API_SETTINGS, NOW), 30 * MIN, 'off unless set');
    assert.equal(
      minimumWaitOf(seList(0), { ...CHANGING, changingMinimumWaitMs: 60 * MIN }, NOW),
      30 * MIN,
      'never longer than the usual one',
    );
  });

  it('goes into v5 and v4 list answers, per list in v5, the shortest of the answer in v4', () => {
    const fresh = seList(MIN);
    const old = new ListHistory(
      { name: 'mw-4b', hashLength: 4, threatTypes: ['MALWARE'], likelySafeTypes: [], description: '' },
      { keep: 3, clock: new FakeClock(NOW - 2 * DAY) },
    );
    old.publish(expressionHashBytes('malware.example/'));
    const catalog = new ListCatalog([fresh, old]);
    const v5 = batchGetHashLists(catalog, create(v5proto.BatchGetHashListsRequestSchema, { names: ['se-4b', 'mw-4b'] }), CHANGING, NOW);
    assert.deepEqual(
      v5.hashLists.map((list) => ms(list.minimumWaitDuration)),
      [5 * MIN, 30 * MIN],
    );
    const triple = (threatType: v4proto.ThreatType) => ({
      threatType,
      platformType: v4proto.PlatformType.ANY_PLATFORM,
      threatEntryType: v4proto.ThreatEntryType.URL,
      constraints: { supportedCompressions: [v4proto.CompressionType.RICE] },
    });
    const both = fetchThreatListUpdates(
      catalog,
      create(v4proto.FetchThreatListUpdatesRequestSchema, {
        listUpdateRequests: [triple(v4proto.ThreatType.MALWARE), triple(v4proto.ThreatType.SOCIAL_ENGINEERING_INTERNAL)],
      }),
      CHANGING,
      NOW,
    );
    assert.equal(ms(both.minimumWaitDuration), 5 * MIN);
    const oldOnly = fetchThreatListUpdates(
      catalog,
      create(v4proto.FetchThreatListUpdatesRequestSchema, { listUpdateRequests: [triple(v4proto.ThreatType.MALWARE)] }),
      CHANGING,
      NOW,
    );
    assert.equal(ms(oldOnly.minimumWaitDuration), 30 * MIN);
  });
});
