/**
 * The server-sent event streams this process holds open: at most so many per user and in all (a stream is a
 * connection and a subscription for as long as a tab stays open), a heartbeat comment now and then (proxies close
 * a connection that says nothing, and the reader's access is checked again then), and all of them ended when the
 * server closes, so that it stops at once rather than wait for readers to go.
 */
import type { ServerResponse } from 'node:http';
import { TooManyRequests } from '../domain/errors.js';

/** Open streams one user may hold in one process (tabs on several change requests, a reconnection or two). */
export const MAX_STREAMS_PER_USER = 10;
/** Open streams one process holds at most. */
export const MAX_STREAMS = 2000;
/** A comment on every stream this often: below the idle timeouts of common proxies (30 s and more). */
export const HEARTBEAT_MS = 25_000;
/** How long a refused reader waits before trying again. */
const RETRY_AFTER_SECONDS = 30;

/** One open stream: its answer, and what to do when it ends (unsubscribe). */
export interface EventStream {
  /** Writes one event; false once the stream has ended. */
  send(event: string, data: unknown): boolean;
  end(): void;
}

export class EventStreams {
  private readonly open = new Set<{ end(): void }>();
  private readonly perUser = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly beats = new Set<() => void>();

  constructor() {
    this.heartbeat = setInterval(() => {
      for (const beat of this.beats) beat();
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Refuses a stream over the caps (429), before anything is subscribed or written. */
  admit(userId: string): void {
    if (this.open.size >= MAX_STREAMS) {
      throw new TooManyRequests(`this server holds ${MAX_STREAMS} event streams already; try again later`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
    }
    if ((this.perUser.get(userId) ?? 0) >= MAX_STREAMS_PER_USER) {
      throw new TooManyRequests(`you have ${MAX_STREAMS_PER_USER} event streams open on this server; close one first`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
    }
  }

  /**
   * Starts the stream on `response` (headers, then a first comment): `onBeat` runs on each heartbeat, `onEnd` once
   * when the stream ends, whoever ends it (the reader going, the server closing, `end()`).
   */
  start(userId: string, response: ServerResponse, handlers: { onBeat: () => void; onEnd: () => void }): EventStream {
    this.admit(userId);
    let ended = false;
    const stream: EventStream = {
      send: (event, data) => {
        if (ended) return false;
        response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        return true;
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.open.delete(stream);
        this.beats.delete(beat);
        const left = (this.perUser.get(userId) ?? 1) - 1;
        if (left > 0) this.perUser.set(userId, left);
        else this.perUser.delete(userId);
        handlers.onEnd();
        if (!response.writableEnded) response.end();
        // Once the last bytes are out, the connection goes too: a client that stopped reading without closing it
        // would otherwise hold the server's close.
        response.socket?.destroySoon();
      },
    };
    const beat = () => {
      if (ended) return;
      response.write(': heartbeat\n\n');
      handlers.onBeat();
    };
    this.open.add(stream);
    this.beats.add(beat);
    this.perUser.set(userId, (this.perUser.get(userId) ?? 0) + 1);
    response.on('close', () => stream.end());
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies such as nginx would hold the events back to fill their buffers.
      'x-accel-buffering': 'no',
      // The connection ends with the stream: kept alive, a stream ended as the server closes would hold the close
      // for the keep-alive timeout.
      connection: 'close',
    });
    // How long EventSource waits before it reconnects, then a first line, so that the reader knows it is open.
    response.write('retry: 3000\n: open\n\n');
    return stream;
  }

  /** Ends every stream (the server is closing). */
  closeAll(): void {
    clearInterval(this.heartbeat);
    for (const stream of [...this.open]) stream.end();
  }
}
