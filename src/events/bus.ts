/**
 * The event bus the container owns: what the domain publishes (src/domain/events.ts) reaches the streams open on
 * change requests (the events route). In one process an EventEmitter carries it; with Redis, src/events/redis-bus.ts
 * carries it to every process as well.
 */
import { EventEmitter } from 'node:events';
import type { ChangeRequestEvent, EventPublisher } from '../domain/events.js';

export type EventListener = (event: ChangeRequestEvent) => void;

export interface EventBus extends EventPublisher {
  /** Calls `listener` with every event of the change request, until the returned function is called. */
  subscribe(changeRequestId: string, listener: EventListener): () => void;
  /** Resolves once events published by other processes are received (at once without Redis). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Delivers events to this process's listeners, by change request. */
export class LocalListeners {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per open stream: the streams are bounded by the events route, not here.
    this.emitter.setMaxListeners(0);
  }

  deliver(event: ChangeRequestEvent): void {
    this.emitter.emit(event.changeRequestId, event);
  }

  subscribe(changeRequestId: string, listener: EventListener): () => void {
    this.emitter.on(changeRequestId, listener);
    return () => this.emitter.off(changeRequestId, listener);
  }
}

/** Without Redis: the process is the only one serving the API, events stay in it. */
export class InProcessEventBus implements EventBus {
  private readonly listeners = new LocalListeners();

  publish(event: ChangeRequestEvent): void {
    // Listeners run after the operation's answer is on its way, never inside it.
    queueMicrotask(() => this.listeners.deliver(event));
  }

  subscribe(changeRequestId: string, listener: EventListener): () => void {
    return this.listeners.subscribe(changeRequestId, listener);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {}
}
