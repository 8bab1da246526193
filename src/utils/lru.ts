/**
 * A map of at most `limit` values, the least recently used let go first: a value is made the first time its key
 * is asked for and kept for the next time.
 */
export class Lru<K, V> {
  private readonly values = new Map<K, V>();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The value kept for `key`, or the one `make` makes now (then kept, letting go of the least recently used). */
  get(key: K, make: (key: K) => V): V {
    const kept = this.values.get(key);
    if (kept !== undefined) {
      // Re-inserted: a Map keeps insertion order, so the first key is the least recently used.
      this.values.delete(key);
      this.values.set(key, kept);
      return kept;
    }
    const made = make(key);
    this.set(key, made);
    return made;
  }

  /** The value kept for `key`, if any, leaving the order as it is. */
  peek(key: K): V | undefined {
    return this.values.get(key);
  }

  /** Keeps `value` for `key`, in place of any value kept for it, as the most recently used. */
  set(key: K, value: V): void {
    this.values.delete(key);
    this.values.set(key, value);
    if (this.values.size > this.limit) this.values.delete(this.values.keys().next().value!);
  }

  /** Lets go of the value kept for `key`, if any. */
  delete(key: K): void {
    this.values.delete(key);
  }

  /** Lets go of every value. */
  clear(): void {
    this.values.clear();
  }

  /** Values kept. */
  get size(): number {
    return this.values.size;
  }
}
