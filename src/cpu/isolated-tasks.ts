/**
 * The work that runs in isolated threads (src/cpu/isolated.ts), by name: each takes plain data and a TaskHost
 * (./task-host.ts), and returns plain data.
 */
import { convertImport } from '../content/imports/conversion.js';

export const isolatedTasks = {
  /** An import from its source to the files it writes (src/content/imports/conversion.ts). */
  convertImport,
};

export type IsolatedTasks = typeof isolatedTasks;
export type IsolatedTaskName = keyof IsolatedTasks;
