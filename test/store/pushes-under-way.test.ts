/**
 * Turns for the writers of a busy space (src/store/git/pushes-under-way.ts): push advertisements wait while a push
 * is under way; when it ends the newest is answered alone, the older ones after a pause or the next push; nobody
 * waits past the limit. On a fake clock: "at once", "after the pause" and "at the limit" are exact, whatever the load
 * of the machine.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PushesUnderWay } from '../../src/store/git/pushes-under-way.js';

/** The pause after which the older waiting advertisements go when no push started (HOLD_MS). */
const HOLD_MS = 250;

/** Which of the promises have settled, by index. */
function tracker(promises: Promise<void>[]): () => number[] {
  const settled = new Set<number>();
  promises.forEach((promise, i) => void promise.then(() => settled.add(i)));
  return () => [...settled].sort();
}

/** Lets `ms` of fake time pass, running the timers due and the promise callbacks they settle. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('turns of push advertisements', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers at once when no push of the space is under way, whatever other spaces do', async () => {
    const turns = new PushesUnderWay();
    turns.begin('other');
    const settled = tracker([turns.turnToAdvertise('space', 5_000)]);
    await elapse(0);
    expect(settled()).toEqual([0]);
  });

  it('holds advertisements while a push is under way, then answers the newest alone; the next push releases the next', async () => {
    const turns = new PushesUnderWay();
    const end = turns.begin('space');
    const settled = tracker([0, 1, 2].map(() => turns.turnToAdvertise('space', 5_000)));
    await elapse(1_000);
    expect(settled()).toEqual([]);
    end();
    await elapse(0);
    expect(settled()).toEqual([2]);
    // The writer answered pushes: while its push is under way the others keep waiting, then the newest goes.
    const next = turns.begin('space');
    await elapse(1_000);
    expect(settled()).toEqual([2]);
    next();
    await elapse(0);
    expect(settled()).toEqual([1, 2]);
    // Nobody pushed after that answer: the last waits for the pause, then goes.
    await elapse(HOLD_MS - 1);
    expect(settled()).toEqual([1, 2]);
    await elapse(1);
    expect(settled()).toEqual([0, 1, 2]);
  });

  it('answers at once once no push is under way, and never later than the limit', async () => {
    const turns = new PushesUnderWay();
    turns.begin('space'); // never ends
    const settled = tracker([turns.turnToAdvertise('space', 100)]);
    await elapse(99);
    expect(settled()).toEqual([]);
    await elapse(1);
    expect(settled()).toEqual([0]);
  });

  it('counts concurrent pushes: advertisements wait until the last ends; ending twice counts once', async () => {
    const turns = new PushesUnderWay();
    const first = turns.begin('space');
    const second = turns.begin('space');
    const settled = tracker([turns.turnToAdvertise('space', 5_000)]);
    first();
    first();
    await elapse(1_000);
    expect(settled()).toEqual([]);
    second();
    await elapse(0);
    expect(settled()).toEqual([0]);
  });
});
