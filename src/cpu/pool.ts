/**
 * A pool of worker threads for CPU-heavy work (parsing pages, search rows, link extraction, long SQLite reads:
 * src/cpu/tasks.ts), so that no page, however big, and no long read holds the event loop that answers requests.
 * The container owns one; it closes with it.
 *
 * node:worker_threads directly (see README, Libraries): tasks are a named function on plain data, one at a time per
 * thread, queued first come first served; threads start on first use and stay. A task that throws rejects its caller
 * with the error's message; a thread that dies (out of memory) rejects its task and is replaced on the next one.
 *
 * Which file a thread runs is decided by threadEntry (src/cpu/thread-entry.ts): from the TypeScript sources
 * (vitest, tsx), `worker.ts` and the modules it imports bundled by esbuild; from the build (`dist/`), `worker.js`.
 */
import { Worker } from 'node:worker_threads';
import type { CpuTaskName, CpuTasks } from './tasks.js';
import { IsolatedThreads } from './isolated.js';
import { threadEntry } from './thread-entry.js';
import { THREAD_READY, type TaskAnswer, type TaskRequest } from './messages.js';

export type TaskInput<N extends CpuTaskName> = Parameters<CpuTasks[N]>[0];
export type TaskOutput<N extends CpuTaskName> = Awaited<ReturnType<CpuTasks[N]>>;

interface Pending {
  request: TaskRequest;
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  running?: Pending;
  /** Its tasks' modules are loaded (until then, a task sent waits for them). */
  ready?: boolean;
}

/** The error of a task that failed in its thread. */
export class CpuTaskError extends Error {
  constructor(task: CpuTaskName, message: string) {
    super(`${task}: ${message}`);
    this.name = 'CpuTaskError';
  }
}

/**
 * A thread's young generation: a task's garbage (a 1,000-page parse makes tens of MB of it) is collected young
 * instead of filling V8's default semi-spaces and old generation. 8 MB held the least heap on batches of 1,000 pages
 * parsed, but rendering pages then spent a quarter of the thread's time collecting: a cold crawl of a published
 * 274-page site ran at 33 pages/s with 8 MB, 36 with 16, 40-45 with 32 and 45 with 64 (bench/site-crawl.ts).
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 32 } as const;

export class CpuPool {
  /** Work on untrusted input, each in a thread of its own with memory and time limits (src/cpu/isolated.ts). */
  readonly isolated = new IsolatedThreads();
  private readonly threads: Thread[] = [];
  private readonly queue: Pending[] = [];
  private readonly entry = threadEntry('worker');
  private nextId = 1;
  private closed = false;

  /** `size`: threads at most (they start as work comes). */
  constructor(readonly size: number) {}

  /** Runs a task on a thread of the pool; resolves with what it returns. */
  run<N extends CpuTaskName>(name: N, input: TaskInput<N>): Promise<TaskOutput<N>> {
    if (this.closed) return Promise.reject(new Error(`${name}: the CPU pool is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, name, input }, resolve: resolve as (output: unknown) => void, reject });
      this.dispatch();
    });
  }

  /**
   * Whether a task run now would start at once on a thread already running (free, nothing waiting): work a caller can
   * do itself is split with a thread only then, never queued behind another's nor made to wait for a thread to start
   * (a few hundred milliseconds: its modules load).
   */
  readyNow(): boolean {
    return !this.closed && this.queue.length === 0 && this.threads.some((thread) => !thread.running && thread.ready);
  }

  /** Starts a thread now unless one runs: a server does as it starts, so that its first requests find it loaded. */
  startThread(): void {
    if (!this.closed && this.threads.length === 0 && this.size > 0) this.start();
  }

  /** Stops every thread; tasks still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    await this.isolated.close();
    const threads = this.threads.splice(0);
    const waiting = [...this.queue.splice(0), ...threads.flatMap((thread) => (thread.running ? [thread.running] : []))];
    for (const pending of waiting) pending.reject(new Error(`${pending.request.name}: the CPU pool closed`));
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let thread = this.threads.find((t) => !t.running);
      if (!thread && this.threads.length < this.size) thread = this.start();
      if (!thread) return;
      const pending = this.queue.shift()!;
      thread.running = pending;
      // A thread at work keeps the process alive; an idle one does not (`quire admin` commands end by themselves).
      thread.worker.ref();
      thread.worker.postMessage(pending.request);
    }
  }

  private start(): Thread {
    const thread: Thread = { worker: new Worker(this.entry, { resourceLimits: THREAD_LIMITS }) };
    const { worker } = thread;
    // Idle until a task comes (dispatch refs it): a thread started ahead keeps no process alive.
    worker.unref();
    worker.on('message', (answer: TaskAnswer | typeof THREAD_READY) => {
      if (answer === THREAD_READY) {
        thread.ready = true;
        return;
      }
      const pending = thread.running;
      if (!pending || pending.request.id !== answer.id) return;
      thread.running = undefined;
      worker.unref();
      if (answer.ok) pending.resolve(answer.output);
      else pending.reject(new CpuTaskError(pending.request.name, answer.message));
      this.dispatch();
    });
    const lost = (error: Error) => {
      const index = this.threads.indexOf(thread);
      if (index < 0) return;
      this.threads.splice(index, 1);
      thread.running?.reject(new CpuTaskError(thread.running.request.name, `its worker thread stopped: ${error.message}`));
      thread.running = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
    this.threads.push(thread);
    return thread;
  }
}
