import type { BenchCase } from './case.ts';
import { diffLists, partlyApplied } from '../src/server/lists/list-diff.ts';
import { ListHistory } from '../src/server/lists/list-history.ts';
import type { ListDefinition } from '../src/server/lists/list-definition.ts';
import { Snapshot } from '../src/server/lists/snapshot.ts';
import { checksumOf } from '../src/store/hash-list.ts';
import { nodeSha256 } from '../src/url/hash.ts';
import { sized } from './smoke.ts';

const LIST_SIZE = sized(2_000_000);
/** 1% of the list changes between the two snapshots: half removals, half additions. */
const CHANGED = LIST_SIZE / 200;
const SE: ListDefinition = { name: 'se-4b', hashLength: 4, threatTypes: ['SOCIAL_ENGINEERING'], likelySafeTypes: [], description: 'bench' };

/** `count` pseudo-random 32-byte hashes, concatenated in no order, the same on every run (xorshift32). */
function randomFullHashes(count: number, seed: number): Uint8Array {
  const words = new Uint32Array(count * 8);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer);
}

/**
 * Server list work (SB-9) on a 2 M-entry 4-byte list: publishing a snapshot (sort, dedupe, content id,
 * prefixes), the diff between two snapshots 1% apart, the state and checksum of an update cut short by
 * `max_update_entries`, and the full-hash lookup behind `hashes:search`. docs/architecture.md sets no budget here.
 */
export function diffBenchmarks(): BenchCase[] {
  const before = randomFullHashes(LIST_SIZE, 1);
  const after = before.slice();
  // Replace every 200th hash of `before` by a new one: CHANGED removals and CHANGED additions.
  const fresh = randomFullHashes(CHANGED, 2);
  for (let k = 0; k < CHANGED; k++) after.set(fresh.subarray(k * 32, (k + 1) * 32), k * 200 * 32);
  const from = Snapshot.of(SE, before, 0).served();
  const next = Snapshot.of(SE, after, 0);
  const to = next.served();
  const diff = diffLists(from, to);
  if (to.width !== 4) throw new Error('the benchmark list serves 4-byte prefixes');
  // Half the probes are listed prefixes, half arbitrary values (almost all misses).
  const probes = Uint32Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? to.values[i * 1999]! : Math.imul(i, 0x9e3779b1) >>> 0));
  let found = 0;

  return [
    {
      name: `publish ${LIST_SIZE / 1e6} M full hashes as a 4-byte list: sort, dedupe, content id, prefixes`,
      unit: 'publishes',
      unitsPerOp: 1,
      fn: () => {
        new ListHistory(SE, { keep: 2 }).publish(before);
      },
    },
    {
      name: `diff of two ${LIST_SIZE / 1e6} M-entry 4-byte snapshots 1% apart (${diff.removals.length} removals, ${diff.size - diff.removals.length} additions)`,
      unit: 'diffs',
      unitsPerOp: 1,
      fn: () => {
        diffLists(from, to);
      },
    },
    {
      name: `state and checksum of an update cut short halfway through that diff (max_update_entries)`,
      unit: 'updates',
      unitsPerOp: 1,
      fn: () => {
        checksumOf(partlyApplied(from, diff, diff.size >>> 1), nodeSha256);
      },
    },
    {
      name: `full hashes under a 4-byte prefix in a ${LIST_SIZE / 1e6} M-hash snapshot (hashes:search)`,
      unit: 'lookups',
      unitsPerOp: probes.length,
      fn: () => {
        for (let i = 0; i < probes.length; i++) found += next.fullHashesWithPrefix(probes[i]!).length;
        if (found < 0) throw new Error('unreachable: keeps the lookups from being optimized away');
      },
    },
  ];
}
