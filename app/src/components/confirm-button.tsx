import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A destructive action in two steps: the button asks first ("Remove Ada?") and acts only on the second, explicit
 * choice; focus moves to that choice and back to the button when the reader cancels.
 */
export function ConfirmButton({ label, question, confirmLabel, onConfirm }: { label: string; question: string; confirmLabel: string; onConfirm: () => unknown }) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  const [returning, setReturning] = useState(false);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (returning) ask.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="button" ref={ask} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        class="button button-danger"
        ref={confirm}
        onClick={async () => {
          await onConfirm();
          setAsking(false);
        }}
      >
        {confirmLabel}
      </button>
      <button
        type="button"
        class="button"
        onClick={() => {
          setReturning(true);
          setAsking(false);
        }}
      >
        Cancel
      </button>
    </span>
  );
}
