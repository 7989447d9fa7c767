/**
 * Work shared while it runs (src/domain/shared-work.ts) and commit facts asked once (RevisionCache.contains): both
 * owned by the container, so nothing is shared between two containers of one process.
 */
import { describe, expect, it } from 'vitest';
import { SharedWork } from '../../src/domain/shared-work.js';
import { RevisionCache } from '../../src/domain/content/revisions.js';
import { deferred } from '../helpers/wait.js';

describe('shared work', () => {
  it('gives concurrent callers of one key the same run, and runs again once it settled', async () => {
    const shared = new SharedWork();
    let runs = 0;
    // The first run is held until both callers have asked.
    const held = deferred();
    const work = async () => {
      runs++;
      await held.promise;
      return runs;
    };
    const both = Promise.all([shared.run('k', work), shared.run('k', work)]);
    held.resolve();
    const [a, b] = await both;
    expect([a, b, runs]).toEqual([1, 1, 1]);
    expect(await shared.run('other', work)).toBe(2);
    expect(await shared.run('k', work)).toBe(3);
  });

  it('runs each caller\'s work in turn per key, after a failed one too, and other keys beside it', async () => {
    const shared = new SharedWork();
    const order: string[] = [];
    const held = deferred();
    const first = shared.inTurn('k', async () => {
      order.push('first starts');
      await held.promise;
      order.push('first ends');
      throw new Error('first failed');
    });
    const second = shared.inTurn('k', async () => {
      order.push('second');
      return 2;
    });
    const other = shared.inTurn('other', async () => {
      order.push('other');
      return 3;
    });
    expect(await other).toBe(3);
    expect(order).toEqual(['first starts', 'other']);
    held.resolve();
    await expect(first).rejects.toThrow('first failed');
    expect(await second).toBe(2);
    expect(order).toEqual(['first starts', 'other', 'first ends', 'second']);
  });

  it('shares a fresh run among callers: one arriving while a run is under way waits for it, then shares the next with the others', async () => {
    const shared = new SharedWork();
    const started: string[] = [];
    const held = { first: deferred(), next: deferred() };
    const first = shared.fresh('k', async () => {
      started.push('first');
      await held.first.promise;
      return 'first';
    });
    // Asked while the first runs: they may miss what changed since it began, so they share the next run, not it.
    const next = async () => {
      started.push('next');
      await held.next.promise;
      throw new Error('next failed');
    };
    const late = [shared.fresh('k', next), shared.fresh('k', next)];
    // Other keys run beside them.
    expect(await shared.fresh('other', async () => (started.push('other'), 'other'))).toBe('other');
    expect(started).toEqual(['first', 'other']);
    held.first.resolve();
    expect(await first).toBe('first');
    held.next.resolve();
    for (const call of late) await expect(call).rejects.toThrow('next failed');
    expect(started).toEqual(['first', 'other', 'next']);
    // The key is free once both settled.
    expect(await shared.fresh('k', async () => 'again')).toBe('again');
  });

  it('frees the key when the work fails, and keeps two instances apart', async () => {
    const shared = new SharedWork();
    await expect(shared.run('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await shared.run('k', async () => 'again')).toBe('again');
    const held = deferred<string>();
    const slow = new SharedWork().run('k', () => held.promise);
    expect(await new SharedWork().run('k', async () => 'second')).toBe('second');
    held.resolve('first');
    expect(await slow).toBe('first');
  });
});

describe('commit facts', () => {
  it('asks once per pair, and again after a failed ask', async () => {
    const cache = new RevisionCache();
    let asks = 0;
    const ask = async () => (asks++, true);
    expect(await cache.contains('s:a:b', ask)).toBe(true);
    expect(await cache.contains('s:a:b', ask)).toBe(true);
    expect(asks).toBe(1);
    await expect(cache.contains('s:c:d', () => Promise.reject(new Error('git failed')))).rejects.toThrow('git failed');
    // Asked again by the next caller, as soon as the failure reached the one before.
    expect(await cache.contains('s:c:d', ask)).toBe(true);
    expect(asks).toBe(2);
  });
});
