/**
 * Turns for the writers of a busy space (src/store/git/pushes-under-way.ts): push advertisements wait while a push
 * is under way; when it ends the newest is answered alone, the older ones after a pause or the next push; nobody
 * waits past the limit.
 */
import { describe, expect, it } from 'vitest';
import { PushesUnderWay } from '../../src/store/git/pushes-under-way.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Which of the promises have settled, by index. */
function tracker(promises: Promise<void>[]): () => number[] {
  const settled = new Set<number>();
  promises.forEach((promise, i) => void promise.then(() => settled.add(i)));
  return () => [...settled].sort();
}

describe('turns of push advertisements', () => {
  it('answers at once when no push of the space is under way, whatever other spaces do', async () => {
    const turns = new PushesUnderWay();
    turns.begin('other');
    const started = Date.now();
    await turns.turnToAdvertise('space', 5_000);
    expect(Date.now() - started).toBeLessThan(50);
  });

  it('holds advertisements while a push is under way, then answers the newest alone; the next push releases the next', async () => {
    const turns = new PushesUnderWay();
    const end = turns.begin('space');
    const settled = tracker([0, 1, 2].map(() => turns.turnToAdvertise('space', 5_000)));
    await sleep(30);
    expect(settled()).toEqual([]);
    end();
    await sleep(10);
    expect(settled()).toEqual([2]);
    // The writer answered pushes: while its push is under way the others keep waiting, then the newest goes.
    const next = turns.begin('space');
    await sleep(10);
    expect(settled()).toEqual([2]);
    next();
    await sleep(10);
    expect(settled()).toEqual([1, 2]);
    // Nobody pushed after that answer: the last waits for the pause, then goes.
    await sleep(400);
    expect(settled()).toEqual([0, 1, 2]);
  });

  it('answers at once once no push is under way, and never later than the limit', async () => {
    const turns = new PushesUnderWay();
    turns.begin('space'); // never ends
    const started = Date.now();
    await turns.turnToAdvertise('space', 100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('counts concurrent pushes: advertisements wait until the last ends; ending twice counts once', async () => {
    const turns = new PushesUnderWay();
    const first = turns.begin('space');
    const second = turns.begin('space');
    const settled = tracker([turns.turnToAdvertise('space', 5_000)]);
    first();
    first();
    await sleep(20);
    expect(settled()).toEqual([]);
    second();
    await sleep(10);
    expect(settled()).toEqual([0]);
  });
});
