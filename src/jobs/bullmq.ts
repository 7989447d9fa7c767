/**
 * The BullMQ driver (REDIS_URL set): one queue per job name, producers in every `quire serve`, workers in
 * `quire worker` processes (several may run at once; BullMQ hands each job to one of them).
 *
 * Redis outages: producers use a connection without an offline queue and a one-second limit, so an operation that
 * needs a job answers 503 at once instead of hanging, while everything else (which never touches Redis) keeps
 * working. Workers reconnect by themselves; the jobs Redis held before the outage run after it. What follows a change
 * already made (indexing after a push) is kept in memory meanwhile and queued as soon as Redis answers again.
 */
import { Queue, QueueEvents, UnrecoverableError, Worker, type JobsOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import {
  JOB_NAMES,
  decodeFailure,
  encodeFailure,
  isPermanent,
  jobKey,
  queueUnavailable,
  type Job,
  type JobHandler,
  type JobName,
  type JobQueue,
  type QueueOptions,
} from './jobs.js';
import { newId } from '../domain/ids.js';

export interface BullMqOptions extends QueueOptions {
  redisUrl: string;
  /** Prefix of every key (several installations or test runs may share one Redis). */
  prefix: string;
}

/**
 * How long a producer call may wait for Redis before the operation answers 503: below a second, so that the whole
 * answer, HTTP included, stays within the second that promise makes.
 */
const PRODUCER_TIMEOUT_MS = 800;

/**
 * Jobs kept while Redis is unreachable, at most: a bound on memory through a long outage with many pushes. Past it
 * a job is dropped, and the periodic catch-up finds its work from what is stored.
 */
const MAX_KEPT_JOBS = 10_000;

/**
 * How often kept jobs are tried again while the connection looks up: Redis that stopped answering without closing
 * the connection (a paused or overloaded server) never announces its return with a reconnection.
 */
const KEPT_RETRY_MS = 1000;

/** Kept jobs queued at once when Redis answers again (each is one round trip). */
const KEPT_BATCH = 100;

function queueName(name: JobName): string {
  return `quire-${name}`;
}

function producerConnection(url: string): Redis {
  const options: RedisOptions = {
    // Fail commands at once while disconnected instead of queueing them until Redis returns.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: PRODUCER_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  const redis = new Redis(url, options);
  redis.on('error', () => {
    // Reported to callers as 503 by the calls that fail; reconnection is automatic.
  });
  return redis;
}

function blockingConnection(url: string): Redis {
  // BullMQ's blocking reads need unlimited retries; they wait through outages and resume after them.
  const redis = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2000) });
  redis.on('error', () => {
    // Reconnection is automatic; workers log job failures, not connection noise.
  });
  return redis;
}

