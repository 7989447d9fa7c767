/**
 * Sign-in attempts counted in a real Redis (QUIRE_TEST_REDIS_URL, as the BullMQ suites): two processes' counts are
 * one, guesses sent at once to both are counted before any is tried, no e-mail address is written in Redis, a window
 * ends by itself, and a Redis that does not answer leaves the counting to the process, said once.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisAttemptCounts } from '../../src/store/redis/attempt-counts.js';
import { MemoryAttemptCounts } from '../../src/domain/identity/memory-attempt-counts.js';
import { SignInLimits } from '../../src/domain/identity/sign-in-limits.js';
import { assertRedisReachable, REDIS_TEST_URL, removeRedisPrefix, uniqueRedisPrefix } from '../helpers/queues.js';
import { waitFor } from '../helpers/wait.js';

const RULES = { perEmail: 5, perAddress: 30, windowMs: 60_000 };

describe('attempt counts in Redis', () => {
  const prefix = uniqueRedisPrefix();
  const stores: RedisAttemptCounts[] = [];
  const store = (url = REDIS_TEST_URL, warn: (message: string) => void = () => undefined) => {
    const made = new RedisAttemptCounts({ redisUrl: url, prefix, warn }, new MemoryAttemptCounts());
    stores.push(made);
    return made;
  };

  beforeAll(async () => assertRedisReachable());
  afterAll(async () => {
    for (const made of stores) await made.close();
    await removeRedisPrefix(prefix);
  });

  it('counts the attempts of two processes as one, guesses sent at once included, and stores no address', async () => {
    const a = new SignInLimits(store(), 'sign-in', RULES);
    const b = new SignInLimits(store(), 'sign-in', RULES);
    const waits = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).attempt('ada@example.com', `10.0.0.${i}`)));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(RULES.perEmail);
    expect(waits.filter((wait) => wait > 0).every((wait) => wait > 0 && wait <= 60)).toBe(true);
    // A success on one process starts the address afresh on the other.
    await a.succeeded('ada@example.com');
    expect(await b.attempt('ada@example.com', '10.0.0.1')).toBe(0);

    const redis = new Redis(REDIS_TEST_URL);
    try {
      const keys = await redis.keys(`${prefix}:attempts:*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.join(' ')).not.toMatch(/ada|example|10\.0\.0/);
    } finally {
      redis.disconnect();
    }
  });

  it('ends a window by itself (the key expires)', async () => {
    const counts = store();
    const limits = new SignInLimits(counts, 'short', { perEmail: 1, perAddress: 30, windowMs: 300 });
    expect(await limits.attempt('bob@example.com', '10.0.0.1')).toBe(0);
    expect(await limits.attempt('bob@example.com', '10.0.0.1')).toBe(1);
    await waitFor(() => counts.read('short:email:bob@example.com'), { what: 'the window to end', until: (window) => window === undefined });
    expect(await limits.attempt('bob@example.com', '10.0.0.1')).toBe(0);
  });

  it('counts in the process while Redis does not answer, and says so once', async () => {
    const warnings: string[] = [];
    const limits = new SignInLimits(store('redis://127.0.0.1:1', (message) => warnings.push(message)), 'sign-in', RULES);
    const waits: number[] = [];
    for (let i = 0; i < RULES.perEmail + 2; i++) waits.push(await limits.attempt('carol@example.com', '10.0.0.1'));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(RULES.perEmail);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^sign-in limits: Redis did not answer/);
  });
});
