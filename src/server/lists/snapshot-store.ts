import type { SortedHashes } from '../../store/hash-list.ts';
import type { ListHistory } from './list-history.ts';
import type { Snapshot } from './snapshot.ts';

/**
 * Where the published snapshots of lists live (SB-9), behind the histories that answer requests.
 * Requests are answered synchronously from each ListHistory's memory; a store decides how snapshots get
 * there: published by this process only (the default, `memorySnapshotStore`), or shared by several
 * server instances (redis-snapshot-store.ts), so that every instance serves the same versions and
 * computes the same diffs (docs/architecture.md "Scale").
 */
export interface SnapshotStore {
  /**
   * Keeps `histories` in step with publications made elsewhere, starting now: resolves once they serve
   * what is already published, to the names of the lists that were (published before, by any instance).
   * Rejects with SnapshotStoreError when the store cannot be read.
   */
  follow(histories: readonly ListHistory[]): Promise<string[]>;
  /**
   * Publishes `fullHashes` (concatenated 32-byte hashes, any order, duplicates allowed) as the newest
   * snapshot of `history`'s list; resolves to the current snapshot once `history` serves it. Rejects
   * with SnapshotStoreError when the store cannot take it, `history` then serving what it did before;
   * throws ListError ('ragged-full-hashes') for input that is no list of hashes.
   */
  publish(history: ListHistory, fullHashes: Uint8Array): Promise<Snapshot>;
  /**
   * Publishes a list known only as served hashes (a proxy's mirror of its upstream, SB-11), received
   * from the upstream at `receivedAt` (ms since the epoch). In a store that instances share, a
   * publication received earlier than the current snapshot does not displace it: an instance restarting
   * with an old copy cannot take every instance back to older data. Once `history` serves that copy,
   * its `receivedAt` is `receivedAt` or later (the same content sent again is the same snapshot, received
   * again). Resolves to the current snapshot; rejects like `publish`.
   */
  publishServed(history: ListHistory, served: SortedHashes, receivedAt: number): Promise<Snapshot>;
}

/** The embedded default: each process publishes its own snapshots, kept in its memory only. */
export const memorySnapshotStore: SnapshotStore = {
  follow: async () => [],
  // S5: a list of a million hashes is made into a snapshot in turns, while requests are answered.
  publish: (history, fullHashes) => history.publishInTurns(fullHashes),
  // One process: its mirror only moves forward.
  publishServed: async (history, served, receivedAt) => history.publishServed(served, receivedAt),
};
