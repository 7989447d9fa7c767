/**
 * One poll cycle of Git Sync, for hosts whose webhooks cannot reach this server, and the catch-up after a restart:
 * every connected repository's branches are read once (`ls-remote`, no fetch; spaces connected to one repository with
 * the same credentials, a monorepo's project directories, share the read), and a run is queued for each connection
 * the rule of ./poll-rule.ts says has something to do. Queued, not run here: runs are the `git-sync` job's, in turn
 * per space, on whichever process takes the job; spaces reading one branch alike share its fetch (./run.ts).
 *
 * The cycle is a recurring job (every QUIRE_GIT_SYNC_POLL_S, one schedule for all processes on BullMQ) and runs once
 * when `quire serve` starts, so a connection a killed process left in the middle of a run is finished.
 */
import PQueue from 'p-queue';
import type { Context } from '../context.js';
import { MAIN_REF } from '../content/refs.js';
import { findChangeRequest } from '../../store/sql/change-requests.js';
import { activeGitSyncConnections, type GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import { advertisedRemoteBranches, RemoteFailure } from '../../store/git/remote-branch.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';
import { remoteOf } from './run.js';
import { readerKey } from './mirrors.js';
import { shouldRunOnPoll, type PollFacts } from './poll-rule.js';
import { hostBranchesMoved } from './branches.js';
import { gitSyncBranchesOf } from '../../store/sql/git-sync-branches.js';

/** Repositories read at once: each read is a git process and a round trip to the host. */
const READS_AT_ONCE = 8;

export interface PollCycle {
  /** Connections looked at. */
  connections: number;
  /** Repositories read (one per URL and credentials). */
  repositories: number;
  /** Spaces whose run was queued. */
  queued: string[];
}

/** Reads every connected repository once and queues a run for each connection with something to do. */
export async function pollGitSync(ctx: Context): Promise<PollCycle> {
  const rows = await activeGitSyncConnections(ctx.db);
  // One read per reader (./mirrors.ts readerKey: the URL and the credentials): a connection learns of the host only what
  // its own credentials read, never another's, whatever branch each follows.
  const byReader = new Map<string, GitSyncConnectionRow[]>();
  const readerOf = new Map<GitSyncConnectionRow, string>();
  for (const row of rows) {
    const reader = readerKey(ctx, row);
    readerOf.set(row, reader);
    byReader.set(reader, [...(byReader.get(reader) ?? []), row]);
  }
  const reads = new PQueue({ concurrency: READS_AT_ONCE });
  const branches = new Map<string, Map<string, string> | 'unreadable'>();
  await Promise.all(
    [...byReader].map(([reader, group]) =>
      reads.add(async () => {
        try {
          branches.set(reader, await advertisedRemoteBranches(ctx.fetcher, ctx.git, group[0].space_id, await remoteOf(ctx, group[0])));
        } catch (error) {
          if (!(error instanceof RemoteFailure || error instanceof FetchFailure)) throw error;
          branches.set(reader, 'unreadable');
        }
      }),
    ),
  );
  const now = Date.now();
  const queued: string[] = [];
  for (const row of rows) {
    const read = branches.get(readerOf.get(row)!)!;
    const remoteHead = read === 'unreadable' ? read : read.get(row.ref);
    const localMain = await ctx.reader.resolveRef(row.space_id, MAIN_REF);
    const due = shouldRunOnPoll({
      status: row.status as PollFacts['status'],
      failures: row.failures,
      recordedAt: Date.parse(row.updated_at),
      now,
      pollMs: ctx.gitSyncPollMs,
      remoteHead,
      remoteCommit: row.remote_commit,
      localMain,
      localCommit: row.local_commit,
      conflictOpen: await conflictStillOpen(ctx, row),
    });
    const branchesDue = !due && row.branch_pattern !== null && read !== 'unreadable' && hostBranchesMoved(row.branch_pattern, row.ref, read, await gitSyncBranchesOf(ctx.db, row.space_id));
    if (!due && !branchesDue) continue;
    // The job's key names what the run will find, so a run already waiting for the same is not queued twice.
    const commit = branchesDue ? `branches-${now}` : typeof remoteHead === 'string' && remoteHead !== 'unreadable' ? remoteHead : (localMain ?? 'absent');
    await ctx.jobs.enqueueWhenReachable({ name: 'git-sync', payload: { spaceId: row.space_id, commit } });
    queued.push(row.space_id);
  }
  return { connections: rows.length, repositories: byReader.size, queued };
}

/** Whether the change request a conflict was parked in is still open (a conflict without one waits for a side to move). */
async function conflictStillOpen(ctx: Context, row: GitSyncConnectionRow): Promise<boolean> {
  if (row.status !== 'conflict' || row.change_request_id === null) return true;
  const changeRequest = await findChangeRequest(ctx.db, row.space_id, row.change_request_id);
  return changeRequest?.status === 'open' || changeRequest?.status === 'draft';
}
