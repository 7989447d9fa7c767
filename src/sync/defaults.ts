/** `quire sync`'s timings, apart from the sync itself: the command line shows them without loading it. */
export const DEFAULT_DEBOUNCE_MS = 500;
export const DEFAULT_INTERVAL_MS = 2000;
