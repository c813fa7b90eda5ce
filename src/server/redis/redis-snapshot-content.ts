// A snapshot's content as the shared snapshot store (redis-snapshot-store.ts) keeps it in Redis, and read
// back: full hashes for a list of our own, served hashes for a mirror's, and, written back after Redis
// lost a list, the served hashes alone of an older snapshot whose full hashes are gone. No I/O: what is
// read from Redis is checked here before any history serves it.

import { firstUnordered, hashBytes, hashesFromBytes, type SortedHashes } from '../../store/hash-list.ts';
import type { HashWidth } from '../../lists/list-name.ts';
import { ListError } from '../lists/list-error.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { KeptSnapshot } from '../lists/list-history.ts';
import { Snapshot } from '../lists/snapshot.ts';

/** How a snapshot's content is stored: full hashes of a list of our own, or the served hashes of a mirror. */
export type Content = { field: 'fullHashes'; bytes: Uint8Array; ordered: false } | { field: 'served'; bytes: Uint8Array; ordered: true };

/** A snapshot offered to the write-back script. */
export interface Offer {
  id: string;
  serial: number;
  field: 'fullHashes' | 'served' | 'kept';
  createdAt: number;
  bytes: () => Uint8Array;
}

/** The fields of a snapshot's hash in Redis that {@link snapshotOfFields} reads, in its order. */
export const SNAPSHOT_FIELDS = ['fullHashes', 'served', 'createdAt', 'kept', 'width'] as const;

/** Why a snapshot read from Redis cannot be served. */
export interface Unusable {
  unusable: string;
}

/** How a snapshot's content is published: full hashes, or a mirror's served hashes with its stamp. */
export function contentOf(snapshot: Snapshot): Content {
  return snapshot.kind === 'served'
    ? { field: 'served', bytes: hashBytes(snapshot.served()), ordered: true }
    : { field: 'fullHashes', bytes: snapshot.fullHashBytes(), ordered: false };
}

/**
 * A kept snapshot as written back: the current one with its content; an older one of a mirrored list
 * with its served hashes (its id is derived from them); an older one of a list of full hashes with the
 * served hashes alone (its full hashes are not kept), enough for diffs from it.
 */
export function offerOf(kept: KeptSnapshot, current: Snapshot, serial: number): Offer {
  if (kept === current) {
    const content = contentOf(current);
    return { id: kept.id, serial, field: content.field, createdAt: current.createdAt, bytes: () => content.bytes };
  }
  return { id: kept.id, serial, field: current.kind === 'served' ? 'served' : 'kept', createdAt: 0, bytes: () => hashBytes(kept.served()) };
}

/**
 * The snapshot `id` of a list from the fields Redis holds of it ({@link SNAPSHOT_FIELDS}): a Snapshot,
 * or only its served list when that is all Redis has (written back after a loss); Unusable when it is
 * gone, unreadable or not what its id says.
 */
export function snapshotOfFields(definition: ListDefinition, id: string, fields: readonly (Buffer | null)[]): KeptSnapshot | Unusable {
  const [fullHashes, served, createdAtText, kept, width] = fields;
  if (fullHashes == null && served == null && kept != null) return keptSnapshot(definition, id, kept, width ?? null);
  // Gone: dropped from the history between our two reads (the next look sees the newer history), or
  // lost by Redis (evicted under memory pressure: give this database a noeviction policy).
  if (fullHashes == null && served == null) return { unusable: 'its content is not in Redis (evicted?)' };
  const createdAt = Number(createdAtText?.toString('latin1') ?? 0);
  let snapshot: Snapshot;
  try {
    // Copies: a reply is a Buffer view at any offset, and sorting reads it as whole 32-bit words.
    snapshot =
      fullHashes != null
        ? Snapshot.of(definition, new Uint8Array(fullHashes), createdAt)
        : Snapshot.ofServed(definition, servedHashes(definition.hashLength, served!), createdAt);
  } catch (error) {
    if (error instanceof ListError || error instanceof RangeError) return { unusable: error.message };
    throw error;
  }
  // Another id for the same content: an instance configured with another hash length for this list.
  if (snapshot.id !== id) return { unusable: `its content is snapshot ${snapshot.id} here; do all instances configure the list alike?` };
  return snapshot;
}

/** An older snapshot written back as its served list alone: its id cannot be checked, its width and order can. */
function keptSnapshot(definition: ListDefinition, id: string, bytes: Buffer, width: Buffer | null): KeptSnapshot | Unusable {
  const written = Number(width?.toString('latin1'));
  if (written !== definition.hashLength) {
    return { unusable: `it was written back with ${written}-byte hashes; do all instances configure the list alike?` };
  }
  let served: SortedHashes;
  try {
    served = servedHashes(definition.hashLength, bytes);
  } catch (error) {
    return { unusable: (error as RangeError).message };
  }
  if (firstUnordered(served) >= 0) return { unusable: 'its hashes are not in ascending order' };
  return { id, served: () => served };
}

/** Served hashes of a list from their stored bytes; RangeError when they are no whole number of hashes. */
function servedHashes(width: HashWidth, bytes: Buffer): SortedHashes {
  if (bytes.length % width !== 0) throw new RangeError(`${bytes.length} bytes are not a whole number of ${width}-byte hashes`);
  return hashesFromBytes(width, bytes);
}
