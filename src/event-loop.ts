/**
 * How long this process's event loop is held, as a server reports it (`quire serve`): every 10 ms a timer takes three
 * samples since the timer before.
 * - `coreWait`: how long the loop's thread was ready to run but had no CPU (Linux's schedstat for the thread; 0
 *   where the system does not say). A busy machine's doing, not the server's.
 * - `held`: the time the loop spent running (node's event-loop utilization) less `coreWait`, that is how long work
 *   done on the loop (garbage collection included) kept every other request waiting. Without taking out the waits, a
 *   callback of 20 ms read as 300 on a loaded machine, and a figure that says "the machine is busy" could not tell
 *   a parse holding the loop from it. (A wait for a core just before the loop woke is taken out too, which only
 *   makes a hold read a few ms shorter, and only on a busy machine.)
 * - `delay`: how late the timer fired (what perf_hooks.monitorEventLoopDelay measures), waits for a CPU included.
 *
 * Work holding the loop over STALL_MS is logged at warn level with its length, and counted; `GET /metrics` (when
 * QUIRE_METRICS_TOKEN is set, src/http/routes/metrics) reads the three since its last read.
 */
import fs from 'node:fs';
import { createHistogram, performance, type EventLoopUtilization, type RecordableHistogram } from 'node:perf_hooks';
import type { Logger } from './log.js';

/** Work holding the event loop longer than this is a stall: logged, and counted. */
export const STALL_MS = 100;
const SAMPLE_MS = 10;

/** One kind of sample since the last read, in ms. */
export interface Delays {
  samples: number;
  sumMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface EventLoopReport {
  held: Delays;
  delay: Delays;
  coreWait: Delays;
  /** Stalls since the process started. */
  stalls: number;
}

/** Histograms hold integers: samples are kept in microseconds. */
const record = (histogram: RecordableHistogram, ms: number) => histogram.record(Math.max(1, Math.round(ms * 1000)));

function summary(histogram: RecordableHistogram): Delays {
  if (histogram.count === 0) return { samples: 0, sumMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  const ms = (microseconds: number) => microseconds / 1000;
  return {
    samples: histogram.count,
    sumMs: ms(histogram.mean) * histogram.count,
    p50Ms: ms(histogram.percentile(50)),
    p99Ms: ms(histogram.percentile(99)),
    maxMs: ms(histogram.max),
  };
}

/**
 * The time the calling thread has waited for a CPU, from /proc/thread-self/schedstat (its second field, in ns): read
 * with one pread on a file kept open (a few µs, where opening it each time costs ten times that).
 */
class CoreWaits {
  private readonly fd: number | undefined;
  private readonly buffer = Buffer.alloc(96);
  private lastMs = 0;

  constructor() {
    let fd: number | undefined;
    try {
      fd = fs.openSync('/proc/thread-self/schedstat', 'r');
    } catch {
      // Not Linux, or no schedstat: no wait is known, and `held` is the loop's running time as it is.
    }
    this.fd = fd;
  }

  /** Milliseconds waited since the thread started (0 where unknown). */
  totalMs(): number {
    if (this.fd === undefined) return 0;
    let length: number;
    try {
      length = fs.readSync(this.fd, this.buffer, 0, this.buffer.length, 0);
    } catch {
      // Read in a timer: a failed read must not end the server; no new wait is known this once.
      return this.lastMs;
    }
    const waitedNs = Number(this.buffer.toString('latin1', 0, length).split(' ')[1]);
    if (Number.isFinite(waitedNs)) this.lastMs = waitedNs / 1e6;
    return this.lastMs;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
  }
}

export class EventLoopMonitor {
  private readonly held = createHistogram();
  private readonly delay = createHistogram();
  private readonly coreWait = createHistogram();
  private waits?: CoreWaits;
  private timer?: NodeJS.Timeout;
  private stalls = 0;
  private lastTick = 0;
  private lastWaitedMs = 0;
  private lastUse?: EventLoopUtilization;

  constructor(private readonly log: Logger) {}

  /** Starts sampling (a server, once it listens: loading its modules and compiling its routes is not a stall). */
  start(): void {
    if (this.timer) return;
    this.waits = new CoreWaits();
    this.lastWaitedMs = this.waits.totalMs();
    this.lastTick = performance.now();
    this.lastUse = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.tick(), SAMPLE_MS);
    this.timer.unref();
  }

  private tick(): void {
    const now = performance.now();
    const use = performance.eventLoopUtilization();
    const waitedMs = this.waits!.totalMs();
    const waited = waitedMs - this.lastWaitedMs;
    const held = Math.max(0, performance.eventLoopUtilization(use, this.lastUse).active - waited);
    record(this.held, held);
    record(this.delay, Math.max(0, now - this.lastTick - SAMPLE_MS));
    record(this.coreWait, waited);
    this.lastTick = now;
    this.lastUse = use;
    this.lastWaitedMs = waitedMs;
    if (held > STALL_MS) {
      this.stalls += 1;
      this.log.warn({ eventLoopHeldMs: Math.round(held), waitedForCpuMs: Math.round(waited) }, `the event loop was held for ${Math.round(held)} ms`);
    }
  }

  /** The samples since the last read; the next read starts from now. */
  read(): EventLoopReport {
    const report = { held: summary(this.held), delay: summary(this.delay), coreWait: summary(this.coreWait), stalls: this.stalls };
    this.held.reset();
    this.delay.reset();
    this.coreWait.reset();
    return report;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.waits?.close();
    this.waits = undefined;
  }
}
