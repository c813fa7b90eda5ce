// Load control's cost per request (LC-5 decision: classify the agent, key the client, ask the hit
// store, take a place in the load), in memory and on a real Redis, and its memory under a flood of
// distinct clients.
import { LoadControl } from '../src/server/guard/load-control.ts';
import { LC_RATE_RULES, MemoryHitStore } from '../src/server/guard/hit-store.ts';
import type { BenchCase, BenchFact } from './case.ts';
import { sized } from './smoke.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const REDIS_URL = 'redis://127.0.0.1:6379';
/** Requests per operation, from this many clients in turn, so that the rate rules admit most of them. */
const REQUESTS = 1000;
const CLIENTS = 1000;

export interface GuardBench {
  cases: BenchCase[];
  facts: BenchFact[];
  cleanup(): Promise<void>;
}

function decisions(control: LoadControl): () => Promise<void> {
  let n = 0;
  return async () => {
    for (let i = 0; i < REQUESTS; i++) {
      const peer = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${(n++ % CLIENTS) & 255}`;
      const { decision, slot } = await control.decide(
        { url: '/v5/hashes:search?hashPrefixes=WwuJdQ', headers: { 'user-agent': FIREFOX }, peer },
        false,
      );
      if (decision.admit) control.finished(slot);
    }
  };
}

/** Heap bytes per remembered client, with a cap of a million and a million distinct clients. */
function bytesPerClient(): number {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const clients = sized(1_000_000);
  const store = new MemoryHitStore(LC_RATE_RULES, clients, () => 0);
  for (let i = 0; i < clients; i++) store.hitNow(`client-${i}`.padEnd(22, '='), false);
  global.gc?.();
  const bytes = (process.memoryUsage().heapUsed - before) / store.size;
  return bytes;
}

export async function guardBenchmarks(): Promise<GuardBench> {
  const memory = await LoadControl.create({ settings: { burstMax: 1_000_000 } });
  const shared = await LoadControl.create({
    settings: { burstMax: 1_000_000 },
    redis: { url: REDIS_URL, keyPrefix: `sbkit-bench:${process.pid}:` },
  });
  return {
    cases: [
      {
        name: 'load-control decision in memory (classify, key, LC-5 gate), per request',
        unit: 'requests',
        unitsPerOp: REQUESTS,
        fn: decisions(memory),
      },
      {
        name: 'load-control decision shared through Redis on loopback (one Lua script), per request',
        unit: 'requests',
        unitsPerOp: REQUESTS,
        fn: decisions(shared),
      },
    ],
    facts: [
      { name: 'heap per client remembered by load control (1 M distinct clients, exact windows)', value: bytesPerClient(), unit: 'B' },
    ],
    cleanup: async () => {
      await memory.close();
      await shared.close();
    },
  };
}
