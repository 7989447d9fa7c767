/**
 * The waiting helpers the suites share (test/helpers/wait.ts): a wait returns what it waited for as soon as it is
 * there, and a wait that times out says what it waited for and what it saw last.
 */
import { describe, expect, it, vi } from 'vitest';
import { deferred, nextMillisecond, waitFor } from './wait.js';

describe('waitFor', () => {
  it('returns the first truthy answer, checking at once and then again until it comes', async () => {
    let checks = 0;
    const value = await waitFor(() => (++checks === 3 ? { ready: true } : null), { what: 'the third check', intervalMs: 1 });
    expect(value).toEqual({ ready: true });
    expect(checks).toBe(3);
  });

  it('returns the answer `until` accepts, awaiting asynchronous checks', async () => {
    let n = 0;
    expect(await waitFor(async () => ++n, { until: (value) => value >= 2, what: 'two', intervalMs: 1 })).toBe(2);
  });

  it('names what it waited for and the last answer when it times out', async () => {
    const error = await waitFor(() => ({ state: 'pending' }), {
      until: (spec) => spec.state === 'complete',
      what: 'the spec to be processed',
      timeoutMs: 30,
      intervalMs: 5,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^timed out after \d+ ms \(\d+ checks\) waiting for the spec to be processed; last value: \{"state":"pending"\}$/);
  });

  it('fails at once when a check throws', async () => {
    let checks = 0;
    const failing = waitFor(
      () => {
        checks += 1;
        throw new Error('the server exited');
      },
      { what: 'anything' },
    );
    await expect(failing).rejects.toThrow('the server exited');
    expect(checks).toBe(1);
  });

  it('waits on real time while the test fakes the timers', async () => {
    vi.useFakeTimers();
    try {
      let checks = 0;
      await waitFor(() => ++checks === 2, { what: 'a second check', intervalMs: 1 });
      expect(checks).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('deferred and nextMillisecond', () => {
  it('settles a promise when the test says so', async () => {
    const gate = deferred<string>();
    let seen: string | undefined;
    const waiting = gate.promise.then((value) => (seen = value));
    await Promise.resolve();
    expect(seen).toBeUndefined();
    gate.resolve('open');
    await waiting;
    expect(seen).toBe('open');
  });

  it('resolves once the clock shows a later millisecond', async () => {
    const before = Date.now();
    await nextMillisecond();
    expect(Date.now()).toBeGreaterThan(before);
  });
});
