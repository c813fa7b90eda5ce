// The full hashes (SB-7) of a feed's expressions, gathered as the feed is parsed: each expression is
// hashed at once and only its 32 bytes are kept, never the expression itself, so that what a feed costs
// per entry is bounded: at most 64 bytes (32 for the hash, up to as much again of room to grow into).
// The hashes go to 256 buckets by their first byte; each bucket is sorted on its own, a turn at a time
// (time/event-loop-turns.ts), and the buckets in their order are the whole list in order.

import { concatenated } from '../../../codec/concatenated.ts';
import { expressionHashString } from '../../../url/hash.ts';
import { FULL_HASH_BYTES, sortFullHashes } from '../../lists/full-hashes.ts';
import type { EventLoopTurns } from '../../../time/event-loop-turns.ts';

const BUCKETS = 256;
/** Room a bucket starts with, in hashes; it doubles when full. */
const FIRST_ROOM = 16;

/** The full hashes of expressions, in any order and with repeats, until `sorted()`. */
export class HashBuckets {
  private readonly buckets: (Buffer | undefined)[] = [];
  private readonly counts = new Uint32Array(BUCKETS);

  /** Keeps the full hash of `expression` (a canonical expression, SB-6). */
  add(expression: string): void {
    const hash = expressionHashString(expression);
    const index = hash.charCodeAt(0);
    const count = this.counts[index]!;
    let bucket = this.buckets[index];
    if (bucket === undefined || (count + 1) * FULL_HASH_BYTES > bucket.length) {
      const grown = Buffer.allocUnsafe(Math.max(FIRST_ROOM, 2 * count) * FULL_HASH_BYTES);
      bucket?.copy(grown, 0, 0, count * FULL_HASH_BYTES);
      bucket = this.buckets[index] = grown;
    }
    // A hash string's characters are its bytes (url/hash.ts): latin1 writes them as they are.
    bucket.write(hash, count * FULL_HASH_BYTES, FULL_HASH_BYTES, 'latin1');
    this.counts[index] = count + 1;
  }

  /**
   * The hashes sorted and without repeats, 32 bytes each, concatenated; a bucket is let go once sorted.
   * Gives the event loop a turn between buckets.
   */
  async sorted(turns: EventLoopTurns): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for (let index = 0; index < BUCKETS; index++) {
      const bucket = this.buckets[index];
      if (bucket === undefined) continue;
      const part = sortFullHashes(bucket.subarray(0, this.counts[index]! * FULL_HASH_BYTES)).bytes;
      parts.push(part);
      this.buckets[index] = undefined;
      await turns.pause();
    }
    return concatenated(Uint8Array, parts);
  }
}
