/**
 * Where the process's log lines go (src/log.ts): stdout or stderr, or pino-pretty's thread on a terminal.
 *
 * A server writes one access line per request. Made by pino and written one by one (a write to the file or pipe
 * behind stdout each), they halved the requests a warm page read serves (bench/README.md). So an access line's text
 * is made at once (src/access-line-text.ts) and its bytes appended to a chunk, and a chunk is written whole: every
 * KEEP_MS, or as soon as it is full; when the log goes to a file descriptor, by a thread of its own
 * (src/access-log-thread.ts). Nothing of a line outlives its request but its bytes: lines kept as objects until
 * written outlived the young generation, and collecting them cost the process more than making their text.
 *
 * Every other line (a job, a warning, a request that failed, an uncaught exception) is written at once,
 * synchronously, as before: the line a crash writes is out before the process ends, whatever ends it. The access
 * lines kept or being written by the thread are written before it, so the log keeps the order in which lines were
 * logged, and when the process exits (`process.exit` included: the shutdown of `quire serve`, a fatal error).
 */
import type { DestinationStream } from 'pino';
import { accessLineText, type AccessLineFields } from './access-line-text.js';
import { AccessLogThread } from './access-log-thread.js';

/** How long an access line may wait for others before it is written. */
const KEEP_MS = 50;
/**
 * The bytes of a chunk (some 250 access lines). A line is far shorter: Node refuses request heads over 16 KB, and a
 * line holds little more than the request's URL and host.
 */
const CHUNK_BYTES = 64 * 1024;

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
  private readonly chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  /** Bytes of `chunk` that hold access lines not handed on yet. */
  private used = 0;
  private timer: NodeJS.Timeout | undefined;
  private thread: AccessLogThread | undefined;

  /**
   * Lines go to `output`; with `fd`, the descriptor `output` writes to, access lines are written by a thread of their
   * own.
   */
  constructor(
    private readonly output: Output,
    private readonly fd?: number,
  ) {}

  /** A line of pino's: written now, after the access lines logged before it. */
  write(line: string): void {
    const kept = this.takeKept();
    this.thread?.waitUntilWritten();
    this.output.write(kept === undefined ? line : textOf(kept) + line);
  }

  /** An access line, written with the others within KEEP_MS. */
  keepAccessLine(fields: AccessLineFields): void {
    const text = accessLineText(fields);
    const bytes = Buffer.byteLength(text);
    if (bytes > CHUNK_BYTES - this.used) {
      this.writeAccessLines();
      // A line longer than a chunk (none that Node lets in) is written on its own.
      if (bytes > CHUNK_BYTES) {
        this.hand(new TextEncoder().encode(text));
        return;
      }
    }
    this.used += this.chunk.write(text, this.used);
    if (this.timer === undefined) {
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
    const kept = this.takeKept();
    if (kept !== undefined) this.hand(kept);
  }

  /** Has every access line logged so far written before this returns. */
  finishAccessLines(): void {
    const kept = this.takeKept();
    if (kept !== undefined) this.hand(kept);
    this.thread?.waitUntilWritten();
  }

  /** Sends access lines' bytes to the thread, or writes them here while it starts (and with no descriptor). */
  private hand(bytes: Uint8Array<ArrayBuffer>): void {
    if (this.thread?.ready) this.thread.send(bytes);
    else this.output.write(textOf(bytes));
  }

  /** Writes every access line logged so far, then lets the output write what it holds (pino's `logger.flush`). */
  flush(callback: (error?: Error) => void): void {
    this.finishAccessLines();
    if (this.output.flush) this.output.flush(callback);
    else callback();
  }

  /** The kept access lines' bytes in a buffer of their own (the chunk is used again), which are no longer kept. */
  private takeKept(): Uint8Array<ArrayBuffer> | undefined {
    if (this.used === 0) return undefined;
    const kept = new Uint8Array(this.used);
    kept.set(this.chunk.subarray(0, this.used));
    this.used = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    // With a thread, lines it has not written yet may remain: the exit still waits for them.
    if (this.thread === undefined) holdingLines.delete(this);
    return kept;
  }
}

/** UTF-8 bytes as text. */
function textOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString();
}
