/**
 * The work that runs in isolated threads (src/cpu/isolated.ts), by name: each takes plain data and a TaskHost, and
 * returns plain data.
 */
import { convertImport } from '../domain/imports/conversion.js';

/** Calls of the other side, by name (see HostCalls in src/cpu/isolated.ts). */
export interface TaskHost {
  call(name: string, arg?: unknown): Promise<unknown>;
}

export const isolatedTasks = {
  /** An import from its source to the files it writes (src/domain/imports/conversion.ts). */
  convertImport,
};

export type IsolatedTasks = typeof isolatedTasks;
export type IsolatedTaskName = keyof IsolatedTasks;
