import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { SearchUrlsRequestSchema, ThreatType } from '../../../src/proto/v5.ts';
import { DEFAULT_API_SETTINGS } from '../../../src/server/api/settings.ts';
import { searchUrls } from '../../../src/server/api/v5.ts';
import { urlExpressions } from '../../../src/url/expressions.ts';
import { expressionHashString, prefix32 } from '../../../src/url/hash.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { catalogOf, counting, modelThreatTypes, ownSource, poolLists, upstreamSource, URL_POOL } from './fixtures.ts';

const search = (source: Parameters<typeof searchUrls>[0], urls: string[]) =>
  searchUrls(source, create(SearchUrlsRequestSchema, { urls }), DEFAULT_API_SETTINGS);

describe('urls:search', () => {
  it('searches the source once for all URLs of a request, with the prefixes of all their expressions', async () => {
    const urls = URL_POOL.slice(0, 50);
    const source = counting(ownSource(catalogOf([{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], expressions: ['b.a.example/x'] }])));
    const response = await search(source, urls);
    assert.equal(source.calls.length, 1);
    const expected = new Set(urls.flatMap((url) => urlExpressions(url).map((e) => prefix32(expressionHashString(e)))));
    assert.deepEqual(new Set(source.calls[0]), expected);
    assert.deepEqual(
      response.threats.map((t) => t.url),
      urls.filter((url) => urlExpressions(url).includes('b.a.example/x')),
    );
  });

  it('answers each URL with the threat types of the lists holding its expressions, as a request of that URL alone does', async () => {
    await fc.assert(
      fc.asyncProperty(poolLists, fc.array(fc.constantFrom(...URL_POOL), { minLength: 1, maxLength: 50 }), async (lists, urls) => {
        const catalog = catalogOf(lists);
        const source = counting(ownSource(catalog));
        const together = await search(source, urls);
        assert.equal(source.calls.length, 1);
        const model = urls.flatMap((url) => {
          const types = modelThreatTypes(lists, url);
          return types.size === 0 ? [] : [{ url, threatTypes: new Set([...types].map((type) => ThreatType[type])) }];
        });
        assert.deepEqual(
          together.threats.map((t) => ({ url: t.url, threatTypes: new Set(t.threatTypes) })),
          model,
        );
        const alone = [];
        for (const url of urls) alone.push(...(await search(ownSource(catalog), [url])).threats);
        assert.deepEqual(together.threats, alone);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps a threat for the positive duration, no longer than the upstream's answer holds (SB-8)", async () => {
    const settings = { ...DEFAULT_API_SETTINGS, positiveCacheDurationMs: 300_000 };
    const urls = ['http://evil.example/'];
    for (const [upstreamMs, expectedSeconds] of [
      [60_000, 60n],
      [900_000, 300n],
    ] as const) {
      const source = upstreamSource({ 'evil.example/': ['MALWARE'] }, upstreamMs);
      const response = await searchUrls(source, create(SearchUrlsRequestSchema, { urls }), settings);
      assert.equal(response.threats.length, 1);
      assert.equal(response.cacheDuration?.seconds, expectedSeconds, `upstream answer of ${upstreamMs} ms`);
    }
  });

  it('refuses a request with an unreadable URL before searching anything', async () => {
    const source = counting(ownSource(catalogOf([])));
    await assert.rejects(
      search(source, ['http://a.example/', 'ftp://b.example/']),
      (err: unknown) => err instanceof WireError && err.status === 'INVALID_ARGUMENT',
    );
    assert.equal(source.calls.length, 0);
  });
});
