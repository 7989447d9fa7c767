/**
 * The JobQueue port: the work that must not block a request (imports, link and search indexing, OpenAPI fetching)
 * runs as jobs, on BullMQ when REDIS_URL is set and in-process (p-queue) otherwise. Both drivers run the same
 * processors (workers/processors.ts). Payloads carry ids only: a processor reloads the state it works on, so
 * running a job twice, or after a newer one, is harmless.
 */
import { DomainError, refusesRequest, ServiceUnavailable } from '../domain/errors.js';

/** Every job and its payload. */
export interface JobPayloads {
  /** Imports the source recorded in the content_imports row (website crawl, markdown, zip, docx...). */
  'import-content': { importId: string };
  /** Imports the whole git repository recorded in the repository_imports row (with its history). */
  'import-repository': { importId: string };
  /** Indexes the links of one revision (a commit) of a space: main's after a push or merge, a change request's. */
  'index-links': { spaceId: string; commit: string };
  /** Indexes the pages of a space's main revision for full-text search. */
  'index-search': { spaceId: string; commit: string };
  /** Fetches (URL source) or reads (text source) an OpenAPI specification and records a version when it changed. */
  'fetch-openapi': { specId: string; requestId: string };
  /** Periodic: queues a fetch of every OpenAPI specification whose source is a URL. */
  'refresh-openapi-specs': Record<string, never>;
  /** Runs Git Sync for a connected space whose main moved to `commit` (the commit makes each move's job its own). */
  'git-sync': { spaceId: string; commit: string };
  /** Periodic: reads every connected repository's branches and queues the Git Sync runs that have something to do. */
  'poll-git-sync': Record<string, never>;
  /** Mails a one-time password link to the account of this address, when there is one (the address is the request). */
  'send-password-reset-mail': { email: string };
}

export type JobName = keyof JobPayloads;

export const JOB_NAMES: readonly JobName[] = ['import-content', 'import-repository', 'index-links', 'index-search', 'fetch-openapi', 'refresh-openapi-specs', 'git-sync', 'poll-git-sync', 'send-password-reset-mail'];

export type Job<N extends JobName = JobName> = N extends JobName ? { name: N; payload: JobPayloads[N] } : never;

/** Runs one job; the same function under both drivers. */
export type JobHandler = (job: Job) => Promise<void>;

/**
 * A job's identity for de-duplication: a job whose key equals that of a job still waiting or running is not queued
 * again. Built from the name and the payload's values, so `index-links` of one commit is queued once.
 * Dots separate the parts: ids never contain one, and BullMQ refuses `:` in job ids.
 */
export function jobKey(job: Job): string {
  const payload = job.payload as Record<string, string>;
  return [job.name, ...Object.keys(payload).sort().map((key) => payload[key])].join('.');
}

export interface QueueOptions {
  /** Tries per job before it fails for good (permanent failures are not retried). */
  attempts: number;
  /** Delay before the first retry; each further retry waits twice as long as the previous one. */
  retryDelayMs: number;
}

export interface JobQueue {
  readonly driver: 'in-process' | 'bullmq';
  /**
   * Queues a job and returns once it is queued (not run). A job with the same key still waiting or running is not
   * queued twice. Throws ServiceUnavailable (503) within about a second when the queue cannot be reached.
   */
  enqueue(job: Job): Promise<void>;
  /**
   * Queues a job now or, while the queue is unreachable, keeps it in this process (by key, so once, and a bounded
   * number) and queues it as soon as the queue answers again. Never throws. For work that follows a change already
   * made (indexing after a push), which a queue outage must not fail: 'kept' when it waits for the queue, 'dropped'
   * when it could not be kept (too many kept already, or the process is stopping), so it must be found again by
   * reading what is stored (the catch-up, queueMissedIndexing), as after a restart.
   */
  enqueueWhenReachable(job: Job): Promise<'queued' | 'kept' | 'dropped'>;
  /**
   * Queues a job (never de-duplicated) and waits until it has finished. Throws the processor's DomainError when it
   * failed with one (a 4xx reason: bad source, unreachable URL...), ServiceUnavailable when the queue is unreachable
   * or the job did not finish within `timeoutMs`.
   */
  run(job: Job, options?: { timeoutMs?: number }): Promise<void>;
  /** Queues `job` every `intervalMs` (replacing an earlier schedule of the same job). */
  every(job: Job, intervalMs: number): Promise<void>;
  /**
   * Resolves when the jobs this process queued and runs itself have all finished (in-process); at once when other
   * processes run them (BullMQ workers).
   */
  idle(): Promise<void>;
  /** Stops taking jobs and waits (up to `graceMs`) for running ones to finish. */
  close(graceMs?: number): Promise<void>;
}

/** Thrown by a processor for a failure that retrying cannot mend (the job fails at once, with this reason). */
export class PermanentJobFailure extends Error {}

/** Whether retrying `error` is pointless: the processor said so, or it is a client-side domain error. */
export function isPermanent(error: unknown): boolean {
  return error instanceof PermanentJobFailure || refusesRequest(error);
}

/**
 * A failure as text that survives a trip through Redis: DomainErrors keep their code, message and data, so a caller
 * waiting on a BullMQ job rethrows the same error the processor threw.
 */
export function encodeFailure(error: unknown): string {
  if (error instanceof DomainError) return JSON.stringify({ quireError: error.code, message: error.message, data: error.data });
  return error instanceof Error ? error.message : String(error);
}

export function decodeFailure(reason: string): Error {
  try {
    const parsed = JSON.parse(reason) as { quireError?: string; message?: string; data?: Record<string, unknown> };
    if (parsed && typeof parsed.quireError === 'string' && typeof parsed.message === 'string') {
      return new DomainError(parsed.quireError as DomainError['code'], parsed.message, parsed.data ?? {});
    }
  } catch {
    // Not an encoded DomainError: a plain reason.
  }
  return new Error(reason);
}

export function queueUnavailable(detail: string): ServiceUnavailable {
  return new ServiceUnavailable(`jobs: the job queue is unreachable (${detail}); try again shortly`);
}
