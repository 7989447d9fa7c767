/**
 * The program of an isolated thread (src/cpu/isolated.ts): says it is ready once its tasks are loaded, runs the one
 * task it is given with a TaskHost over its port, and answers with the result or the error.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { crossingError } from './isolated-errors.js';
import { isolatedTasks } from './isolated-tasks.js';
import type { TaskHost } from './task-host.js';
import type { HostMessage, ThreadMessage } from './isolated.js';

/**
 * This thread runs below the event loop's priority (Linux: a thread's own nice value, by its thread id): on a server
 * of two cores, a conversion that keeps a core busy for seconds must not make the thread that answers requests wait
 * for the CPU. Elsewhere it runs as it is.
 */
function yieldToEventLoop(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, 10);
  } catch {
    // No /proc, or not allowed: the thread keeps the process's priority.
  }
}

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
