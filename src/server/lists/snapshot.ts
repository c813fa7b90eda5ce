import { createHash } from 'node:crypto';
import { checksumOf, firstUnordered, hashBytes, sortedHashesInclude, type SortedHashes } from '../../store/hash-list.ts';
import { nodeSha256, prefix32 } from '../../url/hash.ts';
import { FULL_HASH_BYTES, servedPrefixes, sortFullHashes, sortFullHashesInTurns, type SortedFullHashes } from './full-hashes.ts';
import type { EventLoopTurns } from '../../time/event-loop-turns.ts';
import { ListError } from './list-error.ts';
import type { ListDefinition } from './list-definition.ts';

/** Bytes of a snapshot id: 128 bits of SHA-256, so that two different contents never share one. */
export const SNAPSHOT_ID_BYTES = 16;

/** The full hashes under a prefix no list holds. */
const NONE: readonly string[] = Object.freeze([]);

/**
 * One published state of a list (SB-9): its sorted, unique full hashes, and the list it serves at the
 * list's hash length. Immutable.
 *
 * The id is derived from the list's name, hash length and content, not drawn at random: every server
 * instance that publishes the same feed content names it alike (docs/architecture.md: instances compute the same
 * versions and diffs), and a content published again is recognized as the same state.
 */
export class Snapshot {
  private servedMemo: SortedHashes | undefined;
  private checksumMemo: Uint8Array | undefined;

  private constructor(
    readonly definition: ListDefinition,
    /** Opaque, 32 hex digits; the same for the same list and content. */
    readonly id: string,
    /** What its id was derived from: its full hashes, or only the hashes it serves (a mirrored list). */
    readonly kind: 'full' | 'served',
    /** When it was published, in milliseconds since the epoch. */
    readonly createdAt: number,
    private readonly full: SortedFullHashes,
  ) {}

  /**
   * A snapshot of `fullHashes`: concatenated 32-byte hashes in any order, duplicates allowed. Throws
   * ListError ('ragged-full-hashes') when the length is not a whole number of hashes.
   */
  static of(definition: ListDefinition, fullHashes: Uint8Array, createdAt: number): Snapshot {
    const full = sortFullHashes(ragged(definition, fullHashes));
    return new Snapshot(definition, snapshotId(definition, 'full', full.bytes), 'full', createdAt, full);
  }

  /**
   * Snapshot.of in slices of work with a turn of the event loop between them (S5): a list of a million
   * hashes takes ~100 ms to check and name, which requests must not wait for while a feed is published.
   * Resolves to the whole snapshot; nothing of it is served before. Throws ListError as `of` does.
   */
  static async inTurns(definition: ListDefinition, fullHashes: Uint8Array, createdAt: number, turns: EventLoopTurns): Promise<Snapshot> {
    const full = await sortFullHashesInTurns(ragged(definition, fullHashes), turns);
    const id = createHash('sha256').update(snapshotIdHeader(definition, 'full'));
    for (let start = 0; start < full.bytes.length; start += ID_SLICE_BYTES) {
      id.update(full.bytes.subarray(start, start + ID_SLICE_BYTES));
      await turns.pause();
    }
    const snapshot = new Snapshot(definition, id.digest().subarray(0, SNAPSHOT_ID_BYTES).toString('hex'), 'full', createdAt, full);
    // The served list too is made before the snapshot is published, in its own turn.
    snapshot.served();
    await turns.pause();
    return snapshot;
  }

  /**
   * A snapshot of a list known only as served hashes, not full hashes: what a caching proxy mirrors
   * from its upstream (SB-11). It serves those hashes as they are and knows no full hash, so searches
   * about it must go to the upstream. Throws ListError unless `served` is strictly ascending at the
   * list's hash length.
   */
  static ofServed(definition: ListDefinition, served: SortedHashes, createdAt: number): Snapshot {
    if (served.width !== definition.hashLength) {
      throw new ListError(
        'served-width-mismatch',
        definition.name,
        `the list serves ${definition.hashLength}-byte hashes, not ${served.width}-byte ones`,
      );
    }
    const unordered = firstUnordered(served);
    if (unordered >= 0)
      throw new ListError(
        'served-not-ascending',
        definition.name,
        `served hashes must be strictly ascending; the one at index ${unordered} is not`,
      );
    const snapshot = new Snapshot(definition, snapshotId(definition, 'served', hashBytes(served)), 'served', createdAt, EMPTY_FULL_HASHES);
    snapshot.servedMemo = served;
    return snapshot;
  }

