/**
 * The program of a CPU pool thread (src/cpu/pool.ts): runs the named task of src/cpu/tasks.ts on each message and
 * answers with its result or its error's message; says once that it is ready (its tasks loaded).
 */
import { parentPort } from 'node:worker_threads';
import { cpuTasks } from './tasks.js';
import { THREAD_READY, type TaskAnswer, type TaskRequest } from './messages.js';
import { yieldToEventLoop } from './thread-priority.js';

// Below the event loop: a push's parsing on every thread of the pool does not make requests wait for a core.
yieldToEventLoop();

const port = parentPort!;
port.on('message', async (request: TaskRequest) => {
  let answer: TaskAnswer;
  try {
    const task = cpuTasks[request.name] as (input: unknown) => unknown;
    answer = { id: request.id, ok: true, output: await task(request.input) };
  } catch (error) {
    answer = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
port.postMessage(THREAD_READY);
