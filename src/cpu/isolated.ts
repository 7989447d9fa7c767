/**
 * Work on untrusted input that may need more memory or time than anything else a server does (an import: a zip bomb,
 * a paragraph of megabytes) runs in a worker thread of its own, one task at a time, with a heap limit and a time
 * limit: past either, the thread is terminated and only that task fails (IsolatedLimitExceeded), while the event loop
 * goes on answering. The pool's threads (src/cpu/pool.ts) are not used for it: they queue other tasks, and have no
 * such limits.
 *
 * A task (src/cpu/isolated-tasks.ts) takes plain data and a TaskHost, through which it calls functions of this side
 * by name (fetching through the guard, reading git objects, reporting progress): the thread does the parsing, the
 * event loop only the I/O. A task's errors listed in ./isolated-errors.ts come back as themselves; any other error as an
 * Error.
 */
import { Worker } from 'node:worker_threads';
import { errorFromThread, type CrossingErrorName } from './isolated-errors.js';
import { threadEntry } from './thread-entry.js';
import type { IsolatedTaskName, IsolatedTasks } from './isolated-tasks.js';

export interface IsolatedLimits {
  /** The thread's heap (V8's old generation), in megabytes. Buffers are outside it: whoever reads bytes bounds them. */
  maxHeapMb: number;
  /** Time the task may run once the thread has loaded its modules, in milliseconds. */
  timeMs: number;
}

/** Functions of this side a task may call by name; each takes and returns plain data. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each function takes its own argument type; none of them fits `(arg: unknown)`.
export type HostCalls = Record<string, (arg: any) => unknown>;

/** Messages of the protocol (thread: isolated-worker.ts). */
export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'call'; id: number; name: string; arg: unknown }
  | { type: 'done'; ok: true; output: unknown }
  | { type: 'done'; ok: false; message: string; error?: CrossingErrorName; data?: Readonly<Record<string, unknown>> };
export type HostMessage =
  | { type: 'task'; name: IsolatedTaskName; input: unknown }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; message: string };

/** Work stopped for going over one of its limits. */
export class IsolatedLimitExceeded extends Error {
  constructor(
    readonly limit: 'memory' | 'time',
    readonly limits: IsolatedLimits,
  ) {
    super(limit === 'memory' ? `it needed more than ${limits.maxHeapMb} MB of memory` : `it took longer than ${Math.round(limits.timeMs / 1000)} s`);
    this.name = 'IsolatedLimitExceeded';
  }
}

type Output<N extends IsolatedTaskName> = Awaited<ReturnType<IsolatedTasks[N]>>;
type Input<N extends IsolatedTaskName> = Parameters<IsolatedTasks[N]>[0];

/** A thread and the task it runs now (none while idle). */
interface IsolatedThread {
  worker: Worker;
  maxHeapMb: number;
  /** Resolves once its tasks are loaded; rejects when it stops before. */
  ready: Promise<void>;
  task?: { calls: HostCalls; settle: (outcome: ThreadMessage | Error) => void };
  idleTimer?: NodeJS.Timeout;
}

/** Idle threads kept for the next task (a thread takes seconds to load its modules), and how long. */
const MAX_IDLE = 2;
const IDLE_MS = 60_000;

export class IsolatedThreads {
  private readonly entry = threadEntry('isolated-worker');
  private readonly threads = new Set<IsolatedThread>();
  private readonly idle: IsolatedThread[] = [];
  private closed = false;

