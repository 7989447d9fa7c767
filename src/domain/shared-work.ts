/**
 * Work that concurrent callers share while it runs, one piece per key (an indexing that several reads would each
 * start): the first caller starts it, the others wait for the same promise, and the key is free again once it
 * settles. Owned by the container, so two containers in one process (tests, `quire serve` beside a worker) never
 * wait on each other's work.
 */
export class SharedWork {
  private readonly running = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const existing = this.running.get(key) as Promise<T> | undefined;
    if (existing) return existing;
    const started = work().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}
