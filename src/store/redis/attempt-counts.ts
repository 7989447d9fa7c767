/**
 * Attempts counted in Redis, so that every process of an installation shares one count (behind a load
 * balancer, N processes counting apart would allow N times the guesses). A window is a key that expires: the first
 * attempt sets it to 0 with the window's expiry (SET NX PX), and each attempt increments it (INCR keeps the expiry),
 * in one transaction that answers the count.
 * Keys are hashes of what they count, under the installation's prefix: no e-mail address is stored in Redis.
 *
 * A Redis that cannot be reached never blocks signing in: the counts then fall back to this process's (`fallback`)
 * for a while before Redis is asked again, and the failure is reported once until Redis answers again.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { AttemptCounts, Window } from '../../domain/identity/sign-in-limits.js';

/** How long an attempt waits for Redis before it is counted in this process instead. */
const COMMAND_TIMEOUT_MS = 1000;
/** After Redis failed to answer, attempts are counted in this process this long before Redis is asked again. */
const RETRY_AFTER_MS = 10_000;

export class RedisAttemptCounts implements AttemptCounts {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly warn: (message: string) => void;
  /** When Redis failed to answer: until then, the fallback counts without waiting for it. */
  private failedAt: number | undefined;

  constructor(
    options: { redisUrl: string; prefix: string; warn: (message: string) => void },
    private readonly fallback: AttemptCounts,
  ) {
    this.prefix = `${options.prefix}:attempts:`;
    this.warn = options.warn;
    // A command waits a moment for a connection (the first ones are sent as it opens), then the fallback counts.
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
    // Reported by the commands that fail (once, see `shared`): the connection's own errors say nothing more.
    this.redis.on('error', () => undefined);
  }

  async read(key: string): Promise<Window | undefined> {
    const redisKey = this.keyOf(key);
    return this.shared(
      async () => {
        const [attempts, msLeft] = answers(await this.redis.multi().get(redisKey).pttl(redisKey).exec());
        return attempts === null || Number(msLeft) <= 0 ? undefined : { attempts: Number(attempts), msLeft: Number(msLeft) };
      },
      () => this.fallback.read(key),
    );
  }

  async add(key: string, windowMs: number): Promise<Window> {
    const redisKey = this.keyOf(key);
    return this.shared(
      async () => {
        const [, attempts, msLeft] = answers(await this.redis.multi().set(redisKey, 0, 'PX', windowMs, 'NX').incr(redisKey).pttl(redisKey).exec());
        return { attempts: Number(attempts), msLeft: Number(msLeft) };
      },
      () => this.fallback.add(key, windowMs),
    );
  }

  async clear(key: string): Promise<void> {
    await this.shared(
      async () => {
        await this.redis.del(this.keyOf(key));
      },
      () => this.fallback.clear(key),
    );
    // What was counted here while Redis was away goes too.
    await this.fallback.clear(key);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  private keyOf(key: string): string {
    return this.prefix + crypto.createHash('sha256').update(key).digest('base64url');
  }

  private async shared<T>(inRedis: () => Promise<T>, here: () => Promise<T>): Promise<T> {
    if (this.failedAt !== undefined && Date.now() - this.failedAt < RETRY_AFTER_MS) return here();
    try {
      const answer = await inRedis();
      this.failedAt = undefined;
      return answer;
    } catch (error) {
      if (this.failedAt === undefined) this.warn(`sign-in limits: Redis did not answer (${(error as Error).message}); counting in this process until it does`);
      this.failedAt = Date.now();
      return here();
    }
  }
}

/** The answers of a transaction's commands, or its first error thrown. */
function answers(results: Array<[Error | null, unknown]> | null): unknown[] {
  if (!results) throw new Error('the transaction was discarded');
  return results.map(([error, answer]) => {
    if (error) throw error;
    return answer;
  });
}
