const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A moment as a reader's locale writes it, machine-readable too. */
export function Time({ at }: { at: string }) {
  return <time dateTime={at}>{FORMAT.format(new Date(at))}</time>;
}
