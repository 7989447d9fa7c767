/**
 * A process-local cache for what every request reads (token -> user, the caller's access to an organization, space
 * rows). Entries are dropped by any write this process makes to the database (the store reports writes), and expire
 * after `ttlMs` so that writes made by another process (several `quire serve` sharing one PostgreSQL) are seen within
 * that time. Several processes share one database, so process-local state needs a reason: this one is only a cache, its
 * staleness is bounded by the TTL, and requests that change data read through it only for checks that the database
 * re-checks where it matters (unique keys, foreign keys).
 */
import { WeightedLru } from './lru.js';

interface Entry {
  value: Promise<unknown>;
  generation: number;
  expires: number;
  /** The value, once the promise has fulfilled (what `peek` answers). */
  settled?: { value: unknown };
}

export class ReadCache {
  private generation = 0;
  private readonly entries: WeightedLru<string, Entry>;

  constructor(
    private readonly ttlMs: number,
    maxEntries = 20_000,
  ) {
    this.entries = new WeightedLru(maxEntries);
  }

  /** Forgets everything cached so far (called on every local write). */
  invalidate(): void {
    this.generation += 1;
  }

  /** The cached value for `key`, or what `load` gives (shared by concurrent callers; failures are not kept). */
  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.generation === this.generation && hit.expires > now) return hit.value as Promise<T>;
    const value = load();
    const entry: Entry = { value, generation: this.generation, expires: now + this.ttlMs };
    this.entries.set(key, entry);
    value.then(
      (loaded) => {
        entry.settled = { value: loaded };
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }

  /**
   * What `get` would answer for `key` without loading or waiting: the value of a current entry whose load has
   * finished, else undefined. For the paths that must not await (a kept answer sent from a hook).
   */
  peek<T>(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit?.settled || hit.generation !== this.generation || hit.expires <= Date.now()) return undefined;
    return hit.settled.value as T;
  }
}
