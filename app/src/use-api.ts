/**
 * A read of the API for a view: re-asked when its key changes, aborted when the view goes. Asked again by `reload`
 * (after a write, or when a live event says something changed), the value already shown stays until the new one
 * comes: what the reader is doing (a focused button, a half-written reply) is not swept away by a loading state.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

export type Loaded<T> = { state: 'loading' } | { state: 'done'; value: T } | { state: 'failed'; error: ApiError | Error };

export function useApi<T>(key: string | undefined, load: (signal: AbortSignal) => Promise<T>): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  const shownKey = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (key === undefined) return;
    const controller = new AbortController();
    if (shownKey.current !== key) setLoaded({ state: 'loading' });
    shownKey.current = key;
    load(controller.signal).then(
      (value) => !controller.signal.aborted && setLoaded({ state: 'done', value }),
      (error: Error) => !controller.signal.aborted && setLoaded({ state: 'failed', error }),
    );
    return () => controller.abort();
  }, [key, round]);
  return [loaded, () => setRound((r) => r + 1)];
}
