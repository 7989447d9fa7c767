/**
 * Keeping the link and search indexes up to date: indexing is queued after every change of main, and at start for
 * the spaces whose indexes missed a change (jobs that a restart of the in-process queue lost, or that could not
 * be queued while Redis was down).
 */
import type { Context } from '../context.js';
import { liveSpaces } from '../../store/sql/spaces.js';
import { searchStates } from '../../store/sql/search.js';
import { indexedLinkCommits } from '../../store/sql/links.js';
import { findGitSyncConnection } from '../../store/sql/git-sync.js';
import { LINKS_VERSION, SEARCH_VERSION } from './refs.js';

/**
 * After main moved (a push, a merge, an import): compute the history facts of the new commits in the background (a
 * first push of a long history must not hold the answer, nor the reads after it) and queue the indexing of the new
 * revision, and its Git Sync when the space is connected. The push has landed whatever happens here, so a queue outage is logged, not thrown: the indexing is
 * queued as soon as the queue answers again, or else by the catch-up (queueMissedIndexing); the link index is also
 * built on first read of a revision it lacks.
 */
export async function enqueueIndexingAfterPush(ctx: Context, push: { spaceId: string; revision: string }): Promise<void> {
  void ctx.history.prepare(push.spaceId, push.revision);
  const payload = { spaceId: push.spaceId, commit: push.revision };
  // A space connected to a git host sends main's new commits there (src/domain/git-sync/run.ts).
  const connected = await findGitSyncConnection(ctx.db, push.spaceId);
  const outcomes = await Promise.all([
    ctx.jobs.enqueueWhenReachable({ name: 'index-links', payload }),
    ctx.jobs.enqueueWhenReachable({ name: 'index-search', payload }),
    ...(connected && connected.status !== 'paused' ? [ctx.jobs.enqueueWhenReachable({ name: 'git-sync', payload })] : []),
  ]);
  const fields = { space: push.spaceId, commit: push.revision };
  if (outcomes.includes('dropped')) ctx.log.warn(fields, 'indexing not queued: the catch-up will queue it');
  else if (outcomes.includes('kept')) ctx.log.warn(fields, 'indexing kept until the job queue answers again');
}

/**
 * Queues indexing for every live space whose main revision the search index or the link index has not caught up
 * with. Cheap (two reads over all spaces); returns the ids queued. Run when `quire serve` starts.
 */
export async function queueMissedIndexing(ctx: Context): Promise<string[]> {
  const spaces = await liveSpaces(ctx.db);
  const ids = spaces.map((space) => space.id);
  const [search, links] = await Promise.all([searchStates(ctx.db, ids), indexedLinkCommits(ctx.db, LINKS_VERSION)]);
  const behind = spaces.filter((space) => {
    const state = search.get(space.id);
    const searchCurrent = state?.commit_oid === space.revision && state.version === SEARCH_VERSION;
    return !searchCurrent || !links.has(`${space.id} ${space.revision}`);
  });
  for (const space of behind) await enqueueIndexingAfterPush(ctx, { spaceId: space.id, revision: space.revision });
  return behind.map((space) => space.id);
}
