/**
 * A memo that keeps at most `capacity` entries, forgetting the least recently used first, so that what
 * clients can make the server remember stays bounded (docs/architecture.md, reliability rules).
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  /** The cached value of `key`, computed and remembered on a miss. */
  getOrCompute(key: K, compute: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) value = compute();
    // Map keeps insertion order: (re-)inserting marks the entry as the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return value;
  }
}
