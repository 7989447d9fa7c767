/**
 * The job-queue drivers every processor suite runs under: in-process (p-queue) and BullMQ on the real Redis at
 * QUIRE_TEST_REDIS_URL (default 127.0.0.1:6379). Redis is required: a BullMQ suite fails, it is not skipped, when
 * the server is unreachable. Each test app gets its own key prefix, removed when it closes.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { JobName } from '../../src/jobs/jobs.js';
import { waitFor } from './wait.js';

export type QueueDriver = 'in-process' | 'bullmq';

export const QUEUE_DRIVERS: QueueDriver[] = ['in-process', 'bullmq'];

export const REDIS_TEST_URL = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniqueRedisPrefix(): string {
  return `quire-test-${crypto.randomBytes(6).toString('hex')}`;
}

/** Fails with a clear message when the test Redis is unreachable. */
export async function assertRedisReachable(url = REDIS_TEST_URL): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is required for the BullMQ suites and is not reachable at ${url}: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
}

/** Removes every key under `prefix` (what a test app's queues left in Redis). */
export async function removeRedisPrefix(prefix: string, url = REDIS_TEST_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Resolves once no job named in `names` is waiting, delayed or running in the queue of an app (test/helpers/app.ts):
 * the in-process queue says so itself (idle); on BullMQ its counts in Redis are read until they are zero. For a test
 * that must know a job it cannot see has finished (a fetch whose result is to be dropped). At least one job of those
 * names must have been queued, so that reading the wrong queue cannot pass for an empty one.
 */
export async function jobsSettled(
  app: { queue: QueueDriver; container: { ctx: { jobs: { idle(): Promise<void> } } }; config: { redisUrl?: string; redisPrefix?: string } },
  names: JobName[],
): Promise<void> {
  if (app.queue === 'in-process') {
    await app.container.ctx.jobs.idle();
    return;
  }
  // Loaded here only: most suites import this module and never read BullMQ's counts.
  const { Queue } = await import('bullmq');
  const connection = new Redis(app.config.redisUrl ?? REDIS_TEST_URL, { maxRetriesPerRequest: null });
  // The queues' names as src/jobs/bullmq.ts makes them.
  const queues = names.map((name) => new Queue(`quire-${name}`, { connection, prefix: app.config.redisPrefix }));
  try {
    await waitFor(
      async () => {
        const counts = await Promise.all(queues.map((queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed')));
        const open = counts.reduce((sum, c) => sum + c.waiting + c.active + c.delayed + c.prioritized + c['waiting-children'], 0);
        const seen = counts.reduce((sum, c) => sum + c.completed + c.failed, 0) + open;
        if (seen === 0) throw new Error(`no ${names.join(' or ')} job was ever queued under the prefix ${app.config.redisPrefix}: the wrong queue?`);
        return open;
      },
      { until: (open) => open === 0, what: `the ${names.join(', ')} jobs to finish` },
    );
  } finally {
    await Promise.all(queues.map((queue) => queue.close()));
    connection.disconnect();
  }
}
