/** No slot: the end of the order of use. */
const NONE = -1;

/**
 * A map that keeps at most `maxEntries` entries and, given a weight, at most `bytes.max` bytes of them,
 * forgetting the least recently used first: what clients or servers can make sbkit remember stays
 * bounded whatever they send (docs/architecture.md, reliability rules). Every memo, cache and per-client
 * table of the client and the server is one of these.
 *
 * A Map finds each key's slot; the slots' keys and values sit in two arrays, and two more chain the
 * slots in order of use. A hit moves its slot to the newest end of the chain (a Map lookup and a few array
 * writes), an eviction takes the slot at the oldest end, and a forgotten slot is taken again by the next
 * newcomer, so that nothing is allocated once the map is full. (Keeping the order in the Map itself, by
 * taking an entry out and putting it back, leaves a hole at the front for every entry forgotten, which
 * every search for the oldest skips one by one until V8 rebuilds the table: up to the whole map per
 * eviction.) An entry's weight is asked of `bytes.of` again when it is forgotten rather than stored.
 *
 * Memory per entry, beside the keys and values themselves, on 64-bit Node: the Map's slot of three words
 * and half a word of bucket (28 B; the slot number is a small integer held in it), and four array
 * elements of 8 B: 60 B. The Map's slots come in powers of two and those of forgotten keys stay taken
 * until V8 rebuilds the table, and an array grows by half again when full, so that more is taken while
 * the map grows or churns: measured at 100,000 entries, 73 B an entry once filled and 108 B after
 * 200,000 newcomers (a Map alone, ordered by taking entries out and back: 37 B and 71 B).
 */
export class BoundedMap<K, V> {
  /** Each key's slot: its index in the arrays below. */
  private readonly slots = new Map<K, number>();
  private readonly keys: (K | undefined)[] = [];
  private readonly values: (V | undefined)[] = [];
  /** Per slot, the slot used next after it and the one used last before it; NONE past either end. */
  private readonly newer: number[] = [];
  private readonly older: number[] = [];
  private newest = NONE;
  private oldestSlot = NONE;
  /** Slots of forgotten entries, taken again before the arrays grow. */
  private readonly free: number[] = [];
  private weight = 0;

  /**
   * `maxEntries`: entries kept at most (at least 1). `bytes`: what the entries may weigh together, and
   * what one weighs; an entry heavier than all of it is never kept. `undefined` is no value: a map of
   * values that may be undefined cannot tell them from absence.
   */
  constructor(
    readonly maxEntries: number,
    private readonly bytes?: ByteBound<K, V>,
  ) {
    if (!(maxEntries >= 1)) throw new RangeError(`a BoundedMap keeps at least 1 entry, not ${maxEntries}`);
    if (bytes !== undefined && !(bytes.max >= 0)) throw new RangeError(`a BoundedMap's bytes are at least 0, not ${bytes.max}`);
  }

  /** Entries kept now. */
  get size(): number {
    return this.slots.size;
  }

  /** What the entries kept now weigh together, as `bytes.of` weighs them; 0 without a byte bound. */
  get byteLength(): number {
    return this.weight;
  }

  /** The value kept under `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.link(slot);
    }
    return this.values[slot];
  }

  /** The value kept under `key`, leaving the order of use as it is. */
  peek(key: K): V | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.values[slot];
  }

  /** The value kept under `key` (now the most recently used), or `compute(key)`, kept. */
  getOrCompute(key: K, compute: (key: K) => V): V {
    const kept = this.get(key);
    return kept !== undefined ? kept : this.add(key, compute(key));
  }

  /**
   * Keeps `value` under `key` as the most recently used, replacing what was there, and forgets the least
   * recently used entries beyond the bounds. A value heavier than `bytes.max` is not kept, and what was
   * under its key is forgotten all the same. Returns `value`.
   */
  keep(key: K, value: V): V {
    this.forget(key);
    return this.add(key, value);
  }

  /** {@link keep} of a key not kept. */
  private add(key: K, value: V): V {
    const maxBytes = this.bytes?.max ?? Infinity;
    if (this.bytes !== undefined) {
      const weight = this.bytes.of(key, value);
      // Written so that a NaN weight is not kept either: it would stop the bound from ever being reached.
      if (!(weight <= maxBytes)) return value;
      this.weight += weight;
    }
    const slot = this.free.pop() ?? this.keys.length;
    this.keys[slot] = key;
    this.values[slot] = value;
    this.slots.set(key, slot);
    this.link(slot);
    // The newcomer itself is never reached: alone, it is within both bounds.
    while (this.slots.size > this.maxEntries || this.weight > maxBytes) this.forgetSlot(this.oldestSlot);
    return value;
  }

  /** Forgets `key`; true when something was kept under it. */
  forget(key: K): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.forgetSlot(slot);
    return true;
  }

  /** The least recently used entry, leaving the order of use as it is; undefined when the map is empty. */
  oldest(): [K, V] | undefined {
    const slot = this.oldestSlot;
    return slot === NONE ? undefined : [this.keys[slot]!, this.values[slot]!];
  }

  /** Forgets everything. */
  clear(): void {
    this.slots.clear();
    this.keys.length = 0;
    this.values.length = 0;
    this.newer.length = 0;
    this.older.length = 0;
    this.free.length = 0;
    this.newest = NONE;
    this.oldestSlot = NONE;
    this.weight = 0;
  }

  private forgetSlot(slot: number): void {
    const key = this.keys[slot]!;
    if (this.bytes !== undefined) this.weight -= this.bytes.of(key, this.values[slot]!);
    this.slots.delete(key);
    this.unlink(slot);
    // Cleared, so that a forgotten key or value is not held until its slot is taken again.
    this.keys[slot] = undefined;
    this.values[slot] = undefined;
    this.free.push(slot);
  }

  /** Makes `slot` the newest. */
  private link(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = NONE;
    if (this.newest === NONE) this.oldestSlot = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }

  /** Takes `slot` out of the order of use. */
  private unlink(slot: number): void {
    const newer = this.newer[slot]!;
    const older = this.older[slot]!;
    if (newer === NONE) this.newest = older;
    else this.older[newer] = older;
    if (older === NONE) this.oldestSlot = newer;
    else this.newer[older] = newer;
  }
}

/** What the entries of a {@link BoundedMap} may weigh together, and what one weighs. */
export interface ByteBound<K, V> {
  /** Bytes kept at most. */
  max: number;
  /**
   * What an entry weighs, in bytes. Asked when the entry is kept and again when it is forgotten, so it
   * must answer alike both times: nothing may change a value while it is kept.
   */
  of: (key: K, value: V) => number;
}
