// What the chaos run's feed publishes, generation by generation, and what a client must then say.
//
// Generation g of the list se-4b holds:
//   - stable URLs, listed in every generation;
//   - a sliding window of marker URLs gen-k, k from g − WINDOW + 1 to g: each generation adds one and
//     removes one, so that diffs carry removals as well as additions;
//   - BULK filler expressions sliding by BULK_STEP per generation, so that every update is a real diff.
// Clean URLs are never listed. From a client's checksum the run knows which generation it holds, and
// from the instances' /status.json which generation each serves (both derived the way the server
// derives them: Snapshot ids and SB-9 checksums of the sorted served prefixes).

import type { ListDefinition } from '../../src/server/lists/list-definition.ts';
import { sortedFullHashes } from '../../src/server/lists/full-hashes.ts';
import { Snapshot } from '../../src/server/lists/snapshot.ts';

/** Marker URLs a generation lists: the newest WINDOW. */
export const WINDOW = 4;
const BULK = 3000;
const BULK_STEP = 300;
const STABLE = 3;
const CLEAN = 3;

const SE: ListDefinition = {
  name: 'se-4b',
  hashLength: 4,
  threatTypes: ['SOCIAL_ENGINEERING'],
  likelySafeTypes: [],
  description: 'chaos run: rotating',
};

export const stableUrls = Array.from({ length: STABLE }, (_, i) => `http://stable-${i}.chaos.example/login`);
export const cleanUrls = Array.from({ length: CLEAN }, (_, i) => `http://clean-${i}.chaos.example/`);
export const malwareUrls = ['http://malware-0.chaos.example/dropper.exe'];
/** The expressions mw-4b and gc-32b hold, in every generation. */
export const malwareEntries = ['malware-0.chaos.example/dropper.exe'];
export const likelySafeEntries = ['likely-safe.chaos.example/'];
export const markerUrl = (k: number) => `http://gen-${k}.chaos.example/`;

/** Whether generation g lists the marker of generation k. */
export function listsMarker(g: number, k: number): boolean {
  return k >= 0 && k <= g && k > g - WINDOW;
}

/** The feed file of generation g, in the `expressions` format. */
export function feedText(g: number): string {
  const lines = [`# chaos run, generation ${g}`, ...stableUrls.map((u) => `${new URL(u).host}/login`)];
  for (let k = Math.max(0, g - WINDOW + 1); k <= g; k++) lines.push(`gen-${k}.chaos.example/`);
  for (let j = g * BULK_STEP; j < g * BULK_STEP + BULK; j++) lines.push(`fill-${j}.chaos.example/p`);
  return `${lines.join('\n')}\n`;
}

function expressionsOf(g: number): string[] {
  return feedText(g)
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Generation numbers by what identifies them: the snapshot id servers show, the checksum clients hold. */
export class Generations {
  private readonly byId = new Map<string, number>();
  private readonly byChecksum = new Map<string, number>();

  /** Learns generations up to and including g. */
  learn(g: number): void {
    for (let k = this.byId.size; k <= g; k++) {
      const snapshot = Snapshot.of(SE, sortedFullHashes(expressionsOf(k)), 0);
      this.byId.set(snapshot.id, k);
      this.byChecksum.set(Buffer.from(snapshot.checksum).toString('hex'), k);
    }
  }

  ofSnapshotId(id: string): number | undefined {
    return this.byId.get(id);
  }

  ofChecksum(checksum: string): number | undefined {
    return this.byChecksum.get(checksum);
  }
}

export const ROTATING_LIST = SE.name;
