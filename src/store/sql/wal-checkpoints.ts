/**
 * SQLite's checkpoints, on a thread of their own. In WAL mode a commit appends pages to the -wal file, and from time
 * to time those pages are copied back into the database file with an fsync (a checkpoint). By default the connection
 * that commits runs it, inside the commit: here that is the process's one connection, so the event loop. A big write
 * (the first index of a 10,000-page push, dozens of parts) ran a checkpoint every few parts, each holding every
 * request for tens of milliseconds on a busy disk (bench/big-push.ts).
 *
 * So once the WAL has grown past START_AT_BYTES (a process that only writes a little never starts a thread), a thread
 * with a connection of its own takes over: it runs a PASSIVE checkpoint, which waits for no reader nor writer,
 * every CHECKPOINT_EVERY_MS, and the process's connection stops checkpointing (`wal_autocheckpoint = 0`). Should the
 * thread fail, the process's connection checkpoints again as before.
 */
import fs from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { threadEntry } from '../../cpu/thread-entry.js';

/** SQLite's own threshold of 1,000 pages of 4 KB, where its connections checkpoint by default. */
const START_AT_BYTES = 4_000_000;
/** How often the WAL's size is looked at before the thread has started. */
const LOOK_EVERY_MS = 1000;
const CHECKPOINT_EVERY_MS = 200;
const DEFAULT_AUTOCHECKPOINT = 1000;

export class WalCheckpoints {
  private worker: Worker | undefined;
  private readonly timer: NodeJS.Timeout;
  private looking = false;
  private closed = false;

  constructor(
    private readonly connection: SQLite.Database,
    private readonly file: string,
  ) {
    this.timer = setInterval(() => void this.look(), LOOK_EVERY_MS);
    this.timer.unref();
  }

  /** Whether the thread checkpoints (for tests). */
  get threaded(): boolean {
    return this.worker !== undefined;
  }

  private async look(): Promise<void> {
    if (this.looking || this.closed) return;
    this.looking = true;
    try {
      const size = (await fs.stat(`${this.file}-wal`).catch(() => undefined))?.size ?? 0;
      if (size >= START_AT_BYTES && !this.closed) this.start();
    } finally {
      this.looking = false;
    }
  }

  private start(): void {
    clearInterval(this.timer);
    let worker: Worker;
    try {
      worker = new Worker(threadEntry('wal-checkpoint-thread', import.meta.url), { workerData: { file: this.file, everyMs: CHECKPOINT_EVERY_MS } });
    } catch {
      return;
    }
    this.worker = worker;
    worker.once('message', () => {
      if (!this.closed && this.worker === worker) this.connection.pragma('wal_autocheckpoint = 0');
    });
    // A thread that stopped: this process's connection checkpoints again.
    const fallBack = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (!this.closed && this.connection.open) this.connection.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    };
    worker.on('error', fallBack);
    worker.once('exit', fallBack);
    worker.unref();
  }

  /** Stops the thread (its connection closes; the last connection to close checkpoints what is left). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    // The thread checkpoints what is left as it closes its connection, which takes a while after a bulk load. Unref'd,
    // it would not hold the process meanwhile: a script that awaits this close would end with its await unsettled.
    worker.ref();
    worker.postMessage('close');
    await exited;
  }
}
