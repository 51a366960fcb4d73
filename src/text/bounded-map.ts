/**
 * A Map that empties itself when full: for caches of what the terminal shows, where the next
 * frames refill what is still on screen at once, and an LRU's bookkeeping would cost more than
 * the rare refill.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
