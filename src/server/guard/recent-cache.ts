/**
 * A memo of at most `capacity` entries for the per-request paths of load control, where an exact LRU's
 * reordering on every hit costs more than the decision itself. Entries live in two generations: a hit
 * in the recent one is a plain lookup; a hit in the older one moves the entry up; when the recent
 * generation is full, it becomes the older one and the older one is forgotten. So what is forgotten is
 * what was not used during the last `capacity / 2` to `capacity` new entries.
 */
export class RecentCache<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly generation: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError(`a RecentCache holds at least 2 entries, not ${capacity}`);
    this.generation = Math.floor(capacity / 2);
  }

  /** The cached value of `key`, computed from it and remembered on a miss. */
  getOrCompute(key: K, compute: (key: K) => V): V {
    const recent = this.recent.get(key);
    if (recent !== undefined) return recent;
    let value = this.older.get(key);
    if (value === undefined) value = compute(key);
    else this.older.delete(key);
    this.recent.set(key, value);
    if (this.recent.size >= this.generation) {
      this.older = this.recent;
      this.recent = new Map();
    }
    return value;
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }
}
