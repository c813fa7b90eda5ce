import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchResponse } from '../../src/client/transport/transport.ts';
import { LocalCache } from '../../src/client/local-cache.ts';
import { MAX_CACHE_DURATION_MS } from '../../src/wire/duration-caps.ts';
import type { FullHashMatch } from '../../src/lists/threat-details.ts';
import { expressionHashString, prefix32 } from '../../src/url/hash.ts';

const hash = expressionHashString('malware.sbtest.example/');
const prefix = prefix32(hash);
const match: FullHashMatch = { fullHash: hash, details: [{ threatType: 'MALWARE', attributes: [] }] };

function answer(fullHashes: FullHashMatch[], cacheDurationMs: number, more: Partial<SearchResponse> = {}): SearchResponse {
  return { fullHashes, serverFullHashCount: fullHashes.length, cacheDurationMs, ...more };
}

describe('LocalCache (SB-4, SB-8)', () => {
  it('caches every queried prefix, found or not, with the response expiration', () => {
    const cache = new LocalCache();
    cache.store([prefix, 7], answer([match], 300_000), 1000);
    assert.deepEqual(cache.lookup(prefix, 1000)?.fullHashes, [match]);
    const negative = cache.lookup(7, 1000);
    assert.equal(negative?.expiresAt, 301_000);
    assert.deepEqual(negative.fullHashes, []);
  });

  it('keeps an entry live until now passes its expiration, then deletes it', () => {
    const cache = new LocalCache();
    cache.store([7], answer([], 1000), 0);
    assert.ok(cache.lookup(7, 1000));
    assert.equal(cache.lookup(7, 1001), undefined);
    assert.equal(cache.size, 0);
  });

  it('lengthens durations of empty responses only, and never past 24 hours', () => {
    const cache = new LocalCache({ emptyResponseCacheMs: 10 * MAX_CACHE_DURATION_MS });
    cache.store([7], answer([], 60_000), 0);
    assert.equal(cache.lookup(7, 0)?.expiresAt, MAX_CACHE_DURATION_MS);
    cache.store([prefix, 8], answer([match], 60_000), 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, 60_000);
    assert.equal(cache.lookup(8, 0)?.expiresAt, 60_000, 'a response with full hashes is not empty for its other prefixes either');
  });

  it("keeps no entry past 24 hours whatever the server's durations, positive or negative, v5 or v4", () => {
    const years = 11_574 * MAX_CACHE_DURATION_MS;
    const cache = new LocalCache();
    cache.store([prefix, 7], answer([match], years), 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, MAX_CACHE_DURATION_MS);
    assert.equal(cache.lookup(7, 0)?.expiresAt, MAX_CACHE_DURATION_MS);
    cache.store([prefix, 8], answer([{ ...match, cacheDurationMs: years }], years, { negativeCacheDurationMs: years }), 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, MAX_CACHE_DURATION_MS);
    assert.equal(cache.lookup(8, 0)?.expiresAt, MAX_CACHE_DURATION_MS);
    cache.store([9], answer([], Number.NaN), 0);
    assert.equal(cache.lookup(9, 0)?.expiresAt, 0);
  });

  it('does not lengthen a response whose full hashes were all unusable: the wire count decides', () => {
    const cache = new LocalCache({ emptyResponseCacheMs: 3_600_000 });
    cache.store([7], answer([], 60_000, { serverFullHashCount: 2 }), 0);
    assert.equal(cache.lookup(7, 0)?.expiresAt, 60_000);
  });

  it('does not cache full hashes under a prefix nobody asked about', () => {
    const cache = new LocalCache();
    cache.store([7], answer([match], 1000), 0);
    assert.equal(cache.lookup(prefix, 0), undefined);
    assert.deepEqual(cache.lookup(7, 0)?.fullHashes, []);
  });

  it('uses v4 per-match and negative durations, the shorter one for a prefix with a match', () => {
    const cache = new LocalCache();
    cache.store([prefix, 7], answer([{ ...match, cacheDurationMs: 600_000 }], 300_000, { negativeCacheDurationMs: 60_000 }), 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, 60_000);
    assert.equal(cache.lookup(7, 0)?.expiresAt, 60_000);
    cache.store([prefix], answer([{ ...match, cacheDurationMs: 30_000 }], 300_000, { negativeCacheDurationMs: 60_000 }), 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, 30_000);
  });

  it('evicts the least recently used entries beyond its bound', () => {
    const cache = new LocalCache({ maxEntries: 2 });
    cache.store([1], answer([], 1000), 0);
    cache.store([2], answer([], 1000), 0);
    cache.lookup(1, 0);
    cache.store([3], answer([], 1000), 0);
    assert.equal(cache.size, 2);
    assert.ok(cache.lookup(1, 0));
    assert.equal(cache.lookup(2, 0), undefined);
    assert.ok(cache.lookup(3, 0));
  });

  it('evicts the least recently used entries beyond its bytes, full hashes weighing in (S7)', () => {
    const cache = new LocalCache({ maxBytes: 1024 * 1024 });
    // Each prefix with 32 full hashes, as many as an answer may give one (search-answer-bounds.ts).
    const heavy = (p: number): FullHashMatch[] =>
      Array.from({ length: 32 }, (_, i) => ({
        fullHash: String.fromCharCode(0, 0, p >> 8, p & 255) + `${i}`.padEnd(28, '.'),
        details: match.details,
      }));
    for (let p = 0; p < 1000; p++) cache.store([p], answer(heavy(p), 60_000), 0);
    assert.ok(cache.sizeBytes <= 1024 * 1024, `${cache.sizeBytes} bytes`);
    assert.ok(cache.size > 100 && cache.size < 1000, `${cache.size} entries`);
    assert.equal(cache.lookup(0, 0), undefined);
    assert.equal(cache.lookup(999, 0)?.fullHashes.length, 32);
    // Entries leaving, by expiry or by being replaced, give their bytes back.
    const before = cache.sizeBytes;
    cache.store([999], answer([], 60_000), 0);
    assert.ok(cache.sizeBytes < before - 32 * 100);
    cache.clear();
    assert.equal(cache.sizeBytes, 0);
  });

  it('refuses a byte bound too small for one prefix with its full hashes', () => {
    assert.throws(() => new LocalCache({ maxBytes: 1000 }), /cache.maxBytes is 1000; the local cache needs at least 1048576 bytes/);
  });

  it('can be dropped at any time', () => {
    const cache = new LocalCache();
    cache.store([1, 2, 3], answer([], 1000), 0);
    cache.clear();
    assert.equal(cache.size, 0);
  });
});
