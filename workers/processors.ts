/**
 * One thin processor per job, used unchanged by both drivers: each reloads what it works on from the ids in its
 * payload and calls one domain function.
 */
import type { Context } from '../src/domain/context.js';
import type { JobHandler } from '../src/jobs/jobs.js';
import { importContentJob } from './import-content.js';
import { importRepositoryJob } from './import-repository.js';
import { indexLinksJob } from './index-links.js';
import { indexSearchJob } from './index-search.js';
import { fetchOpenApiJob, refreshOpenApiSpecsJob } from './openapi.js';
import { gitSyncJob, pollGitSyncJob } from './git-sync.js';
import { sendPasswordResetMailJob } from './password-reset-mail.js';

export function jobHandler(ctx: Context): JobHandler {
  return async (job) => {
    switch (job.name) {
      case 'import-content':
        return importContentJob(ctx, job.payload);
      case 'import-repository':
        return importRepositoryJob(ctx, job.payload);
      case 'index-links':
        return indexLinksJob(ctx, job.payload);
      case 'index-search':
        return indexSearchJob(ctx, job.payload);
      case 'fetch-openapi':
        return fetchOpenApiJob(ctx, job.payload);
      case 'refresh-openapi-specs':
        return refreshOpenApiSpecsJob(ctx);
      case 'git-sync':
        return gitSyncJob(ctx, job.payload);
      case 'poll-git-sync':
        return pollGitSyncJob(ctx);
      case 'send-password-reset-mail':
        return sendPasswordResetMailJob(ctx, job.payload);
    }
  };
}
