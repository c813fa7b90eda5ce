import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FullHashSource } from '../../../src/server/api/full-hash-source.ts';
import { listedSearches, UNLISTED_PREFIX_CACHE_MS } from '../../../src/server/proxy/listed-searches.ts';
import type { SortedHashes } from '../../../src/store/hash-list.ts';
import { hashStringOfHex } from '../../../src/url/hash.ts';

const list = (...prefixes: number[]): SortedHashes => ({ width: 4, values: Uint32Array.from(prefixes).sort() });

/** An upstream that finds a full hash under every prefix it is asked about, and records what it was asked. */
function upstream(cacheDurationMs = 60_000) {
  const asked: number[][] = [];
  const source: FullHashSource = {
    find: async (prefixes) => {
      asked.push([...prefixes]);
      return {
        fullHashes: prefixes.map((p) => ({
          fullHash: hashStringOfHex(p.toString(16).padStart(8, '0') + '00'.repeat(28)),
          details: [{ threatType: 'MALWARE', attributes: [] }],
        })),
        cacheDurationMs,
      };
    },
  };
  return { asked, source };
}

describe('listedSearches', () => {
  it('asks the upstream only for prefixes a list holds, and answers the others itself as unlisted', async () => {
    const { asked, source } = upstream();
    const searches = listedSearches(source, () => [list(0x0a000001, 0xfffffff0), list(0x12345678)]);
    const answer = await searches.find([0xfffffff0, 0x11111111, 0x12345678]);
    assert.deepEqual(asked, [[0xfffffff0, 0x12345678]]);
    assert.equal(answer.fullHashes.length, 2);
    assert.equal(answer.cacheDurationMs, 60_000);
    const none = await searches.find([0x11111111, 0]);
    assert.deepEqual(asked.length, 1, 'no call for prefixes no list holds');
    assert.deepEqual(none, { fullHashes: [], cacheDurationMs: UNLISTED_PREFIX_CACHE_MS });
  });

  it('keeps an unlisted answer no longer than the lists may take to change, negative or not', async () => {
    const { source } = upstream(24 * 3_600_000);
    const day: FullHashSource = {
      find: async (prefixes) => ({ ...(await source.find(prefixes)), negativeCacheDurationMs: 24 * 3_600_000 }),
    };
    const answer = await listedSearches(day, () => [list(1)]).find([1, 2]);
    assert.equal(answer.cacheDurationMs, UNLISTED_PREFIX_CACHE_MS);
    assert.equal(answer.negativeCacheDurationMs, UNLISTED_PREFIX_CACHE_MS);
  });

  it('sends every prefix up while a list has no copy yet', async () => {
    const { asked, source } = upstream();
    await listedSearches(source, () => undefined).find([1, 2, 3]);
    assert.deepEqual(asked, [[1, 2, 3]]);
  });
});
