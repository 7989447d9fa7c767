/**
 * The errors of isolated tasks (./isolated-tasks.ts) that come back to the caller as themselves: such an error crosses
 * from the thread as its name, message and data, and is made again on this side, so that the caller tells it apart as
 * it would the same error thrown inline (the domain turns an import's refusal into its own error). Any other error of
 * a task comes back as an Error that names the task.
 */
import { ImportRefused } from '../content/imports/import-refused.js';

type CrossingError = new (message: string, data?: Readonly<Record<string, unknown>>) => Error & { readonly data: Readonly<Record<string, unknown>> };

const crossing = { ImportRefused } satisfies Record<string, CrossingError>;

export type CrossingErrorName = keyof typeof crossing;

/** What crosses of `error` (in the thread): its name and data when it is one of the errors above. */
export function crossingError(error: unknown): { error: CrossingErrorName; data: Readonly<Record<string, unknown>> } | undefined {
  for (const [name, type] of Object.entries(crossing) as Array<[CrossingErrorName, CrossingError]>) {
    if (error instanceof type) return { error: name, data: error.data };
  }
  return undefined;
}

/** The error made again (on the caller's side) from what crossed. */
export function errorFromThread(name: CrossingErrorName, message: string, data: Readonly<Record<string, unknown>>): Error {
  return new crossing[name](message, data);
}
