/**
 * The program of an isolated thread (src/cpu/isolated.ts): says it is ready once its tasks are loaded, runs the one
 * task it is given with a TaskHost over its port, and answers with the result or the error.
 */
import { parentPort } from 'node:worker_threads';
import { crossingError } from './isolated-errors.js';
import { yieldToEventLoop } from './thread-priority.js';
import { isolatedTasks } from './isolated-tasks.js';
import type { TaskHost } from './task-host.js';
import type { HostMessage, ThreadMessage } from './isolated.js';

// Below the event loop: a conversion that keeps a core busy for seconds does not make requests wait for it.
yieldToEventLoop();
const port = parentPort!;
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextId = 1;

const host: TaskHost = {
  call: (name, arg) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      port.postMessage({ type: 'call', id, name, arg } satisfies ThreadMessage);
    }),
};

port.on('message', (message: HostMessage) => {
  if (message.type === 'reply') {
    const call = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.ok) call?.resolve(message.value);
    else call?.reject(new Error(message.message));
    return;
  }
  const task = isolatedTasks[message.name] as (input: unknown, host: TaskHost) => Promise<unknown>;
  const failed = (error: unknown): ThreadMessage => ({
    type: 'done',
    ok: false,
    message: error instanceof Error ? error.message : String(error),
    ...crossingError(error),
  });
  // Settles as a message whatever happens, an output that cannot be sent included.
  void Promise.resolve()
    .then(() => task(message.input, host))
    .then(
      (output) => port.postMessage({ type: 'done', ok: true, output } satisfies ThreadMessage),
      (error: unknown) => port.postMessage(failed(error)),
    )
    .catch((error: unknown) => port.postMessage(failed(error)));
});
port.postMessage({ type: 'ready' } satisfies ThreadMessage);
