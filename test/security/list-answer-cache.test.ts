// S10 of issue 26: list requests with made-up `version` bytes, or size constraints the list does not
// reach, each missed the cache of encoded answers and had the whole list Rice-coded again: some 43 ms of
// CPU per request for a list of a million entries, against 3.5 ms for an answer from the cache. Their
// answers are the same bytes as the plain request's; the cache key (the ETag) is now worked out from
// the request as the list reads it (ListHistory.canonicalRequest), so they share its entry.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ListCatalog } from '../../src/server/catalog.ts';
import { ListHistory } from '../../src/server/lists/list-history.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';

const ENTRIES = 1_000_000;

/** The CPU time of this process (the server's and the client's alike) while `run` runs, in ms, and its result. */
async function cpuOf<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, result };
}

describe('list requests that vary what does not change the answer (S10)', () => {
  let server: SafeBrowsingServer;
  let base: string;

  before(async () => {
    const history = new ListHistory(
      { name: 'mw-4b', hashLength: 4, threatTypes: ['MALWARE'], likelySafeTypes: [], description: '' },
      { keep: 2 },
    );
    history.publish(randomBytes(32 * ENTRIES));
    server = createServer({ catalog: new ListCatalog([history]), port: 0 });
    base = await server.listen();
  });
  after(() => server.close());

  /** GET `path`: the ETag and the body's size. */
  async function get(path: string): Promise<{ etag: string | null; bytes: number }> {
    const response = await fetch(`${base}${path}`);
    assert.equal(response.status, 200, `${path}: ${response.status}`);
    return { etag: response.headers.get('etag'), bytes: (await response.arrayBuffer()).byteLength };
  }

  it('answers made-up versions and constraints that cut nothing from the cache, as the plain request', async (t) => {
    const first = await cpuOf(() => get('/v5/hashList/mw-4b'));
    t.diagnostic(`the first request, encoded: ${first.ms.toFixed(1)} ms CPU`);
    const made = (bytes: Buffer) => encodeURIComponent(bytes.toString('base64'));
    // A settled version naming no snapshot kept (tag byte 1, then 20 bytes), and bytes of no version at all.
    const variants = [
      ...Array.from({ length: 6 }, () => `/v5/hashList/mw-4b?version=${made(Buffer.concat([Buffer.of(1), randomBytes(20)]))}`),
      ...Array.from({ length: 6 }, () => `/v5/hashList/mw-4b?version=${made(randomBytes(12))}`),
      ...[1_000_000, 2_000_000, 2_147_483_647].map((n) => `/v5/hashList/mw-4b?sizeConstraints.maxDatabaseEntries=${n}`),
      ...[1_000_000, 5_000_000, 2_147_483_647].map((n) => `/v5/hashList/mw-4b?sizeConstraints.maxUpdateEntries=${n}`),
      `/v5/hashList/mw-4b?version=${made(randomBytes(21))}&sizeConstraints.maxUpdateEntries=3000000&sizeConstraints.maxDatabaseEntries=4000000`,
    ];
    // Rounds of an answer from the cache, one encoded afresh (half the list less a few: each a new answer)
    // and made-up variants, taken in turns so that collections and the machine's load weigh on all alike.
    const times = { hit: [] as number[], miss: [] as number[], varied: [] as number[] };
    const etags = { miss: new Set<string | null>(), varied: new Set<string | null>() };
    const timed = async (kind: keyof typeof times, path: string) => {
      const used = await cpuOf(() => get(path));
      times[kind].push(used.ms);
      if (kind !== 'hit') etags[kind].add(used.result.etag);
      if (kind === 'varied') assert.equal(used.result.bytes, first.result.bytes);
    };
    for (let i = 0; i < 3; i++) await get('/v5/hashList/mw-4b');
    for (let round = 0; round < variants.length; round++) {
      await timed('hit', '/v5/hashList/mw-4b');
      if (round < 7) await timed('miss', `/v5/hashList/mw-4b?sizeConstraints.maxDatabaseEntries=${ENTRIES / 2 - round}`);
      await timed('varied', variants[round]!);
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
    const [hit, miss, varied] = [median(times.hit), median(times.miss), median(times.varied)];
    t.diagnostic(
      `median CPU per request: ${hit.toFixed(1)} ms from the cache, ${miss.toFixed(1)} ms encoded afresh (half the list), ` +
        `${varied.toFixed(1)} ms for ${variants.length} made-up variants (${etags.varied.size} distinct ETags; ${first.result.bytes} bytes each)`,
    );
    assert.equal(etags.miss.size, 7, 'a constraint that cuts is an answer of its own');
    assert.deepEqual([...etags.varied], [first.result.etag], 'every variant shares the plain answer and its tag');
    assert.ok(varied < (hit + miss) / 2, `${varied.toFixed(1)} ms per variant: nearer an encoding than a cache hit`);
  });

  it('still answers a batch with a made-up version from the cache, and a constraint that cuts as its own answer', async () => {
    const plain = await get('/v5/hashLists:batchGet?names=mw-4b');
    const madeUp = await get(`/v5/hashLists:batchGet?names=mw-4b&version=${encodeURIComponent(randomBytes(21).toString('base64'))}`);
    assert.equal(madeUp.etag, plain.etag);
    const cut = await get('/v5/hashLists:batchGet?names=mw-4b&sizeConstraints.maxDatabaseEntries=1000');
    assert.notEqual(cut.etag, plain.etag);
    assert.ok(cut.bytes < plain.bytes / 100);
  });
});
