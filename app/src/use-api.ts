/** A read of the API for a view: re-asked when its key changes, aborted when the view goes. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

export type Loaded<T> = { state: 'loading' } | { state: 'done'; value: T } | { state: 'failed'; error: ApiError | Error };

export function useApi<T>(key: string | undefined, load: (signal: AbortSignal) => Promise<T>): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (key === undefined) return;
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    load(controller.signal).then(
      (value) => !controller.signal.aborted && setLoaded({ state: 'done', value }),
      (error: Error) => !controller.signal.aborted && setLoaded({ state: 'failed', error }),
    );
    return () => controller.abort();
  }, [key, round]);
  return [loaded, () => setRound((r) => r + 1)];
}
