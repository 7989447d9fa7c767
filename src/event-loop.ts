/**
 * How long this process's event loop is held, as a server reports it (`quire serve`): every 10 ms a timer takes two
 * samples. `held`: the time the loop spent running (node's event-loop utilization) since the timer before, that is
 * how long work done on the loop kept every other request waiting. `delay`: how late the timer fired (what
 * perf_hooks.monitorEventLoopDelay measures), which also counts the time a busy machine gave the process no CPU
 * while its loop was idle. Work holding the loop over STALL_MS is logged at warn level with its length, and
 * counted; `GET /metrics` (when QUIRE_METRICS_TOKEN is set, src/http/routes/metrics) reads both since its last read.
 */
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

export class EventLoopMonitor {
  private readonly held = createHistogram();
  private readonly delay = createHistogram();
  private timer?: NodeJS.Timeout;
  private stalls = 0;
  private lastTick = 0;
  private lastUse?: EventLoopUtilization;

  constructor(private readonly log: Logger) {}

  /** Starts sampling (a server, once it listens: loading its modules and compiling its routes is not a stall). */
  start(): void {
    if (this.timer) return;
    this.lastTick = performance.now();
    this.lastUse = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.tick(), SAMPLE_MS);
    this.timer.unref();
  }

  private tick(): void {
    const now = performance.now();
    const use = performance.eventLoopUtilization();
    const held = performance.eventLoopUtilization(use, this.lastUse).active;
    record(this.held, held);
    record(this.delay, Math.max(0, now - this.lastTick - SAMPLE_MS));
    this.lastTick = now;
    this.lastUse = use;
    if (held > STALL_MS) {
      this.stalls += 1;
      this.log.warn({ eventLoopHeldMs: Math.round(held) }, `the event loop was held for ${Math.round(held)} ms`);
    }
  }

  /** The samples since the last read; the next read starts from now. */
  read(): EventLoopReport {
    const report = { held: summary(this.held), delay: summary(this.delay), stalls: this.stalls };
    this.held.reset();
    this.delay.reset();
    return report;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
