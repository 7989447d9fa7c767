/**
 * Turns of the event loop for long loops over a tree's pages (a push of 10,000 pages, the revision built from it):
 * each step is cheap, but 10,000 of them hold every other request for hundreds of milliseconds. A loop asks `due()`
 * at each step and, when it has run TURN_MS since it last let others run, awaits `take()`: whatever was waiting (an
 * API request, a git process's output) runs, then the loop goes on. Runs the same on the CPU pool's threads.
 */
import { performance } from 'node:perf_hooks';

/** How long a loop runs before it lets others run: well under the 100 ms the server may hold a request. */
const TURN_MS = 15;

export class Turns {
  private since = performance.now();

  /** True once the loop has run TURN_MS since its start or its last turn. */
  due(): boolean {
    return performance.now() - this.since >= TURN_MS;
  }

  /** Lets the event loop run what waits (I/O, timers, other requests), then starts a new turn. */
  async take(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
