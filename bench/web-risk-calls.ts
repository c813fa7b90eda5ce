// What a Web Risk proxy spends: upstream `hashes:search` calls (Web Risk bills each) per 1,000 URL
// checks of its clients, with the lists kept locally through computeDiff and without them. The upstream
// is sbkit speaking Web Risk from a list of 10,000 entries, in this process; a forwarder counts its calls.
// The checks are lookups of URLs as a v5 real-time or no-storage client, the v4 Lookup API or Web Risk's
// uris:search make them: every expression's prefix asked of the proxy's search path, which is built from
// the proxy's own parts (the mirroring client, upstreamFullHashes, listedSearches). 1 % of the URLs are
// listed; each URL is checked once, so the proxy's cache saves only prefixes URLs share (their hosts).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEB_RISK_THREAT_LISTS } from '../src/lists/known-lists.ts';
import { parseServerConfig } from '../src/server/config/config.ts';
import { type FullHashSource, upstreamFullHashes } from '../src/server/api/full-hash-source.ts';
import { listedSearches } from '../src/server/proxy/listed-searches.ts';
import { clientUpstream } from '../src/server/proxy/upstream.ts';
import { startService } from '../src/server/service.ts';
import type { SortedHashes } from '../src/store/hash-list.ts';
import { parseCanonicalUrl } from '../src/url/canonicalize.ts';
import { expressionsOf } from '../src/url/expressions.ts';
import { expressionHashString, prefix32 } from '../src/url/hash.ts';
import { recordingForwarder } from '../test/support/recording-forwarder.ts';
import type { BenchFact } from './case.ts';
import { sized } from './smoke.ts';

const CHECKS = 1000;
const LISTED_SHARE = 0.01;
const LIST_ENTRIES = 10_000;
/** No budget in the way: the count is what the proxy would spend, not what its limits let through. */
const UNLIMITED = {
  requestsPerMinute: 1e9,
  burst: 1e9,
  anonymousPrefixesPerMinute: 1e9,
  neighbourhoodPrefixesPerMinute: 1e9,
  keyedPrefixesPerMinute: 1e9,
  relayedPrefixesPerMinute: 1e9,
};

/** The URLs checked: a listed one every 1 / LISTED_SHARE, the others on 1,000 distinct sites. */
function checkedUrls(count: number): string[] {
  const every = Math.round(1 / LISTED_SHARE);
  return Array.from({ length: count }, (_, i) =>
    i % every === 0 ? `http://listed-${i}.webrisk.example/login` : `https://site-${i}.example.org/articles/${i}?ref=${i}`,
  );
}

/** Upstream search calls for `checks` through `source`, as counted by `calls()`. */
async function callsFor(source: FullHashSource, urls: readonly string[], calls: () => number): Promise<number> {
  const before = calls();
  for (const url of urls) {
    const prefixes = expressionsOf(parseCanonicalUrl(url)).map((expression) => prefix32(expressionHashString(expression)));
    await source.find(prefixes);
  }
  return calls() - before;
}

export async function webRiskCallFacts(): Promise<BenchFact[]> {
  const checks = sized(CHECKS);
  const urls = checkedUrls(checks);
  const listed = urls.filter((url) => url.includes('listed-')).map((url) => url.replace(/^https?:\/\//, ''));
  const filler = Array.from({ length: sized(LIST_ENTRIES) }, (_, i) => `filler-${i}.webrisk.example/`);
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-bench-webrisk-'));
  const config = parseServerConfig(
    {
      lists: [
        { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: [...listed, ...filler] }] },
        { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['phishing.webrisk.example/'] }] },
        { name: 'uws-4b', threatTypes: ['UNWANTED_SOFTWARE'], sources: [{ entries: ['unwanted.webrisk.example/'] }] },
      ],
    },
    dir,
  );
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file: join(dir, 'sbkit.json'), config },
    redis: undefined,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: () => {},
  });
  const forwarder = await recordingForwarder(new URL(service.url));
  const searchCalls = () => forwarder.seen.filter((line) => line.startsWith('GET /v1/hashes:search')).length;
  const mirror = (name: string) =>
    clientUpstream({ server: forwarder.url, protocol: 'webrisk', mode: 'local', dataDir: join(dir, name), firstUpdateWindowMs: 0 });
  try {
    const withLists = mirror('with');
    await withLists.open();
    await withLists.update();
    const copies = (): SortedHashes[] => WEB_RISK_THREAT_LISTS.map((name) => withLists.list(name)!.hashes.sortedHashes());
    const withCalls = await callsFor(listedSearches(upstreamFullHashes(withLists, undefined, UNLIMITED), copies), urls, searchCalls);
    await withLists.close();
    const withoutLists = mirror('without');
    await withoutLists.open();
    const withoutCalls = await callsFor(upstreamFullHashes(withoutLists, undefined, UNLIMITED), urls, searchCalls);
    await withoutLists.close();
    const per1000 = (calls: number) => Math.round((calls * 1000) / checks);
    return [
      {
        name: 'Web Risk proxy: upstream hashes:search calls per 1,000 URL checks, lists kept locally',
        value: per1000(withCalls),
        unit: 'calls',
      },
      {
        name: 'Web Risk proxy: upstream hashes:search calls per 1,000 URL checks, without local lists',
        value: per1000(withoutCalls),
        unit: 'calls',
      },
    ];
  } finally {
    await forwarder.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}
