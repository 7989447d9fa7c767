/**
 * The thread that writes access lines (src/access-log-thread.ts): it receives chunks of their bytes and writes them to
 * the log's file descriptor, then counts the chunk done, which the process's thread waits for before it writes a line
 * of its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';

const { fd, done } = workerData as { fd: number; done: Int32Array };
// The synchronous destination the process's own lines go through: the same handling of a full pipe and a closed one.
// In its buffer mode, its write takes bytes (pino's types know only its text mode).
const output = pino.destination({ fd, sync: true, contentMode: 'buffer' });

parentPort!.on('message', (bytes: Uint8Array) => {
  try {
    output.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as string);
  } finally {
    Atomics.add(done, 0, 1);
    Atomics.notify(done, 0);
  }
});
parentPort!.postMessage('ready');
