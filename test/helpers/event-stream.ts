/**
 * A client of a server-sent event stream over real HTTP (fetch), as EventSource reads one: the events it has
 * received so far, waiting for one, and whether the server ended the stream.
 */
import { waitFor } from './wait.js';

export interface ReceivedEvent {
  event: string;
  data: any;
}

export class EventStreamClient {
  readonly events: ReceivedEvent[] = [];
  /** Comment lines received (`open`, `heartbeat`). */
  readonly comments: string[] = [];
  ended = false;

  private constructor(private readonly controller: AbortController) {}

  /** Opens the stream: the client once the server answered 200, or the status and JSON body of a refusal. */
  static async open(url: string, token: string | undefined, headers: Record<string, string> = { accept: 'text/event-stream' }): Promise<{ status: number; body?: any; client?: EventStreamClient }> {
    const controller = new AbortController();
    const response = await fetch(url, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) }, signal: controller.signal });
    if (response.status !== 200) return { status: response.status, body: await response.json() };
    if (!String(response.headers.get('content-type')).startsWith('text/event-stream')) throw new Error(`not an event stream: ${response.headers.get('content-type')}`);
    const client = new EventStreamClient(controller);
    void client.read(response.body!);
    // The first comment says the stream is subscribed.
    await waitFor(() => client.comments.includes('open'), { what: 'the stream to open' });
    return { status: 200, client };
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Aborted by close().
    }
    this.ended = true;
  }

  private frame(text: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) this.events.push({ event, data: JSON.parse(data.join('\n')) });
  }

  /** Waits for an event that `match` accepts, received since the stream opened. */
  async next(what: string, match: (event: ReceivedEvent) => boolean): Promise<ReceivedEvent> {
    return waitFor(() => this.events.find(match), { what });
  }

  close(): void {
    this.controller.abort();
  }
}