  /**
   * Runs `name` in a thread within `limits`: an idle thread with the same heap limit, else a new one. A thread past a
   * limit is terminated; one whose task ended (done or failed) waits idle for the next task a while.
   */
  async run<N extends IsolatedTaskName>(name: N, input: Input<N>, limits: IsolatedLimits, calls: HostCalls = {}): Promise<Output<N>> {
    if (this.closed) throw new Error(`${name}: the process is stopping`);
    const index = this.idle.findIndex((t) => t.maxHeapMb === limits.maxHeapMb);
    const thread = index >= 0 ? this.idle.splice(index, 1)[0] : this.start(limits.maxHeapMb);
    clearTimeout(thread.idleTimer);
    // At work, a thread keeps the process alive; idle, it does not.
    thread.worker.ref();
    await thread.ready;
    if (!this.threads.has(thread)) throw new Error(`${name}: its thread stopped before it started`);
    return new Promise<Output<N>>((resolve, reject) => {
      const timer = setTimeout(() => this.stop(thread, new IsolatedLimitExceeded('time', limits)), limits.timeMs);
      thread.task = {
        calls,
        settle: (outcome) => {
          clearTimeout(timer);
          thread.task = undefined;
          if (outcome instanceof Error) {
            reject(outcome instanceof IsolatedLimitExceeded && outcome.limit === 'memory' ? new IsolatedLimitExceeded('memory', limits) : outcome);
            return;
          }
          this.rest(thread);
          if (outcome.type !== 'done') return;
          if (outcome.ok) resolve(outcome.output as Output<N>);
          else reject(outcome.error ? errorFromThread(outcome.error, outcome.message, outcome.data ?? {}) : new Error(`${name}: ${outcome.message}`));
        },
      };
      thread.worker.postMessage({ type: 'task', name, input } satisfies HostMessage);
    });
  }

  /** Ends every thread; running tasks are rejected (the process is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.threads];
    for (const thread of threads) this.stop(thread, new Error('the process is stopping'));
    await Promise.all(threads.map((thread) => thread.worker.terminate().catch(() => undefined)));
  }

  private start(maxHeapMb: number): IsolatedThread {
    const worker = new Worker(this.entry, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 16 } });
    let loaded!: () => void;
    let failed!: (error: Error) => void;
    const thread: IsolatedThread = { worker, maxHeapMb, ready: new Promise<void>((resolve, reject) => ((loaded = resolve), (failed = reject))) };
    // Observed here; run() awaits it and reports a thread that stopped before it was ready.
    thread.ready.catch(() => undefined);
    this.threads.add(thread);
    worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'ready') loaded();
      else if (message.type === 'call') void this.answer(thread, message);
      else thread.task?.settle(message);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      // The limits passed in IsolatedLimitExceeded are the task's: run() puts them in.
      const reason = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new IsolatedLimitExceeded('memory', { maxHeapMb, timeMs: 0 }) : new Error(`its thread failed: ${error.message}`);
      this.stop(thread, reason);
      failed(reason);
    });
    worker.on('exit', (code) => {
      const reason = new Error(`its thread stopped (exit code ${code})`);
      this.stop(thread, reason);
      failed(reason);
    });
    return thread;
  }

  /** A thread done with its task: kept idle for the next one (a while), or ended. */
  private rest(thread: IsolatedThread): void {
    if (this.closed || !this.threads.has(thread)) return;
    if (this.idle.length >= MAX_IDLE) {
      this.stop(thread);
      return;
    }
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => {
      this.idle.splice(this.idle.indexOf(thread), 1);
      this.stop(thread);
    }, IDLE_MS);
    thread.idleTimer.unref();
    this.idle.push(thread);
  }

  /** Ends a thread, and its task with `reason`. */
  private stop(thread: IsolatedThread, reason?: Error): void {
    if (!this.threads.delete(thread)) return;
    clearTimeout(thread.idleTimer);
    const idle = this.idle.indexOf(thread);
    if (idle >= 0) this.idle.splice(idle, 1);
    thread.task?.settle(reason ?? new Error('its thread stopped'));
    void thread.worker.terminate().catch(() => undefined);
  }

  /** Runs a call the task made and sends its outcome back (to a thread still at that task). */
  private async answer(thread: IsolatedThread, message: { id: number; name: string; arg: unknown }): Promise<void> {
    const task = thread.task;
    let reply: HostMessage;
    try {
      const call = task?.calls[message.name];
      if (!call) throw new Error(`no call "${message.name}" on this side`);
      reply = { type: 'reply', id: message.id, ok: true, value: await call(message.arg) };
    } catch (error) {
      reply = { type: 'reply', id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    if (thread.task !== task || !this.threads.has(thread)) return;
    try {
      thread.worker.postMessage(reply);
    } catch (error) {
      // A value that cannot cross to the thread: the call fails there instead.
      thread.worker.postMessage({ type: 'reply', id: message.id, ok: false, message: (error as Error).message } satisfies HostMessage);
    }
  }
}
