// The whole check path in bulk: SafeBrowsingClient.checkUrls in local mode, a database holding one
// 2 M-prefix list, URLs none of which is listed (the common case of mail and link scanning), so that
// no search goes out and the time is the client's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SafeBrowsingClient } from '../src/client/safe-browsing-client.ts';
import { LocalDatabase } from '../src/store/database.ts';
import { checksumOf, HashList } from '../src/store/hash-list.ts';
import { parseCanonicalUrl } from '../src/url/canonicalize.ts';
import { expressionsOf } from '../src/url/expressions.ts';
import { expressionHashString, nodeSha256, prefix32 } from '../src/url/hash.ts';
import type { BenchCase } from './case.ts';
import { randomSortedPrefixes } from './data.ts';
import type { FloorCase } from './floor.ts';
import { sized } from './smoke.ts';

const URL_COUNT = sized(100_000);
const LIST_SIZE = sized(2_000_000);

/** Distinct URLs of the kind a mail or chat scanner sees: a few thousand hosts, varied paths and queries. */
function bulkUrls(count: number): string[] {
  const sites = ['example.com', 'shop.example.co.uk', 'news.example.org', 'user.github.io', 'cdn.example.net', 'example.de'];
  const paths = ['/', '/index.html', '/a/b/c/page.php', '/login', '/docs/2026/11/report.pdf', '/search', '/p/'];
  const queries = ['', '?q=safe+browsing', '?id=', '?utm_source=mail&utm_medium=email'];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const site = sites[i % sites.length]!;
    const host = i % 3 === 0 ? site : `s${i % 4999}.${site}`;
    const query = queries[i % queries.length]!;
    urls.push(`${i % 4 === 0 ? 'http' : 'https'}://${host}${paths[(i * 7) % paths.length]}${i}${query}${query === '?id=' ? i : ''}`);
  }
  return urls;
}

export interface CheckBench {
  cases: FloorCase[];
  cleanup: () => Promise<void>;
}

/**
 * checkUrls of 100,000 URLs against its floor: the SHA-256s alone of the same URLs' expressions, which
 * any implementation must compute. docs/architecture.md asks for at least 0.4 of the floor's speed.
 */
export async function checkBenchmarks(): Promise<CheckBench> {
  const urls = bulkUrls(URL_COUNT);
  const expressions = urls.flatMap((url) => expressionsOf(parseCanonicalUrl(url)));
  // The list leaves out every prefix of these URLs: no hits, so no search.
  const ours = new Set(expressions.map((e) => prefix32(expressionHashString(e))));
  const prefixes = randomSortedPrefixes(LIST_SIZE + 1000, 7).filter((p) => !ours.has(p));
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-bench-check-'));
  const db = await LocalDatabase.open(dir);
  const hashes = { width: 4 as const, values: prefixes };
  await db.save(HashList.fromSorted('se-4b', Buffer.from('bench'), hashes, checksumOf(hashes, nodeSha256)), Date.now());
  // A server nobody listens on: any search would fail the run (checked below), not measure a network.
  const client = new SafeBrowsingClient({ mode: 'local', lists: ['se-4b'], dataDir: dir, readOnly: true, server: 'http://127.0.0.1:9' });
  let sink = 0;
  const subject: BenchCase = {
    name: `checkUrls of ${URL_COUNT} URLs, local mode, one ${LIST_SIZE / 1e6} M-prefix list, no hits`,
    unit: 'URLs',
    unitsPerOp: urls.length,
    fn: async () => {
      const results = await client.checkUrls(urls);
      for (const result of results)
        if (result.verdict !== 'SAFE' || result.error !== undefined) throw new Error(`${result.url}: not a clean SAFE`);
      sink += results.length;
    },
  };
  const floor: BenchCase = {
    name: `the SHA-256s alone of those URLs' expressions (${(expressions.length / urls.length).toFixed(1)} per URL), node:crypto`,
    unit: 'URLs',
    unitsPerOp: urls.length,
    fn: () => {
      for (const expression of expressions) sink += prefix32(expressionHashString(expression));
      if (sink === -1) throw new Error('unreachable: keeps the work observable');
    },
  };
  return {
    cases: [{ subject, floor, budgetOfFloor: 0.4 }],
    cleanup: async () => {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
