/**
 * The event bus across processes: every event is published on one Redis channel (under the installation's key
 * prefix) and each process holds one subscriber connection, whatever the number of streams it serves. An event
 * reaches this process's own streams at once, not through Redis: while Redis is unreachable, the streams of the
 * process that made the change still hear of it (the others catch up when their readers reload).
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { ChangeRequestEvent } from '../domain/events.js';
import { LocalListeners, type EventBus, type EventListener } from './bus.js';

interface Envelope {
  /** The process that published the event (which has delivered it to its own streams already). */
  from: string;
  event: ChangeRequestEvent;
}

export class RedisEventBus implements EventBus {
  private readonly listeners = new LocalListeners();
  private readonly origin = crypto.randomUUID();
  private readonly channel: string;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly subscribed: Promise<void>;

  constructor(options: { redisUrl: string; prefix: string; warn: (message: string) => void }) {
    this.channel = `${options.prefix}:change-request-events`;
    // An event that cannot be sent now is dropped rather than queued: it would arrive late and out of order.
    this.publisher = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2000) });
    // ioredis subscribes again by itself on every reconnection.
    this.publisher.on('error', (error: Error) => options.warn(`event bus: Redis publisher: ${error.message}`));
    this.subscriber.on('error', (error: Error) => options.warn(`event bus: Redis subscriber: ${error.message}`));
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const envelope = parseEnvelope(text);
      if (envelope && envelope.from !== this.origin) this.listeners.deliver(envelope.event);
    });
    this.subscribed = this.subscriber.subscribe(this.channel).then(() => undefined);
    // Nobody may be waiting for it yet: a failure is logged by the error handler above.
    this.subscribed.catch(() => undefined);
  }

  publish(event: ChangeRequestEvent): void {
    queueMicrotask(() => this.listeners.deliver(event));
    const envelope: Envelope = { from: this.origin, event };
    this.publisher.publish(this.channel, JSON.stringify(envelope)).catch(() => undefined);
  }

  subscribe(changeRequestId: string, listener: EventListener): () => void {
    return this.listeners.subscribe(changeRequestId, listener);
  }

  ready(): Promise<void> {
    return this.subscribed;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await this.publisher.quit().catch(() => this.publisher.disconnect());
  }
}

/** An envelope from the channel, or undefined for anything else (another program sharing the prefix). */
function parseEnvelope(text: string): Envelope | undefined {
  try {
    const value = JSON.parse(text) as Partial<Envelope>;
    const event = value.event;
    if (typeof value.from !== 'string' || !event || typeof event.changeRequestId !== 'string' || typeof event.kind !== 'string') return undefined;
    return value as Envelope;
  } catch {
    return undefined;
  }
}
