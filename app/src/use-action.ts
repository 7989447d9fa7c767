/** A write the reader starts (a button, a form): what went wrong, to show with ErrorNotice, and whether it is running. */
import { useState } from 'preact/hooks';

export interface Action {
  error: string | undefined;
  busy: boolean;
  /** Runs the write; a failure becomes `error` (cleared on the next run), success returns the write's value. */
  run<T>(write: () => Promise<T>): Promise<T | undefined>;
}

export function useAction(): Action {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return {
    error,
    busy,
    async run(write) {
      setBusy(true);
      setError(undefined);
      try {
        return await write();
      } catch (failure) {
        setError((failure as Error).message);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** The named fields of a submitted form, as strings. */
export function formFields(event: Event): Record<string, string> {
  event.preventDefault();
  const fields: Record<string, string> = {};
  for (const [name, value] of new FormData(event.currentTarget as HTMLFormElement)) fields[name] = String(value);
  return fields;
}
