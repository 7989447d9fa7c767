/**
 * The job-queue drivers every processor suite runs under: in-process (p-queue) and BullMQ on the real Redis at
 * QUIRE_TEST_REDIS_URL (default 127.0.0.1:6379). Redis is required: a BullMQ suite fails, it is not skipped, when
 * the server is unreachable. Each test app gets its own key prefix, removed when it closes.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';

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
