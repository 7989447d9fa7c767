/**
 * The in-process driver (the default, no setup): jobs run in this process on a p-queue, with the same retries,
 * backoff and de-duplication as on BullMQ. Jobs still queued when the process stops are lost; processors are
 * idempotent and the indexes they build are rebuilt on demand, so nothing is lost for good.
 */
import PQueue from 'p-queue';
import { isPermanent, jobKey, queueUnavailable, type Job, type JobHandler, type JobQueue, type QueueOptions } from './jobs.js';

export interface InProcessOptions extends QueueOptions {
  /** Jobs running at once. */
  concurrency: number;
  /** Told about every job that failed for good (after its retries). */
  onFailure?: (job: Job, error: unknown) => void;
}

export class InProcessQueue implements JobQueue {
  readonly driver = 'in-process' as const;
  private readonly queue: PQueue;
  /** Jobs waiting or running, by key: the de-duplication of `enqueue`. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly handle: JobHandler,
    private readonly options: InProcessOptions,
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency });
  }

  async enqueue(job: Job): Promise<void> {
    if (this.closed) throw queueUnavailable('the process is shutting down');
    const key = jobKey(job);
    if (this.pending.has(key)) return;
    const done = this.schedule(job).then(
      () => undefined,
      (error: unknown) => this.options.onFailure?.(job, error),
    );
    this.pending.set(key, done);
    void done.finally(() => this.pending.delete(key));
  }

  /** This queue is always reachable: only a process that is stopping refuses (its catch-up at start finds the work). */
  async enqueueWhenReachable(job: Job): Promise<'queued' | 'dropped'> {
    if (this.closed) return 'dropped';
    await this.enqueue(job);
    return 'queued';
  }

  async run(job: Job, options: { timeoutMs?: number } = {}): Promise<void> {
    const done = this.schedule(job);
    if (options.timeoutMs === undefined) return done;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(queueUnavailable(`${job.name} did not finish within ${options.timeoutMs} ms`)), options.timeoutMs);
    });
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async every(job: Job, intervalMs: number): Promise<void> {
    const timer = setInterval(() => void this.enqueue(job), intervalMs);
    timer.unref();
    this.timers.add(timer);
  }

  async idle(): Promise<void> {
    await this.queue.onIdle();
  }

  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue.onIdle(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  /** Runs the job on the queue, retrying with exponential backoff; resolves or rejects with its final outcome. */
  private async schedule(job: Job): Promise<void> {
    if (this.closed) throw queueUnavailable('the process is shutting down');
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.queue.add(() => {
          // Waiting jobs are not started once closing began; their callers hear so instead of waiting forever.
          if (this.closed) throw queueUnavailable('the process is shutting down');
          return this.handle(job);
        });
      } catch (error) {
        if (isPermanent(error) || attempt >= this.options.attempts || this.closed) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs * 2 ** (attempt - 1)));
      }
    }
  }
}
