/**
 * One writer of a repository's refs at a time, across every Quire process sharing the data directory (several
 * `quire serve` and `quire worker`). The lock is a file in the repository, `quire-refs.lock`, created exclusively
 * (O_EXCL) and holding `<pid> <host> <token>`; its holder touches it every HEARTBEAT_MS. A lock whose holder is gone
 * is taken over: at once when the holder was a process of this host that no longer runs (a kill -9), else when the
 * file was not touched for STALE_MS (a holder on another host, or a reused pid).
 *
 * Why not a library: proper-lockfile (the usual choice) judges staleness by mtime only, so a lock left by a kill -9
 * blocks writers for its whole stale period, and it is not installed here; the pid check is what makes a crashed
 * holder cost nothing. Why not flock(2): node has no binding for it without a native module.
 *
 * Within a process, waiters for one repository queue in order (first come, first served) before trying the file,
 * so only the head of the queue polls it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceUnavailable } from '../../domain/errors.js';

export const LOCK_FILE = 'quire-refs.lock';
const HEARTBEAT_MS = 2_000;
const STALE_MS = 20_000;
/** Longest pause between two tries of a held lock. */
const MAX_POLL_MS = 20;

/** The lock stayed held by others longer than the caller would wait (503: try again). */
export class RefLockTimeout extends ServiceUnavailable {
  constructor(readonly waitedMs: number) {
    super(`the space's repository stayed busy with other writes for ${Math.round(waitedMs / 1000)} s; nothing was changed: try again`);
  }
}

/** A held lock; release it exactly once (later calls do nothing). */
export interface RefLock {
  release(): Promise<void>;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
}

function parseHolder(text: string): Holder | undefined {
  const [pid, host, token] = text.trim().split(' ');
  return token ? { pid: Number(pid), host, token } : undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ref locks of one process (owned by the GitStore of its container). */
export class RefLocks {
  /** Per repository, the promise the next in-process waiter waits for. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly host = os.hostname();

  /**
   * Takes the lock of the repository at `gitDir`, waiting for other writers (in order within this process) at most
   * `timeoutMs`; rejects with RefLockTimeout after that. The repository must exist.
   */
  async acquire(gitDir: string, timeoutMs: number): Promise<RefLock> {
    const started = Date.now();
    const previous = this.queues.get(gitDir) ?? Promise.resolve();
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const tail = previous.then(() => mine);
    this.queues.set(gitDir, tail);
    const done = () => {
      leave();
      if (this.queues.get(gitDir) === tail) this.queues.delete(gitDir);
    };
    try {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      const turn = await Promise.race([previous.then(() => 'turn' as const), timedOut]);
      clearTimeout(timer);
      if (turn === 'timeout') throw new RefLockTimeout(Date.now() - started);
      const file = await this.takeFile(path.join(gitDir, LOCK_FILE), started + timeoutMs);
      if (!file) throw new RefLockTimeout(Date.now() - started);
      let released = false;
      return {
        release: async () => {
          if (released) return;
          released = true;
          await file.release();
          done();
        },
      };
    } catch (error) {
      done();
      throw error;
    }
  }

  /** Runs `work` holding the repository's lock. */
  async withLock<T>(gitDir: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    const lock = await this.acquire(gitDir, timeoutMs);
    try {
      return await work();
    } finally {
      await lock.release();
    }
  }

  /** Creates the lock file, taking over a stale one; undefined when `deadline` passes first. */
  private async takeFile(file: string, deadline: number): Promise<{ release(): Promise<void> } | undefined> {
    const token = randomBytes(12).toString('hex');
    const content = `${process.pid} ${this.host} ${token}\n`;
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.writeFile(file, content, { flag: 'wx' });
        return this.held(file, token);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (await this.isStale(file)) {
        await this.takeOver(file);
        continue;
      }
      if (Date.now() >= deadline) return undefined;
      await sleep(Math.min(MAX_POLL_MS, 1 + attempt * 2, Math.max(1, deadline - Date.now())));
    }
  }

  private held(file: string, token: string): { release(): Promise<void> } {
    const heartbeat = setInterval(() => {
      const now = new Date();
      void fs.utimes(file, now, now).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    return {
      release: async () => {
        clearInterval(heartbeat);
        // Only our own file: if this process stalled past STALE_MS, another writer may hold it by now.
        const current = parseHolder(await fs.readFile(file, 'utf8').catch(() => ''));
        if (current?.token === token) await fs.rm(file, { force: true });
      },
    };
  }

  private async isStale(file: string): Promise<boolean> {
    const [text, stat] = await Promise.all([fs.readFile(file, 'utf8').catch(() => undefined), fs.stat(file).catch(() => undefined)]);
    if (text === undefined || !stat) return false; // gone meanwhile: the next try creates it
    if (Date.now() - stat.mtimeMs > STALE_MS) return true;
    const holder = parseHolder(text);
    // A file being written (empty for an instant) is not stale; a holder of this host that no longer runs is.
    return holder !== undefined && holder.host === this.host && !isRunning(holder.pid);
  }

  /**
   * Removes a stale lock file. Several processes may find it stale at once: the removal is guarded by a second
   * exclusive file, and the lock is checked again under it, so a fresh lock made meanwhile is never removed.
   */
  private async takeOver(file: string): Promise<void> {
    const guard = `${file}.takeover`;
    try {
      await fs.writeFile(guard, `${process.pid}\n`, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Another process is taking over; a guard left by one killed in that instant is removed after STALE_MS.
      const stat = await fs.stat(guard).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > STALE_MS) await fs.rm(guard, { force: true });
      await sleep(1);
      return;
    }
    try {
      if (await this.isStale(file)) await fs.rm(file, { force: true });
    } finally {
      await fs.rm(guard, { force: true });
    }
  }
}
