/**
 * The thread that writes access lines (src/access-log-thread.ts): it receives batches of what access lines say,
 * makes their text and writes it to the log's file descriptor, then counts the batch done, which the process's
 * thread waits for before it writes a line of its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { accessLineText, unpackAccessLines } from './access-line-text.js';

const { fd, done } = workerData as { fd: number; done: Int32Array };
// The synchronous destination the process's own lines go through: the same handling of a full pipe and a closed one.
const output = pino.destination({ fd, sync: true });

parentPort!.on('message', (batch: unknown[]) => {
  try {
    let text = '';
    for (const fields of unpackAccessLines(batch)) text += accessLineText(fields);
    output.write(text);
  } finally {
    Atomics.add(done, 0, 1);
    Atomics.notify(done, 0);
  }
});
parentPort!.postMessage('ready');
