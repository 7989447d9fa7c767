/**
 * What the CPU pool (./pool.ts) and its threads (./worker.ts) say to each other. A module of its own so that a thread
 * loads none of the pool's side (the pool, its isolated threads).
 */
import type { CpuTaskName } from './tasks.js';

/** A message to a thread, and its answer. */
export interface TaskRequest {
  id: number;
  name: CpuTaskName;
  input: unknown;
}
export type TaskAnswer = { id: number; ok: true; output: unknown } | { id: number; ok: false; message: string };
/** What a thread sends once its tasks are loaded and it listens for them. */
export const THREAD_READY = 'ready';
