/**
 * A thread of its own that makes and writes access lines (src/access-log-thread-entry.ts), so that the process's
 * thread, which answers the requests, only takes what each line says: made and written on the event loop, the lines
 * still cost a warm page read about a sixth of its throughput (bench/README.md).
 *
 * Batches are written in the order they are sent. `waitUntilWritten` blocks until every batch sent is written: the
 * process's own lines (rare: jobs, warnings, errors) wait for it, so that the log keeps the order lines were logged in.
 */
import { Worker } from 'node:worker_threads';
import { packAccessLines, type AccessLineFields } from './access-line-text.js';
import { threadEntry } from './cpu/thread-entry.js';

/** How long the process's thread waits for a batch before it gives the thread up (a thread that stopped working). */
const WAIT_MS = 5000;

export class AccessLogThread {
  private readonly worker: Worker | undefined;
  /** Batches the thread has written, counted by the thread. */
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private sent = 0;
  private state: 'starting' | 'ready' | 'failed' = 'starting';

  /** Starts the thread, writing to `fd`. A thread that cannot start leaves the lines to the caller. */
  constructor(fd: number) {
    try {
      this.worker = new Worker(threadEntry('access-log-thread-entry', import.meta.url), { workerData: { fd, done: this.done } });
    } catch {
      this.state = 'failed';
      return;
    }
    this.worker.once('message', () => {
      if (this.state === 'starting') this.state = 'ready';
    });
    this.worker.on('error', () => {
      this.state = 'failed';
    });
    this.worker.once('exit', () => {
      this.state = 'failed';
    });
    // Ending with the process: what it holds is written on exit (LogDestination).
    this.worker.unref();
  }

  /** True while the thread takes batches: until it has started, and once it failed, the caller writes lines itself. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  /** Has `batch` written by the thread (call only when ready). */
  send(batch: AccessLineFields[]): void {
    this.worker!.postMessage(packAccessLines(batch));
    this.sent += 1;
  }

  /** Blocks until every batch sent is written (or the thread is given up). */
  waitUntilWritten(): void {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const done = Atomics.load(this.done, 0);
      if (done >= this.sent || this.state === 'failed') return;
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.done, 0, done, left) === 'timed-out') {
        this.state = 'failed';
        return;
      }
    }
  }
}
