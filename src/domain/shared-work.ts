/**
 * Work per key in this process, two ways:
 * - `run`: concurrent callers share the piece running (an indexing that several reads would each start): the first
 *   caller starts it, the others wait for the same promise, and the key is free again once it settles;
 * - `inTurn`: each caller's own piece, one at a time per key (a sync that must see what changed since the one running
 *   began: sharing it would miss that).
 * Owned by the container, so two containers in one process (tests, `quire serve` beside a worker) never wait on each
 * other's work.
 */
export class SharedWork {
  private readonly running = new Map<string, Promise<unknown>>();
  private readonly turns = new Map<string, Promise<void>>();

  inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.turns.get(key) ?? Promise.resolve();
    const mine = before.then(work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(key, settled);
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key);
    });
    return mine;
  }

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const existing = this.running.get(key) as Promise<T> | undefined;
    if (existing) return existing;
    const started = work().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}
