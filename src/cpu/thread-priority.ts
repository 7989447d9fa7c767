/**
 * Threads of CPU work run below the event loop's priority (Linux: a thread's own nice value, set by its thread id).
 * On a server of two cores, the pool's threads parsing a 10,000-page push, or a conversion keeping a core busy for
 * seconds, must not make the thread that answers requests wait for a core: the scheduler gives the loop's thread the
 * core first, and the CPU work every cycle the loop leaves. Elsewhere (no /proc, or not allowed) a thread runs at the
 * process's priority.
 */
import fs from 'node:fs';
import os from 'node:os';

/** The nice value of a CPU thread: the loop's thread (0) gets about nine tenths of a core both want. */
const CPU_THREAD_NICE = 10;

/** Lowers the calling thread's priority below the event loop's. */
export function yieldToEventLoop(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, CPU_THREAD_NICE);
  } catch {
    // No /proc, or not allowed: the thread keeps the process's priority.
  }
}
