import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import { fromBinary } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema } from '../src/proto/v5.ts';
import { expressionHashString } from '../src/url/hash.ts';
import { SMOKE } from './smoke.ts';

export interface HttpRow {
  name: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  /** Share of the bare fastify route's rate; docs/architecture.md asks ≥ 50% for hashes:search. */
  ofBare: number | undefined;
  budgetOfBare: number | undefined;
}

/** Rounds of the three routes; the medians of an odd number are measured values, not averages. */
const ROUNDS = SMOKE ? 1 : 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function load(url: string, seconds: number): Promise<{ rps: number; p50: number }> {
  const result = await autocannon({ url, connections: 32, duration: seconds, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50 };
}

/**
 * Requests per second on loopback: the server runs in a child process (one core), autocannon here (the
 * other core). hashes:search is Firefox's request for one prefix; batchGet asks for five lists at their
 * current versions, the common case of a periodic update.
 */
export async function httpBenchmarks(seconds = 3): Promise<HttpRow[]> {
  const child = fork(new URL('./http-server.ts', import.meta.url), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  try {
    const { sbkitUrl, bareUrl, guardedUrl } = await new Promise<{ sbkitUrl: string; bareUrl: string; guardedUrl: string }>(
      (resolve, reject) => {
        child.once('message', (m) => resolve(m as { sbkitUrl: string; bareUrl: string; guardedUrl: string }));
        child.once('exit', (code) => reject(new Error(`the benchmark server exited with ${code}`)));
      },
    );
    const prefix = encodeURIComponent(
      Buffer.from(expressionHashString('testsafebrowsing.appspot.com/s/phishing.html').slice(0, 4), 'latin1').toString('base64'),
    );
    const names = ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b'];
    const first = await fetch(`${sbkitUrl}/v5/hashLists:batchGet?${names.map((n) => `names=${n}`).join('&')}`);
    const lists = fromBinary(BatchGetHashListsResponseSchema, new Uint8Array(await first.arrayBuffer())).hashLists;
    const versions = lists.map((l) => `version=${encodeURIComponent(Buffer.from(l.version).toString('base64'))}`).join('&');
    const batchUrl = `${sbkitUrl}/v5/hashLists:batchGet?key=K&${names.map((n) => `names=${n}`).join('&')}&${versions}`;

    // A warm-up first (the first second runs unoptimised code on both sides), then rounds that take
    // the routes in turn, so that the shared machine's slow moments fall on all of them alike; each
    // route's rate is the median over rounds, and so is its share of the bare route's rate.
    const routes = {
      bare: bareUrl,
      search: `${sbkitUrl}/v5/hashes:search?key=K&hashPrefixes=${prefix}`,
      guarded: `${guardedUrl}/v5/hashes:search?key=K&hashPrefixes=${prefix}`,
      batch: batchUrl,
    };
    for (const url of Object.values(routes)) await load(url, SMOKE ? seconds : 2);
    const rounds: Record<keyof typeof routes, { rps: number; p50: number }>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push({
        bare: await load(routes.bare, seconds),
        search: await load(routes.search, seconds),
        guarded: await load(routes.guarded, seconds),
        batch: await load(routes.batch, seconds),
      });
    }
    const row = (route: keyof typeof routes, name: string, budgetOfBare: number | undefined): HttpRow => ({
      name,
      requestsPerSecond: median(rounds.map((r) => r[route].rps)),
      latencyP50Ms: median(rounds.map((r) => r[route].p50)),
      ofBare: route === 'bare' ? undefined : median(rounds.map((r) => r[route].rps / r.bare.rps)),
      budgetOfBare,
    });
    return [
      row('bare', 'bare fastify route (48-byte body)', undefined),
      row('search', 'v5 hashes:search, one prefix (Firefox form)', 0.5),
      row('guarded', 'the same behind load control (memory; limits out of reach, so every request is decided and admitted)', undefined),
      row('batch', 'v5 hashLists:batchGet, five lists at their current versions', undefined),
    ];
  } finally {
    child.disconnect();
  }
}
