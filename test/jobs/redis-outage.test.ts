/**
 * Redis outages, on the real Redis behind a TCP proxy that the test cuts and restores (Redis keeps its data, as
 * when a network path fails): while Redis is unreachable, queueing answers ServiceUnavailable (within a second, by
 * the producer's timeout; not timed here, the machine is shared) instead of waiting for Redis to return;
 * jobs queued before the outage run after it; running workers reconnect by themselves; what follows a change already
 * made is kept meanwhile and queued, once, as soon as Redis answers again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BullMqQueue, startBullMqWorkers, type BullMqWorkers } from '../../src/jobs/bullmq.js';
import type { Job } from '../../src/jobs/jobs.js';
import { REDIS_TEST_URL, assertRedisReachable, removeRedisPrefix, uniqueRedisPrefix } from '../helpers/queues.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { sleep, waitFor } from '../helpers/wait.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ proxy: TcpProxy; queue: BullMqQueue; options: { redisUrl: string; prefix: string; attempts: number; retryDelayMs: number } }> {
  await assertRedisReachable();
  const target = new URL(REDIS_TEST_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  const options = { redisUrl: `redis://127.0.0.1:${proxy.port}`, prefix: uniqueRedisPrefix(), attempts: 3, retryDelayMs: 50 };
  const queue = new BullMqQueue(options);
  cleanups.push(async () => {
    await proxy.restore().catch(() => undefined);
    await queue.close();
    await proxy.close();
    await removeRedisPrefix(options.prefix);
  });
  return { proxy, queue, options };
}

function job(spaceId: string): Job {
  return { name: 'index-links', payload: { spaceId, commit: 'c1' } };
}

describe('Redis outage (bullmq)', () => {
  it('refuses new jobs while Redis is unreachable instead of holding them until it returns, and runs the jobs queued before it afterwards', async () => {
    const { proxy, queue, options } = await setup();
    await queue.enqueue(job('before-outage'));

    await proxy.cut();
    // Refused while Redis is still unreachable (it comes back only below), not held until it returns. How soon (the
    // producer's 800 ms timeout, PRODUCER_TIMEOUT_MS in src/jobs/bullmq.ts) is not timed here: the machine is shared.
    const refusal = await queue.enqueue(job('during-outage')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: 'ServiceUnavailable' });
    await expect(queue.run(job('run-during-outage'))).rejects.toMatchObject({ code: 'ServiceUnavailable' });

    await proxy.restore();
    const ran: string[] = [];
    const workers: BullMqWorkers = startBullMqWorkers(async (j) => void ran.push((j.payload as { spaceId: string }).spaceId), { ...options, concurrency: 2 });
    cleanups.push(() => workers.close());
    await waitFor(() => ran.includes('before-outage'), { what: 'the job queued before the outage' });
    expect(ran).not.toContain('during-outage');

    // The producer reconnects by itself: queueing works again without a restart.
    await waitFor(() => queue.enqueue(job('after-outage')).then(() => true, () => false), { what: 'queueing to work again' });
    await waitFor(() => ran.includes('after-outage'), { what: 'the job queued after the outage' });
  });

  it('keeps running workers through an outage: they reconnect and take the jobs queued after it', async () => {
    const { proxy, queue, options } = await setup();
    const ran: string[] = [];
    const workers = startBullMqWorkers(async (j) => void ran.push((j.payload as { spaceId: string }).spaceId), { ...options, concurrency: 2 });
    cleanups.push(() => workers.close(1000));
    await queue.enqueue(job('first'));
    await waitFor(() => ran.includes('first'), { what: 'the first job' });

    await proxy.cut();
    // The cut drops the workers' connections at once; the outage then lasts past their first reconnection attempt
    // (200 ms). Nothing marks that attempt from outside, so this one wait is a length of time, on purpose.
    await sleep(500);
    await proxy.restore();

    await waitFor(() => queue.enqueue(job('second')).then(() => true, () => false), { what: 'queueing to work again' });
    await waitFor(() => ran.includes('second'), { what: 'the job queued after the outage', timeoutMs: 15_000 });
  });

  it('keeps what could not be queued during the outage and queues it, once, as soon as Redis answers again', async () => {
    const { proxy, queue, options } = await setup();
    const ran: string[] = [];
    // One at a time: the jobs run in the order they were queued.
    const workers = startBullMqWorkers(async (j) => void ran.push((j.payload as { spaceId: string }).spaceId), { ...options, concurrency: 1 });
    cleanups.push(() => workers.close(1000));
    expect(await queue.enqueueWhenReachable(job('reachable'))).toBe('queued');
    await waitFor(() => ran.includes('reachable'), { what: 'the job queued while Redis answered' });

    await proxy.cut();
    expect(await queue.enqueueWhenReachable(job('during-outage'))).toBe('kept');
    // The same job again (a second push of the same commit, the catch-up): kept once.
    expect(await queue.enqueueWhenReachable(job('during-outage'))).toBe('kept');
    await proxy.restore();
    await waitFor(() => ran.includes('during-outage'), { what: 'the kept job to be queued and run', timeoutMs: 10_000 });

    // A job queued after it runs after it: the kept job was queued once, or a second run would come first.
    await queue.enqueue(job('after-outage'));
    await waitFor(() => ran.includes('after-outage'), { what: 'the job queued after the outage' });
    expect(ran).toEqual(['reachable', 'during-outage', 'after-outage']);
  });

  it('keeps a bounded number of jobs through a long outage, and drops the rest for the catch-up to find', async () => {
    const { proxy, queue } = await setup();
    await proxy.cut();
    const outcomes = await Promise.all(Array.from({ length: 10_001 }, (_, i) => queue.enqueueWhenReachable(job(`space${i}`))));
    expect(outcomes.filter((outcome) => outcome === 'kept')).toHaveLength(10_000);
    expect(outcomes.filter((outcome) => outcome === 'dropped')).toHaveLength(1);
    // Stopping gives up what is kept (the catch-up at the next start finds it) and keeps nothing more.
    await queue.close();
    expect(await queue.enqueueWhenReachable(job('after-close'))).toBe('dropped');
  });
});
