/**
 * What a long-running process (`quire serve`, `quire worker`) does with an error nothing caught: a promise rejected
 * with nobody listening, or an exception thrown outside any handler. Node's default is to die either way, dropping
 * every connection and every running job for what is one request's or one job's bug.
 */
import type { Logger } from '../log.js';

/** The log messages, at error and fatal level (the test helpers fail a test whose server logged one). */
export const UNHANDLED_REJECTION = 'unhandled rejection';
export const UNCAUGHT_EXCEPTION = 'uncaught exception';

/**
 * A rejection nobody observed is logged at error level, and the process goes on: the work that rejected has already
 * unwound through its promises like any failure that is handled, so what it leaves behind is what a handled failure
 * of the same work would leave (the request or job it belonged to fails or hangs until its client gives up).
 *
 * An uncaught exception is logged at fatal level, then the process exits with 1: it was thrown from a callback
 * (a stream or timer handler) in the middle of changing whatever that callback changes, nothing unwound it, and
 * Node documents the process state as undefined after it. Exiting is what is safe: the stores are durable at every
 * step (a push moves its refs before it is acknowledged, a job stays queued until done) and the service manager
 * starts a fresh process.
 */
export function reportProcessErrors(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, UNHANDLED_REJECTION);
  });
  process.on('uncaughtException', (error) => {
    log.fatal({ err: error }, UNCAUGHT_EXCEPTION);
    process.exit(1);
  });
}
