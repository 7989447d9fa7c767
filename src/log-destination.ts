/**
 * Where the process's log lines go (src/log.ts): stdout or stderr, or pino-pretty's thread on a terminal.
 *
 * A server writes one access line per request. Made by pino and written one by one (a write to the file or pipe
 * behind stdout each), they halved the requests a warm page read serves (bench/README.md). So what an access line
 * says is kept, and the lines are made and written together: every KEEP_MS, or as soon as KEEP_LINES are kept; when
 * the log goes to a file descriptor, by a thread of their own (src/access-log-thread.ts). Every other line (a job, a
 * warning, a request that failed, an uncaught exception) is written at once, synchronously, as before: the line a
 * crash writes is out before the process ends, whatever ends it. The access lines kept or being written by the
 * thread are written before it, so the log keeps the order in which lines were logged, and when the process exits
 * (`process.exit` included: the shutdown of `quire serve`, a fatal error).
 */
import type { DestinationStream } from 'pino';
import { accessLineText, type AccessLineFields } from './access-line-text.js';
import { AccessLogThread } from './access-log-thread.js';

/** How long an access line may wait for others before it is written. */
const KEEP_MS = 50;
/** Kept lines past which they are written at once (~70 KB of access lines). */
const KEEP_LINES = 256;

/** The underlying stream: pino's synchronous destination (sonic-boom) or its transport to pino-pretty. */
interface Output extends DestinationStream {
  flush?(callback: (error?: Error) => void): void;
}

/** The destinations that may hold access lines not written yet: the process's exit writes them. */
const holdingLines = new Set<LogDestination>();
// Registered before any pino transport registers its own exit handler, which ends the transport: kept lines go first.
process.on('exit', () => {
  for (const destination of holdingLines) destination.finishAccessLines();
});

export class LogDestination implements DestinationStream {
  private kept: AccessLineFields[] = [];
  private timer: NodeJS.Timeout | undefined;
  private thread: AccessLogThread | undefined;

  /**
   * Lines go to `output`; with `fd`, the descriptor `output` writes to, access lines are made and written by a thread
   * of their own.
   */
  constructor(
    private readonly output: Output,
    private readonly fd?: number,
  ) {}

  /** A line of pino's: written now, after the access lines logged before it. */
  write(line: string): void {
    const kept = this.takeKept();
    this.thread?.waitUntilWritten();
    this.output.write(kept.length === 0 ? line : accessLinesText(kept) + line);
  }

  /** An access line, written with the others within KEEP_MS. */
  keepAccessLine(fields: AccessLineFields): void {
    this.kept.push(fields);
    if (this.kept.length >= KEEP_LINES) {
      this.writeAccessLines();
    } else if (this.timer === undefined) {
      holdingLines.add(this);
      this.timer = setTimeout(() => this.writeAccessLines(), KEEP_MS);
      // A process with nothing else to do ends; its exit writes what is kept.
      this.timer.unref();
    }
  }

  /** Has the kept access lines written, starting the thread that writes them the first time. */
  private writeAccessLines(): void {
    if (this.fd !== undefined && this.thread === undefined) {
      this.thread = new AccessLogThread(this.fd);
      holdingLines.add(this);
    }
    this.sendCachedAnswer();
  }

  /** Has every access line logged so far written before this returns. */
  finishAccessLines(): void {
    this.sendCachedAnswer();
    this.thread?.waitUntilWritten();
  }

  /** Sends the kept access lines to the thread, or writes them here while it starts (and with no descriptor). */
  private sendCachedAnswer(): void {
    const kept = this.takeKept();
    if (kept.length === 0) return;
    if (this.thread?.ready) this.thread.send(kept);
    else this.output.write(accessLinesText(kept));
  }

  /** Writes every access line logged so far, then lets the output write what it holds (pino's `logger.flush`). */
  flush(callback: (error?: Error) => void): void {
    this.finishAccessLines();
    if (this.output.flush) this.output.flush(callback);
    else callback();
  }

  /** The kept access lines, which are no longer kept. */
  private takeKept(): AccessLineFields[] {
    const kept = this.kept;
    if (kept.length === 0) return kept;
    this.kept = [];
    clearTimeout(this.timer);
    this.timer = undefined;
    // With a thread, lines it has not written yet may remain: the exit still waits for them.
    if (this.thread === undefined) holdingLines.delete(this);
    return kept;
  }
}

/** The text of access lines, made on the process's thread (before the thread runs, or with no descriptor). */
function accessLinesText(lines: AccessLineFields[]): string {
  let text = '';
  for (const fields of lines) text += accessLineText(fields);
  return text;
}
