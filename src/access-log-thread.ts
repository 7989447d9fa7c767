/**
 * A thread of its own that writes access lines (src/access-log-thread-entry.ts), so that the process's thread, which
 * answers the requests, never waits on the log's file or pipe: it hands chunks of the lines' bytes over (moved, not
 * copied).
 *
 * Chunks are written in the order they are sent. `waitUntilWritten` blocks until every chunk sent is written: the
 * process's own lines (rare: jobs, warnings, errors) wait for it, so that the log keeps the order lines were logged in.
 */
import { Worker } from 'node:worker_threads';
import { threadEntry } from './cpu/thread-entry.js';

/** How long the process's thread waits for a chunk before it gives the thread up (a thread that stopped working). */
const WAIT_MS = 5000;

export class AccessLogThread {
  private readonly worker: Worker | undefined;
  /** Chunks the thread has written, counted by the thread. */
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

  /** True while the thread takes chunks: until it has started, and once it failed, the caller writes lines itself. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  /** Has `bytes` written by the thread (call only when ready); their buffer moves to the thread. */
  send(bytes: Uint8Array<ArrayBuffer>): void {
    this.worker!.postMessage(bytes, [bytes.buffer]);
    this.sent += 1;
  }

  /** Blocks until every chunk sent is written (or the thread is given up). */
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
