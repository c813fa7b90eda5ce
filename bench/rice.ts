import { createHash } from 'node:crypto';
import type { BenchCase } from './case.ts';
import { randomSortedPrefixes } from './data.ts';
import { sized } from './smoke.ts';
import { decodeRice256, decodeRice32, decodeV4RiceHashes, encodeRice256, encodeRice32, encodeV4RiceHashes } from '../src/codec/index.ts';

/** Sorted full hashes of `count` distinct expressions, concatenated. */
function fullHashes(count: number): Uint8Array {
  const hashes = Array.from({ length: count }, (_, i) => createHash('sha256').update(`host${i}.example/`).digest());
  return new Uint8Array(Buffer.concat(hashes.sort((a, b) => Buffer.compare(a, b))));
}

/**
 * Rice coding (SB-10). The budgeted case is the v5 decode of a realistic list: a million random
 * 4-byte prefixes, about the size of a large list's full update, coded with the parameter our encoder
 * picks (k = 12 for this density).
 */
export function riceBenchmarks(): BenchCase[] {
  const prefixes = randomSortedPrefixes(sized(1_000_000));
  const v5 = encodeRice32(prefixes)!;
  const v4 = encodeV4RiceHashes(prefixes)!;
  const hashCount = sized(10_000);
  const hashes = fullHashes(hashCount);
  const v5Full = encodeRice256(hashes)!;
  return [
    {
      name: `Rice v5 32-bit decode, ${prefixes.length} prefixes (k = ${v5.riceParameter})`,
      unit: 'entries',
      unitsPerOp: prefixes.length,
      fn: () => {
        decodeRice32(v5);
      },
      budgetPerSecond: 50_000_000,
    },
    {
      name: `Rice v4 prefix decode with byte swap and sort, ${prefixes.length} prefixes (k = ${v4.riceParameter})`,
      unit: 'entries',
      unitsPerOp: prefixes.length,
      fn: () => {
        decodeV4RiceHashes(v4);
      },
    },
    {
      name: `Rice v5 32-bit encode, ${prefixes.length} prefixes`,
      unit: 'entries',
      unitsPerOp: prefixes.length,
      fn: () => {
        encodeRice32(prefixes);
      },
    },
    {
      name: `Rice v5 256-bit decode, ${hashCount} full hashes (k = ${v5Full.riceParameter})`,
      unit: 'entries',
      unitsPerOp: hashCount,
      fn: () => {
        decodeRice256(v5Full);
      },
    },
  ];
}
