/**
 * A client of a server-sent event stream over real HTTP, as EventSource reads one: the events it has
 * received so far, waiting for one, and whether the server ended the stream.
 */
import http from 'node:http';
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

  private constructor(private readonly request: http.ClientRequest) {}

  /** Opens the stream: the client once the server answered 200, or the status and JSON body of a refusal. */
  static async open(url: string, token: string | undefined, headers: Record<string, string> = { accept: 'text/event-stream' }): Promise<{ status: number; body?: any; client?: EventStreamClient }> {
    // node:http rather than fetch: closing must close the connection, as a browser's EventSource.close() does.
    const request = http.get(url, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) }, agent: false });
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => request.on('response', resolve).on('error', reject));
    if (response.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      return { status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
    }
    if (!String(response.headers['content-type']).startsWith('text/event-stream')) throw new Error(`not an event stream: ${response.headers['content-type']}`);
    const client = new EventStreamClient(request);
    client.read(response);
    // The first comment says the stream is subscribed.
    await waitFor(() => client.comments.includes('open'), { what: 'the stream to open' });
    return { status: 200, client };
  }

  private read(response: http.IncomingMessage): void {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (text: string) => {
      buffer += text;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        this.frame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    });
    const ended = () => {
      this.ended = true;
    };
    response.on('end', ended).on('close', ended).on('error', ended);
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

  /** Closes the connection, as EventSource.close() does. */
  close(): void {
    this.request.destroy();
  }
}
