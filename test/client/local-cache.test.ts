import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalCache, MAX_CACHE_DURATION_MS } from '../../src/client/local-cache.ts';
import { expressionHashString, prefix32 } from '../../src/url/hash.ts';

const hash = expressionHashString('malware.sbtest.example/');
const prefix = prefix32(hash);
const match = { fullHash: hash, details: [{ threatType: 'MALWARE' as const, attributes: [] }] };

describe('LocalCache (SB-4, SB-8)', () => {
  it('caches every queried prefix, found or not, with the response expiration', () => {
    const cache = new LocalCache();
    cache.store([prefix, 7], { fullHashes: [match], cacheDurationMs: 300_000 }, 1000);
    assert.deepEqual(cache.lookup(prefix, 1000)?.fullHashes, [match]);
    assert.deepEqual(cache.lookup(7, 1000), { expiresAt: 301_000, fullHashes: [] });
  });

  it('keeps an entry live until now passes its expiration, then deletes it', () => {
    const cache = new LocalCache();
    cache.store([7], { fullHashes: [], cacheDurationMs: 1000 }, 0);
    assert.ok(cache.lookup(7, 1000));
    assert.equal(cache.lookup(7, 1001), undefined);
    assert.equal(cache.size, 0);
  });

  it('lengthens durations of empty responses only, and never past 24 hours', () => {
    const cache = new LocalCache({ emptyResponseCacheMs: 10 * MAX_CACHE_DURATION_MS });
    cache.store([7], { fullHashes: [], cacheDurationMs: 60_000 }, 0);
    assert.equal(cache.lookup(7, 0)?.expiresAt, MAX_CACHE_DURATION_MS);
    cache.store([prefix], { fullHashes: [match], cacheDurationMs: 60_000 }, 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, 60_000);
  });

  it('caches returned full hashes under their own prefix even when it was not queried', () => {
    const cache = new LocalCache();
    cache.store([7], { fullHashes: [match], cacheDurationMs: 1000 }, 0);
    assert.deepEqual(cache.lookup(prefix, 0)?.fullHashes, [match]);
  });

  it('evicts the least recently used entries beyond its bound', () => {
    const cache = new LocalCache({ maxEntries: 2 });
    cache.store([1], { fullHashes: [], cacheDurationMs: 1000 }, 0);
    cache.store([2], { fullHashes: [], cacheDurationMs: 1000 }, 0);
    cache.lookup(1, 0);
    cache.store([3], { fullHashes: [], cacheDurationMs: 1000 }, 0);
    assert.equal(cache.size, 2);
    assert.ok(cache.lookup(1, 0));
    assert.equal(cache.lookup(2, 0), undefined);
    assert.ok(cache.lookup(3, 0));
  });

  it('uses v4 per-match and negative durations where given', () => {
    const cache = new LocalCache();
    cache.store([prefix, 7], { fullHashes: [{ ...match, cacheDurationMs: 600_000 }], cacheDurationMs: 300_000, negativeCacheDurationMs: 60_000 }, 0);
    assert.equal(cache.lookup(prefix, 0)?.expiresAt, 600_000);
    assert.equal(cache.lookup(7, 0)?.expiresAt, 60_000);
  });

  it('can be dropped at any time', () => {
    const cache = new LocalCache();
    cache.store([1, 2, 3], { fullHashes: [], cacheDurationMs: 1000 }, 0);
    cache.clear();
    assert.equal(cache.size, 0);
  });
});
