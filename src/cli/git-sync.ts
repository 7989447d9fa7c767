/**
 * `quire git-sync status [SPACE_ID]`: every Git Sync connection of the store `quire serve` uses (or one space's) and
 * where it stands, read from the database as the server recorded it: a line per connection for people, or the
 * API's `gitSync` objects with --json.
 */
import { presentGitSync } from '../http/routes/git-sync/presenter.js';
import { gitSyncState, type GitSyncState } from '../domain/git-sync/state.js';
import { allGitSyncConnections } from '../store/sql/git-sync.js';
import { CommandError, print, withContainer } from './common.js';

/** One connection on one line: space, status, repository and branch, when last in step, and what went wrong. */
export function statusLine(spaceId: string, state: GitSyncState): string {
  const where = `${state.url} ${state.ref.replace(/^refs\/heads\//, '')}${state.projectDirectory ? ` (${state.projectDirectory})` : ''}`;
  const synced = state.lastSyncedAt ? `last in step ${state.lastSyncedAt}` : 'never in step';
  const news = [state.error, state.notice].filter((text): text is string => text !== undefined);
  return [spaceId, state.status, where, synced, ...news].join('  ');
}

export async function gitSyncStatus(spaceId: string | undefined, options: { json?: boolean }): Promise<void> {
  await withContainer('git-sync status', {}, async ({ ctx }) => {
    const rows = (await allGitSyncConnections(ctx.db)).filter((row) => spaceId === undefined || row.space_id === spaceId);
    if (spaceId !== undefined && rows.length === 0) throw new CommandError(`git-sync status: space "${spaceId}" is not connected to a git repository`);
    if (options.json) {
      print(rows.map((row) => ({ spaceId: row.space_id, gitSync: presentGitSync(gitSyncState(row)) })));
      return;
    }
    if (rows.length === 0) process.stdout.write('no space is connected to a git repository\n');
    for (const row of rows) process.stdout.write(`${statusLine(row.space_id, gitSyncState(row))}\n`);
  });
}
