/**
 * Redis outages, on the real Redis behind a TCP proxy that the test cuts and restores (Redis keeps its data, as
 * when a network path fails): while Redis is unreachable, queueing answers ServiceUnavailable within a second;
 * jobs queued before the outage run after it; running workers reconnect by themselves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BullMqQueue, startBullMqWorkers, type BullMqWorkers } from '../../src/jobs/bullmq.js';
import type { Job } from '../../src/jobs/jobs.js';
import { REDIS_TEST_URL, assertRedisReachable, removeRedisPrefix, uniqueRedisPrefix } from '../helpers/queues.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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
  it('refuses new jobs within a second while Redis is unreachable, and runs the jobs queued before it afterwards', async () => {
    const { proxy, queue, options } = await setup();
    await queue.enqueue(job('before-outage'));

    await proxy.cut();
    const started = Date.now();
    const refusal = await queue.enqueue(job('during-outage')).then(
      () => undefined,
      (error: unknown) => error,
    );
    const elapsed = Date.now() - started;
    expect(refusal).toMatchObject({ code: 'ServiceUnavailable', status: 503 });
    expect(elapsed).toBeLessThan(1000);
    await expect(queue.run(job('run-during-outage'))).rejects.toMatchObject({ status: 503 });

    await proxy.restore();
    const ran: string[] = [];
    const workers: BullMqWorkers = startBullMqWorkers(async (j) => void ran.push((j.payload as { spaceId: string }).spaceId), { ...options, concurrency: 2 });
    cleanups.push(() => workers.close());
    await until(() => ran.includes('before-outage'), 'the job queued before the outage');
    expect(ran).not.toContain('during-outage');

    // The producer reconnects by itself: queueing works again without a restart.
    await until(() => queue.enqueue(job('after-outage')).then(() => true, () => false), 'queueing to work again');
    await until(() => ran.includes('after-outage'), 'the job queued after the outage');
  });

  it('keeps running workers through an outage: they reconnect and take the jobs queued after it', async () => {
    const { proxy, queue, options } = await setup();
    const ran: string[] = [];
    const workers = startBullMqWorkers(async (j) => void ran.push((j.payload as { spaceId: string }).spaceId), { ...options, concurrency: 2 });
    cleanups.push(() => workers.close(1000));
    await queue.enqueue(job('first'));
    await until(() => ran.includes('first'), 'the first job');

    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await proxy.restore();

    await until(() => queue.enqueue(job('second')).then(() => true, () => false), 'queueing to work again');
    await until(() => ran.includes('second'), 'the job queued after the outage', 15_000);
  });
});
