/**
 * What a task of an isolated thread (src/cpu/isolated-tasks.ts) calls the other side through: functions of the event
 * loop's side by name (see HostCalls in src/cpu/isolated.ts). A module of its own so that the tasks can name it
 * without importing the registry of tasks that imports them.
 */
export interface TaskHost {
  call(name: string, arg?: unknown): Promise<unknown>;
}
