/**
 * Work per key in this process, three ways:
 * - `run`: concurrent callers share the piece running (an indexing that several reads would each start): the first
 *   caller starts it, the others wait for the same promise, and the key is free again once it settles;
 * - `inTurn`: each caller's own piece, one at a time per key (a sync that must see what changed since the one running
 *   began: sharing it would miss that);
 * - `fresh`: concurrent callers share a piece that starts no earlier than their call (a fetch of a host that must see
 *   what the host had when the caller asked): a caller arriving while one runs waits for it, then shares the next one
 *   with every caller that arrived meanwhile. At most one running and one waiting per key, however many callers.
 * Owned by the container, so two containers in one process (tests, `quire serve` beside a worker) never wait on each
 * other's work.
 */
export class SharedWork {
  private readonly running = new Map<string, Promise<unknown>>();
  private readonly turns = new Map<string, Promise<void>>();
  private readonly freshRunning = new Map<string, Promise<unknown>>();
  private readonly freshWaiting = new Map<string, Promise<unknown>>();

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

  fresh<T>(key: string, work: () => Promise<T>): Promise<T> {
    const waiting = this.freshWaiting.get(key) as Promise<T> | undefined;
    if (waiting) return waiting;
    const start = (): Promise<T> => {
      // The waiting piece (if this is it) starts now: callers from here on wait for the next one.
      this.freshWaiting.delete(key);
      const started = Promise.resolve()
        .then(work)
        .finally(() => {
          if (this.freshRunning.get(key) === started) this.freshRunning.delete(key);
        });
      this.freshRunning.set(key, started);
      return started;
    };
    const running = this.freshRunning.get(key);
    if (!running) return start();
    const next = running.then(start, start);
    this.freshWaiting.set(key, next);
    return next;
  }
}
