// A v4 Lookup API user behind a caching proxy (docs/migrating-from-v4.md): a `threatMatches:find` of up
// to 500 URLs is one search of the upstream, counted against the requester's share for the prefixes no
// cache answers. With an API key, 500 page URLs are answered in one go on the default limits; without
// one, a request larger than any search of the client may be is refused with 400 naming the limit, not
// with a 503 its client would retry for ever.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import type { FullHashMatch } from '../../../src/lists/threat-details.ts';
import { FindThreatMatchesRequestSchema, PlatformType, ThreatEntryType, ThreatType } from '../../../src/proto/v4.ts';
import { searchesOf, upstreamFullHashes } from '../../../src/server/api/full-hash-source.ts';
import { DEFAULT_API_SETTINGS } from '../../../src/server/api/settings.ts';
import { findThreatMatches } from '../../../src/server/api/v4.ts';
import type { Requester } from '../../../src/server/guard/requester.ts';
import { expressionHashString, prefix32 } from '../../../src/url/hash.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { demoCatalog } from '../fixture.ts';

/** Page URLs of six expressions each (two hosts, three paths), none shared between sites. */
const pageUrls = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `https://www.site${from + i}.example/dir/page.html`);
const LISTED = expressionHashString('www.site7.example/dir/page.html');

/** An upstream client with a memory cache (negative answers too) that lists one page as malware, recording its requests. */
function cachingUpstream() {
  const requests: number[][] = [];
  const answered = new Set<number>();
  const listed: FullHashMatch = { fullHash: LISTED, details: [{ threatType: 'MALWARE', attributes: [] }] };
  const matchesOf = (prefixes: readonly number[]) => (prefixes.includes(prefix32(LISTED)) ? [listed] : []);
  return {
    requests,
    cachedSearch: (prefixes: readonly number[]) => {
      const known = prefixes.filter((p) => answered.has(p));
      return { fullHashes: matchesOf(known), remaining: prefixes.filter((p) => !answered.has(p)), cacheDurationMs: 300_000 };
    },
    searchPrefixes: async (prefixes: readonly number[]) => {
      requests.push([...prefixes]);
      for (const prefix of prefixes) answered.add(prefix);
      return { fullHashes: matchesOf(prefixes), cacheDurationMs: 300_000 };
    },
  };
}

describe('a v4 Lookup API request through a caching proxy', () => {
  it('is answered for 500 page URLs with a key, refused with 400 naming the limit without one, and free once cached', async () => {
    const clock = new FakeClock();
    const upstream = cachingUpstream();
    const proxy = upstreamFullHashes(upstream, undefined, {}, clock);
    const catalog = demoCatalog();
    const lookUp = (urls: readonly string[], requester: Requester) => {
      const request = create(FindThreatMatchesRequestSchema, {
        threatInfo: {
          threatTypes: [ThreatType.MALWARE],
          platformTypes: [PlatformType.ANY_PLATFORM],
          threatEntryTypes: [ThreatEntryType.URL],
          threatEntries: urls.map((url) => ({ url })),
        },
      });
      return findThreatMatches(catalog, searchesOf(proxy, requester), request, DEFAULT_API_SETTINGS);
    };
    const anonymous: Requester = { id: 'address:192.0.2.9', keyed: false, neighbourhood: '192.0.2.9' };

    await assert.rejects(lookUp(pageUrls(0, 500), anonymous), (error: unknown) => {
      assert.ok(error instanceof WireError);
      assert.equal(error.httpStatus, 400, 'waiting would not help');
      assert.match(error.message, /3000 prefixes .* one search of this client may send at most 250, .* API key/);
      return true;
    });
    assert.deepEqual(upstream.requests, [], 'nothing went up for the refused request');

    const keyed = lookUp(pageUrls(0, 500), { id: 'key:batch-job', keyed: true });
    await clock.advanceAsync(20_000);
    const answer = await keyed;
    assert.deepEqual(
      answer.matches.map((match) => match.threat?.url),
      ['https://www.site7.example/dir/page.html'],
    );
    assert.equal(upstream.requests.length, 12, '3000 prefixes, 250 a request');

    const again = await lookUp(pageUrls(0, 500), anonymous);
    assert.equal(again.matches.length, 1, 'answered from the cache: nothing had to go up, so nothing counted');
    const fits = lookUp(pageUrls(1000, 41), anonymous);
    await clock.advanceAsync(50);
    assert.equal((await fits).matches.length, 0, "41 page URLs are 246 prefixes: one request's worth");
    assert.equal(upstream.requests.length, 13);
  });
});