async function withinDeadline<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(queueUnavailable(`no answer from Redis within ${PRODUCER_TIMEOUT_MS} ms`)), PRODUCER_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, deadline]);
  } catch (error) {
    if (error instanceof Error && error.name === 'ServiceUnavailable') throw error;
    throw queueUnavailable(`${what}: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

export class BullMqQueue implements JobQueue {
  readonly driver = 'bullmq' as const;
  private readonly connection: Redis;
  private readonly queues = new Map<JobName, Queue>();
  private readonly events = new Map<JobName, QueueEvents>();
  private firstConnection?: Promise<void>;
  /** Jobs that could not be queued while Redis was unreachable, by key (a job kept twice is queued once). */
  private readonly kept = new Map<string, Job>();
  private keptRetry?: NodeJS.Timeout;
  private queueingKept?: Promise<void>;
  private closed = false;

  constructor(private readonly options: BullMqOptions) {
    this.connection = producerConnection(options.redisUrl);
    // ioredis says `ready` on every (re)connection: what the outage kept back is queued at once.
    this.connection.on('ready', () => void this.queueKept());
  }

  private queue(name: JobName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(queueName(name), { connection: this.connection, prefix: this.options.prefix, skipWaitingForReady: true });
      queue.on('error', () => {
        // Surfaced as 503 by the call that failed.
      });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Every job gets an id of its own; `deduplicateBy` (the job's key) keeps a second one out only while the first
   * waits or runs (BullMQ's deduplication, simple mode). A job id alone would also keep it out while a finished job
   * of that id stays in Redis: a failed indexing kept for inspection would drop the catch-up queued after it.
   */
  private jobOptions(jobId: string, deduplicateBy?: string): JobsOptions {
    return {
      // BullMQ refuses a custom id with ":" (its Redis keys are made of ids and ":"); keys come from payloads.
      jobId: jobId.replaceAll(':', '_'),
      ...(deduplicateBy ? { deduplication: { id: deduplicateBy } } : {}),
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.retryDelayMs },
      // Kept a while (ids are unique, so a kept job never stands in the way of a new one): `run` waits on the job's
      // outcome, and a job removed the moment it completed answered its waiter "Missing key for job".
      removeOnComplete: { age: 60 * 60, count: 1000 },
      removeOnFail: { age: 24 * 60 * 60, count: 1000 },
    };
  }

  /** Resolves once the producer connection is up (at start, or after an outage while it reconnects). */
  private async connected(): Promise<void> {
    const status = this.connection.status;
    if (status === 'ready') return;
    // Lost and retrying: fail at once (the caller answers 503) rather than wait for the next attempt.
    if (status === 'reconnecting' || status === 'close' || status === 'end') throw queueUnavailable(`Redis connection is ${status}`);
    // First connection still being made: one shared wait, bounded by the caller's deadline.
    this.firstConnection ??= new Promise<void>((resolve) => this.connection.once('ready', () => resolve()));
    await this.firstConnection;
  }

  private async add(job: Job, jobId: string, deduplicateBy?: string) {
    return withinDeadline(
      `queueing ${job.name}`,
      this.connected().then(() => this.queue(job.name).add(job.name, job.payload, this.jobOptions(jobId, deduplicateBy))),
    );
  }

  async enqueue(job: Job): Promise<void> {
    const key = jobKey(job);
    await this.add(job, `${key}.${newId()}`, key);
  }

  async enqueueWhenReachable(job: Job): Promise<'queued' | 'kept' | 'dropped'> {
    if (this.closed) return 'dropped';
    const key = jobKey(job);
    // A job of this key already kept waits its turn: queueing it now too would only be refused as a duplicate.
    if (this.kept.has(key)) return 'kept';
    try {
      await this.enqueue(job);
      return 'queued';
    } catch {
      if (this.closed || this.kept.size >= MAX_KEPT_JOBS) return 'dropped';
      this.kept.set(key, job);
      this.keptRetry ??= setInterval(() => {
        if (this.connection.status === 'ready') void this.queueKept();
      }, KEPT_RETRY_MS).unref();
      return 'kept';
    }
  }

  /** Queues the kept jobs: one pass at a time (a reconnection during a pass joins it); never rejects. */
  private queueKept(): Promise<void> {
    this.queueingKept ??= this.queueKeptPass().finally(() => (this.queueingKept = undefined));
    return this.queueingKept;
  }

  /** A batch at a time, until all are queued or one fails (Redis still unreachable: the next reconnection or retry goes on). */
  private async queueKeptPass(): Promise<void> {
    while (this.kept.size > 0 && !this.closed) {
      const batch: [string, Job][] = [];
      for (const entry of this.kept) if (batch.push(entry) === KEPT_BATCH) break;
      const outcomes = await Promise.allSettled(batch.map(([, job]) => this.enqueue(job)));
      outcomes.forEach((outcome, i) => outcome.status === 'fulfilled' && this.kept.delete(batch[i][0]));
      if (outcomes.some((outcome) => outcome.status === 'rejected')) return;
    }
    clearInterval(this.keptRetry);
    this.keptRetry = undefined;
  }

  async run(job: Job, options: { timeoutMs?: number } = {}): Promise<void> {
    const events = await withinDeadline(`waiting for ${job.name}`, this.queueEvents(job.name));
    const added = await this.add(job, `${jobKey(job)}.${newId()}`);
    try {
      await added.waitUntilFinished(events, options.timeoutMs);
    } catch (error) {
      const message = (error as Error).message;
      if (/timed out/i.test(message)) throw queueUnavailable(`${job.name} did not finish within ${options.timeoutMs} ms`);
      throw decodeFailure(message);
    }
  }

  async every(job: Job, intervalMs: number): Promise<void> {
    await withinDeadline(
      `scheduling ${job.name}`,
      this.connected().then(() => this.queue(job.name).upsertJobScheduler(jobKey(job), { every: intervalMs }, { name: job.name, data: job.payload })),
    );
  }

  /** Completion events of one queue, listened to before the first job of `run` is added (no event is missed). */
  private async queueEvents(name: JobName): Promise<QueueEvents> {
    let events = this.events.get(name);
    if (!events) {
      events = new QueueEvents(queueName(name), { connection: blockingConnection(this.options.redisUrl), prefix: this.options.prefix });
      events.on('error', () => {
        // Reconnects by itself.
      });
      this.events.set(name, events);
    }
    await events.waitUntilReady();
    return events;
  }

  /** Workers in other processes (or this one's, started apart) run the jobs: nothing here to wait for. */
  async idle(): Promise<void> {}

  async close(): Promise<void> {
    // Jobs still kept are given up: their work is found again from what is stored by the catch-up at the next start.
    this.closed = true;
    clearInterval(this.keptRetry);
    await this.queueingKept;
    await Promise.allSettled([...this.events.values()].map((events) => events.close()));
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
    this.connection.disconnect();
  }
}

export interface BullMqWorkers {
  /** Resolves once every worker is connected and taking jobs. */
  ready(): Promise<void>;
  close(graceMs?: number): Promise<void>;
}

/**
 * Workers for every queue, running `handle`. A processor's DomainError (a 4xx reason) fails the job at once and
 * travels to whoever waits on it; other failures are retried with exponential backoff.
 */
export function startBullMqWorkers(
  handle: JobHandler,
  options: BullMqOptions & { concurrency: number; onFailure?: (job: Job, error: unknown) => void },
): BullMqWorkers {
  const workers = JOB_NAMES.map((name) => {
    const worker = new Worker(
      queueName(name),
      async (bullJob) => {
        const job = { name, payload: bullJob.data } as Job;
        try {
          await handle(job);
        } catch (error) {
          const final = isPermanent(error) || bullJob.attemptsMade + 1 >= (bullJob.opts.attempts ?? 1);
          if (final) options.onFailure?.(job, error);
          if (isPermanent(error)) throw new UnrecoverableError(encodeFailure(error));
          throw new Error(encodeFailure(error), { cause: error });
        }
      },
      { connection: blockingConnection(options.redisUrl), prefix: options.prefix, concurrency: options.concurrency },
    );
    worker.on('error', () => {
      // Connection errors: the worker reconnects and resumes by itself.
    });
    return worker;
  });
  return {
    async ready() {
      await Promise.all(workers.map((worker) => worker.waitUntilReady()));
    },
    async close(graceMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const closing = Promise.allSettled(workers.map((worker) => worker.close()));
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          void Promise.allSettled(workers.map((worker) => worker.close(true)));
          resolve();
        }, graceMs);
      });
      await Promise.race([closing, forced]);
      clearTimeout(timer);
    },
  };
}
