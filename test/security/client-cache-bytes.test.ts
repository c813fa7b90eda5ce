// S7 of issue 26: a hostile server answers each search with 60,000 full hashes, to be cached a day.
// The client's cache was bounded in prefixes, not bytes: some 20 MB more per URL checked; and an answer
// of 300,000 overflowed the stack (a spread into Math.min) and read as a failed check. Now an answer
// may put at most 32 full hashes under a prefix (search-answer-bounds.ts): past that it is refused,
// the URL UNKNOWN, and nothing is cached; the cache is bounded in bytes as well (local-cache.ts).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type SearchHashesResponse, ThreatType } from '../../src/proto/v5.ts';
import { SearchDeferredError } from '../../src/client/client-errors.ts';
import { SafeBrowsingClient, type CheckResult } from '../../src/client/index.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import { encodeSearchHashesResponse } from '../../src/wire/protobuf/search-hashes-binary.ts';
import { decodeWireRequest } from '../../src/wire/rest/server-request.ts';
import { WireResponseError } from '../../src/wire/wire-error.ts';
import { FakeClock } from '../support/fake-clock.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;
const DAY = 24 * 3_600_000;
const URLS = 12;

/** The heap in use after collecting what can be. */
function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / MiB;
}

/**
 * The hostile server: every search answered with `count()` made-up full hashes, spread over the prefixes
 * it asked about, cached a day (written by the server's own fast encoder: the flood costs it little).
 */
async function startFloodingServer(count: () => number): Promise<{ url: string; searches: number; close(): Promise<void> }> {
  const state = { searches: 0 };
  const server: Server = createServer((req, res) => {
    const call = decodeWireRequest({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: new Uint8Array(0) });
    assert.equal(call.rpc, 'SearchHashes');
    state.searches++;
    const prefixes = call.request.hashPrefixes;
    const bytes = randomBytes(32 * count());
    const fullHashes = Array.from({ length: count() }, (_, i) => {
      const fullHash = bytes.subarray(32 * i, 32 * i + 32);
      fullHash.set(prefixes[i % prefixes.length]!.subarray(0, 4));
      return { fullHash, fullHashDetails: [{ threatType: ThreatType.MALWARE, attributes: [] }] };
    });
    const message = { fullHashes, cacheDuration: durationFromMs(DAY) } as unknown as SearchHashesResponse;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(encodeSearchHashesResponse(message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get searches() {
      return state.searches;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Checks `url`, waiting out (on the fake clock) a back-off that the refused answers before it began. */
async function check(sb: SafeBrowsingClient, clock: FakeClock, url: string): Promise<CheckResult> {
  const result = await sb.checkUrl(url);
  if (!(result.verdict === 'UNKNOWN' && result.error instanceof SearchDeferredError)) return result;
  clock.advance(result.error.notBefore - clock.now());
  return sb.checkUrl(url);
}

describe('a server that floods each search with full hashes (S7)', () => {
  let server: Awaited<ReturnType<typeof startFloodingServer>>;
  let perSearch = 60_000;

  before(async () => {
    server = await startFloodingServer(() => perSearch);
  });
  after(() => server.close());

  it(`keeps the client's heap flat over ${URLS} URLs answered with 60,000 full hashes each`, async (t) => {
    perSearch = 60_000;
    const clock = new FakeClock();
    const sb = new SafeBrowsingClient({ server: server.url, mode: 'nostorage', clock });
    try {
      const before = heapMiB();
      const results: CheckResult[] = [];
      for (let i = 0; i < URLS; i++) results.push(await check(sb, clock, `http://flood-${i}.sbtest.example/page`));
      const grown = heapMiB() - before;
      t.diagnostic(
        `heap ${before.toFixed(0)} MiB → ${(before + grown).toFixed(0)} MiB after ${URLS} URLs; verdicts ${results.map((r) => r.verdict).join(' ')}`,
      );
      assert.ok(grown < 8, `the heap grew by ${grown.toFixed(0)} MiB`);
      for (const result of results) {
        assert.equal(result.verdict, 'UNKNOWN');
        assert.ok(result.error instanceof WireResponseError, String(result.error));
        assert.match(result.error.message, /more than 32 full hashes under the prefix/);
      }
      assert.equal(server.searches, URLS);
    } finally {
      await sb.close();
    }
  });

  it('answers a URL whose search brings 300,000 full hashes UNKNOWN, without overflowing the stack', async (t) => {
    perSearch = 300_000;
    const sb = new SafeBrowsingClient({ server: server.url, mode: 'nostorage', clock: new FakeClock() });
    try {
      const result = await sb.checkUrl('http://flood.sbtest.example/');
      t.diagnostic(`${result.verdict}: ${result.error?.message.slice(0, 120)}`);
      assert.doesNotMatch(String(result.error?.message), /call stack/);
      assert.equal(result.verdict, 'UNKNOWN');
      assert.match(result.error.message, /more than 32 full hashes under the prefix .* \(300000 in all\)/);
    } finally {
      await sb.close();
    }
  });
});
