import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDatabase } from '../src/store/database.ts';
import { HashList } from '../src/store/hash-list.ts';
import { PrefixSet } from '../src/store/prefix-set.ts';
import type { BenchCase, BenchFact } from './case.ts';

/** Deterministic pseudo-random distinct prefixes, sorted (xorshift32). */
export function randomSortedPrefixes(count: number, seed = 1): Uint32Array {
  const seen = new Set<number>();
  let x = seed >>> 0 || 1;
  while (seen.size < count) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    seen.add(x >>> 0);
  }
  return Uint32Array.from(seen).sort();
}

const LIST_SIZE = 2_000_000;

export interface StoreBench {
  cases: BenchCase[];
  facts: BenchFact[];
  cleanup: () => Promise<void>;
}

export async function storeBenchmarks(): Promise<StoreBench> {
  const prefixes = randomSortedPrefixes(LIST_SIZE);
  const set = PrefixSet.fromSorted(prefixes);
  // Half the probes are members, half random values (almost all misses).
  const probes = new Uint32Array(1000);
  const misses = randomSortedPrefixes(500, 99);
  for (let i = 0; i < 500; i++) {
    probes[2 * i] = prefixes[(i * 3989) % prefixes.length]!;
    probes[2 * i + 1] = misses[i]!;
  }
  let found = 0;

  const dir = await mkdtemp(join(tmpdir(), 'sbkit-bench-'));
  const db = await LocalDatabase.open(dir);
  await db.save(HashList.fromSorted('se-4b', Buffer.from('bench'), { width: 4, values: prefixes }), Date.now());

  return {
    cases: [
      {
        name: '4-byte prefix lookup in a 2 M-entry set',
        unit: 'lookups',
        unitsPerOp: probes.length,
        budgetNsPerUnit: 60,
        fn: () => {
          for (let i = 0; i < probes.length; i++) if (set.has(probes[i]!)) found++;
        },
      },
      {
        name: 'cold start: open a database holding one 2 M-prefix list (read, checksum, index)',
        unit: 'databases',
        unitsPerOp: 1,
        budgetMsPerOp: 200,
        fn: async () => {
          const opened = await LocalDatabase.open(dir);
          if (opened.get('se-4b')?.list.size !== LIST_SIZE) throw new Error('the benchmark database did not load');
        },
      },
    ],
    facts: [
      { name: 'resident memory per stored 4-byte prefix (2 M-entry set)', value: set.byteLength / set.size, unit: 'B', budgetAtMost: 4.5 },
    ],
    cleanup: async () => {
      if (found < 0) throw new Error('unreachable');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
