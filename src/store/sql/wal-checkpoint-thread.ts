/**
 * The thread that checkpoints the SQLite database's WAL (src/store/sql/wal-checkpoints.ts): its own connection, a
 * PASSIVE checkpoint every `everyMs` (nothing to do costs a read of the WAL's index), until told to close.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const { file, everyMs } = workerData as { file: string; everyMs: number };
const connection = new SQLite(file, { fileMustExist: true });

const timer = setInterval(() => {
  // Busy (another connection's checkpoint, a migration): the next turn tries again.
  try {
    connection.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // nothing to do until then
  }
}, everyMs);

parentPort!.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  connection.close();
  parentPort!.close();
});
parentPort!.postMessage('ready');
