/**
 * Waiting in tests: for a condition or an event, never for a length of time. A test that sleeps "long enough" for
 * something to happen is slow on a quiet machine and flaky on a loaded one (the suites share two cores with other
 * test files); a test that waits for the thing itself is as fast as the system and fails only when the thing never
 * comes.
 *
 * - `waitFor(check, { what })`: checks again and again (the first time at once) until `check` answers something
 *   truthy (or what `until` accepts), and returns it; after `timeoutMs` it throws, naming `what` and the last answer.
 * - `deferred()`: a promise the test settles itself (a handler held until the test lets it finish, a route that
 *   answers when told), so that "while X is under way" is a state the test controls instead of a race it hopes to win.
 * - `nextMillisecond()`: for rows ordered by a millisecond timestamp, waits until the clock has moved on.
 * - `sleep(ms)`: not for waiting on something. Only for simulated work (a fake handler that takes time), pacing a
 *   probe that runs beside the work, or a short window in which something must NOT happen when nothing marks the end
 *   of that window; say why where it is used.
 *
 * Timers here are node's own (node:timers, node:perf_hooks), so waiting works while a test fakes the global timers.
 */
import { setTimeout as nodeSetTimeout } from 'node:timers';
import { performance } from 'node:perf_hooks';

export interface WaitOptions {
  /** What is awaited, for the failure ("the search index to hold the push"). */
  what: string;
  /** How long to keep checking (default 10 s; the suites' test timeout is 30 s). */
  timeoutMs?: number;
  /** Pause between two checks, in ms (default 20). */
  intervalMs?: number;
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_INTERVAL_MS = 20;

/** Resolves after `ms` milliseconds of real time (see the module's comment for when that is right). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => nodeSetTimeout(resolve, ms));
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  let text: string;
  try {
    text = value === undefined ? 'undefined' : typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}... (${text.length} characters)` : text;
}

/**
 * Checks `check` until its answer is accepted (truthy, or what `until` says), and returns that answer. A check that
 * throws fails the wait at once (an error is a failure, not a "not yet"). On timeout, throws an error naming `what`
 * and the last answer seen.
 */
export function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions & { until: (value: T) => boolean }): Promise<T>;
export function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions): Promise<Truthy<T>>;
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions & { until?: (value: T) => boolean }): Promise<T> {
  const { what, timeoutMs = DEFAULT_TIMEOUT_MS, intervalMs = DEFAULT_INTERVAL_MS, until = (value: T) => Boolean(value) } = options;
  const started = performance.now();
  let checks = 0;
  for (;;) {
    const value = await check();
    checks += 1;
    if (until(value)) return value;
    const waited = performance.now() - started;
    if (waited >= timeoutMs) {
      throw new Error(`timed out after ${Math.round(waited)} ms (${checks} checks) waiting for ${what}; last value: ${describe(value)}`);
    }
    await sleep(Math.min(intervalMs, Math.max(1, timeoutMs - waited)));
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A promise settled by the test (Promise.withResolvers, which Node 20 lacks). */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * Resolves once Date.now() has moved past its value at the call: a row written afterwards gets a later millisecond
 * timestamp than one written before (for lists ordered by creation or update time, where a tie would be ordered by a
 * random id).
 */
export async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  await waitFor(() => Date.now() > now, { what: 'the clock to reach the next millisecond', intervalMs: 1 });
}
