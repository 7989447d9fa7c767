/**
 * A cache bounded by the total weight of its values (bytes, or a count with weight 1), evicting the least
 * recently used entries. Reads only set a flag (no Map reordering on the hot path); eviction gives flagged
 * entries a second chance (the CLOCK approximation of LRU).
 */
interface Slot<V> {
  value: V;
  weight: number;
  used: boolean;
}

export class WeightedLru<K, V> {
  private readonly entries = new Map<K, Slot<V>>();
  private total = 0;

  constructor(private readonly maxWeight: number) {}

  get(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (!slot) return undefined;
    slot.used = true;
    return slot.value;
  }

  set(key: K, value: V, weight = 1): void {
    this.delete(key);
    if (weight > this.maxWeight) return;
    this.entries.set(key, { value, weight, used: false });
    this.total += weight;
    while (this.total > this.maxWeight) {
      const [oldest, slot] = this.entries.entries().next().value as [K, Slot<V>];
      this.entries.delete(oldest);
      if (oldest === key) {
        // The entry being stored came round after every older one was spared: those go first, not the newest.
        this.entries.set(oldest, slot);
      } else if (slot.used) {
        // Read since it was stored or last spared: move it to the young end once.
        slot.used = false;
        this.entries.set(oldest, slot);
      } else {
        this.total -= slot.weight;
      }
    }
  }

  /** Adds `by` to the weight of the entry under `key` (a value that grew), evicting others as `set` does. */
  grow(key: K, by: number): void {
    const slot = this.entries.get(key);
    if (!slot) return;
    this.set(key, slot.value, slot.weight + by);
  }

  delete(key: K): void {
    const slot = this.entries.get(key);
    if (!slot) return;
    this.entries.delete(key);
    this.total -= slot.weight;
  }

  /** The total weight of the entries kept. */
  get weight(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }
}