  /** The full hashes, sorted and concatenated (none for a mirrored list). Shared, not copied: do not modify. */
  fullHashBytes(): Uint8Array {
    return this.full.bytes;
  }

  /** Full hashes the snapshot holds: none for a mirrored list, whose entries are `served()` alone. */
  get fullHashCount(): number {
    return this.full.prefixes.length;
  }

  /**
   * The list as clients receive it: the first `hashLength` bytes of every full hash, sorted, without
   * duplicates. Computed once. Shared, not copied: callers must not modify it.
   */
  served(): SortedHashes {
    this.servedMemo ??= servedPrefixes(this.full, this.definition.hashLength);
    return this.servedMemo;
  }

  /** SB-9: the SHA-256 of the served list, sorted and concatenated. */
  get checksum(): Uint8Array {
    this.checksumMemo ??= checksumOf(this.served(), nodeSha256);
    return this.checksumMemo;
  }

  /**
   * The full hashes (32-character latin1 byte strings, url/hash.ts) whose first 4 bytes are `prefix`, a
   * big-endian number: what `hashes:search` returns for a prefix. Binary search, then a short scan.
   */
  fullHashesWithPrefix(prefix: number): readonly string[] {
    const prefixes = this.full.prefixes;
    let i = this.lowerBound(prefix);
    // Most prefixes searched are in no list: nothing is allocated for them.
    if (i >= prefixes.length || prefixes[i] !== prefix) return NONE;
    const found: string[] = [];
    for (; i < prefixes.length && prefixes[i] === prefix; i++) {
      found.push(Buffer.from(this.full.bytes.buffer, this.full.bytes.byteOffset + i * FULL_HASH_BYTES, FULL_HASH_BYTES).toString('latin1'));
    }
    return found;
  }

  /** True when the list holds this full hash (a 32-character latin1 byte string); false for any other length. */
  hasFullHash(hash: string): boolean {
    if (hash.length !== FULL_HASH_BYTES) return false;
    const prefix = prefix32(hash);
    const { prefixes, bytes } = this.full;
    for (let i = this.lowerBound(prefix); i < prefixes.length && prefixes[i] === prefix; i++) {
      let b = 4;
      while (b < FULL_HASH_BYTES && bytes[i * FULL_HASH_BYTES + b] === hash.charCodeAt(b)) b++;
      if (b === FULL_HASH_BYTES) return true;
    }
    return false;
  }

  /**
   * True when a client of this list finds this full hash in it: the hash itself for a list of full
   * hashes, its first `hashLength` bytes for a mirrored list, which knows no more.
   */
  serves(fullHash: string): boolean {
    return this.fullHashCount > 0 ? this.hasFullHash(fullHash) : sortedHashesInclude(this.served(), fullHash);
  }

  /** The index of the first full hash whose prefix is not below `prefix`. */
  private lowerBound(prefix: number): number {
    const prefixes = this.full.prefixes;
    let lo = 0;
    let hi = prefixes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (prefixes[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const EMPTY_FULL_HASHES: SortedFullHashes = { bytes: new Uint8Array(0), prefixes: new Uint32Array(0) };
/** Bytes of a list hashed into its id between two pauses: about a millisecond's work. */
const ID_SLICE_BYTES = 1 << 20;

/** `fullHashes`, when they are a whole number of hashes; throws ListError ('ragged-full-hashes') otherwise. */
function ragged(definition: ListDefinition, fullHashes: Uint8Array): Uint8Array {
  if (fullHashes.length % FULL_HASH_BYTES === 0) return fullHashes;
  throw new ListError(
    'ragged-full-hashes',
    definition.name,
    `${fullHashes.length} bytes are not a whole number of ${FULL_HASH_BYTES}-byte SHA-256 hashes; pass the full hashes concatenated`,
  );
}

/** What a snapshot's id hashes before its content. */
function snapshotIdHeader(definition: ListDefinition, kind: 'full' | 'served'): string {
  // Full-hash snapshots keep the tag they always had, so their versions do not change.
  const tag = kind === 'full' ? 'sbkit snapshot' : 'sbkit served snapshot';
  return `${tag}\0${definition.name}\0${definition.hashLength}\0`;
}

/** 128 bits of the SHA-256 of name, hash length, kind and sorted content, as hex. */
function snapshotId(definition: ListDefinition, kind: 'full' | 'served', sortedContent: Uint8Array): string {
  return createHash('sha256')
    .update(snapshotIdHeader(definition, kind))
    .update(sortedContent)
    .digest()
    .subarray(0, SNAPSHOT_ID_BYTES)
    .toString('hex');
}
