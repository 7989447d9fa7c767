import type { ComponentChildren } from 'preact';
import type { Loaded } from '../use-api.js';

export function Failure({ error }: { error: Error }) {
  return (
    <div class="notice notice-error" role="alert">
      {error.message}
    </div>
  );
}

/** What went wrong with something the reader just did, said where screen readers hear it at once; nothing when fine. */
export function ErrorNotice({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="notice notice-error" role="alert">
      {message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** Shows a read's value when it is there, what is happening otherwise. */
export function Show<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (value: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'failed') return <Failure error={loaded.error} />;
  return <>{children(loaded.value)}</>;
}
