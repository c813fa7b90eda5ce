import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDatabase } from '../src/store/database.ts';
import { checksumOf, HashList } from '../src/store/hash-list.ts';
import { nodeSha256 } from '../src/url/hash.ts';
import { PrefixSet } from '../src/store/prefix-set.ts';
import { decodeRice32, encodeRice32 } from '../src/codec/index.ts';
import type { BenchCase, BenchFact } from './case.ts';
import { randomSortedPrefixes } from './data.ts';
import { sized } from './smoke.ts';

const LIST_SIZE = sized(2_000_000);

export interface StoreBench {
  cases: BenchCase[];
  facts: BenchFact[];
  cleanup: () => Promise<void>;
}

export async function storeBenchmarks(): Promise<StoreBench> {
  const prefixes = randomSortedPrefixes(LIST_SIZE, 1);
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
  const hashes = { width: 4 as const, values: prefixes };
  const checksum = checksumOf(hashes, nodeSha256);
  await db.save(HashList.fromSorted('se-4b', Buffer.from('bench'), hashes, checksum), Date.now());
  // Updates go to a database of their own, so the cold start below loads exactly one list.
  const updateDb = await LocalDatabase.open(join(dir, 'updates'));
  const encoded = encodeRice32(prefixes)!;

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
        name: 'full update of a 2 M-prefix list: Rice decode, apply, checksum, persist (fsync + rename)',
        unit: 'updates',
        unitsPerOp: 1,
        budgetMsPerOp: 1000,
        fn: async () => {
          const additions = { width: 4 as const, values: decodeRice32(encoded) };
          const list = HashList.empty('mw-4b', 4).applyUpdate(
            {
              partial: false,
              version: Buffer.from('v1'),
              removals: new Uint32Array(0),
              additions,
              checksum,
            },
            nodeSha256,
          );
          await updateDb.save(list, Date.now());
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
      { name: 'resident memory per stored 4-byte prefix (2 M-entry set)', value: set.byteLength / set.size, unit: 'B', budgetAtMost: 2.5 },
    ],
    cleanup: async () => {
      if (found < 0) throw new Error('unreachable');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
