/**
 * One run of Git Sync for a space: both sides read, the step the rule gives (./sync-step.ts) taken, the state
 * recorded. The same commit objects go both ways:
 *
 * - the host's branch is fetched into `refs/quire/sync/remote` of the space's repository (the run's picture of the
 *   host, kept whatever happens next: commits the space refuses stay there, never dropped);
 * - main moves only by compare-and-swap, and only to commits whose content reads as a push's must (the checks of
 *   imports): what the space would refuse from a push, it refuses from the host, and says so in the state;
 * - the host's branch moves only by compare-and-swap (`--force-with-lease` on what was fetched): commits pushed to
 *   the host meanwhile are never replaced; the run fetches again instead;
 * - both moved: the host's commit is merged into main with the merge of change requests (SUMMARY.md, front matter and
 *   manifest resolved by their structure), and the merge goes to both; a true conflict moves neither side and is
 *   reported with its paths;
 * - the first import keeps the space's former main under `refs/quire/sync/replaced/<time>`;
 * - over SSH, the first run trusts the host key the host shows and stores it; a later run that meets another key
 *   stops before reading anything (`error`, saying so) until the space is connected again.
 *
 * Runs of one space take turns in this process (ctx.workByKey.inTurn: a run asked for while one is under way runs after
 * it, and sees what changed meanwhile); runs in other processes meet the same compare-and-swaps.
 *
 * Spaces that read one branch alike (a monorepo's project directories: same URL, branch and credentials) share one
 * fetch of the host: the run brings the branch into a local mirror (see `mirrorKey`), fetching it at most once for
 * the runs that ask at the same time, and then into the space's own `refs/quire/sync/remote` from the mirror, a fetch
 * between two local repositories. Pushes stay the space's own: each pushes its main by compare-and-swap on what it
 * fetched, so the spaces of a monorepo never push over one another (the second finds the branch moved, fetches again,
 * and merges).
 */
import type { Caller, Context } from '../context.js';
import { NotFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { loadSpace } from '../content/spaces.js';
import { requireSpacePermission } from '../permissions.js';
import { MAIN_REF } from '../content/refs.js';
import { recordMainMoved } from '../content/main-moved.js';
import { mergeInto } from '../change-requests/change-requests.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import { advertisedRemoteBranches, basicAuthorization, fetchFromMirror, fetchRemoteBranch, pushToRemoteBranch, RemoteFailure, updateMirror, type RemoteBranch } from '../../store/git/remote-branch.js';
import { findGitSyncConnection, updateGitSyncState, type GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';
import { secretOf } from './credentials.js';
import { mirrorKey } from './mirrors.js';
import { parkConflict } from './conflicts.js';
import { contentRefusal } from './content-refusal.js';
import { syncBranches } from './branches.js';
import { gitSyncBranchesOf } from '../../store/sql/git-sync-branches.js';
import { sshRemote } from './ssh-url.js';
import { gitSyncState, type GitSyncState } from './state.js';
import { syncStep, type FirstSync } from './sync-step.js';

/** Where the run keeps the host's branch as last fetched. */
export const SYNC_REMOTE_REF = 'refs/quire/sync/remote';
/** A push that found the host's branch moved fetches again, this many times. */
const MAX_ATTEMPTS = 3;

/** Which way commits went in a run: to the host, from it, both (a merge), or none (already in step, or stopped). */
type Direction = 'to host' | 'from host' | 'both' | 'none';

/** The outcome of a run, as the connection's state records it, and what moved (for the log). */
type Outcome = Pick<GitSyncConnectionRow, 'status' | 'error' | 'remote_commit' | 'local_commit'> &
  Partial<Pick<GitSyncConnectionRow, 'change_request_id' | 'notice'>> & { synced: boolean; direction: Direction; commits: number };

/**
 * The host's branch brought into the space's `refs/quire/sync/remote`: through the mirror of `mirror` (fetched from
 * the host once for the runs that ask meanwhile: ctx.workByKey.fresh, so a run never takes a fetch begun before it
 * asked, which could miss a push its webhook announced), or straight from the host without one. The commit fetched,
 * or undefined when the host has no such branch.
 */
async function fetchHostBranch(ctx: Context, spaceId: string, remote: RemoteBranch, mirror: string | undefined): Promise<string | undefined> {
  if (mirror === undefined) return fetchRemoteBranch(ctx.git, spaceId, remote, SYNC_REMOTE_REF);
  const head = await ctx.workByKey.fresh(`git-sync-mirror:${mirror}`, () => updateMirror(ctx.git, mirror, remote, ctx.fetcher));
  if (head === undefined) return undefined;
  return fetchFromMirror(ctx.git, spaceId, mirror, remote.ref, SYNC_REMOTE_REF);
}

/**
 * The branch of the connection, reachable as the fetch guard allows (resolved again at each run). Over SSH, the host
 * key stored (none before the first run: the transport then trusts and keeps the one the host shows).
 */
export async function remoteOf(ctx: Context, row: GitSyncConnectionRow): Promise<RemoteBranch> {
  const secret = secretOf(ctx, row);
  if (row.auth_kind === 'ssh-key') {
    if (secret === undefined) throw new Error(`the Git Sync connection of space ${row.space_id} is by SSH but has no deploy key`);
    const { host, port } = sshRemote(row.url);
    const pin = await ctx.fetcher.resolvePinnedHost(host, port);
    return { url: row.url, ref: row.ref, transport: { kind: 'ssh', pin, privateKey: secret, hostKey: row.host_key ?? undefined } };
  }
  const pin = await ctx.fetcher.resolvePinned(row.url);
  return { url: row.url, ref: row.ref, transport: { kind: 'http', pin, ...(secret !== undefined ? { authorization: basicAuthorization(row.auth_username ?? '', secret) } : {}) } };
}

/** The host key to store after a run: the one the first connection trusted, when none was stored before. */
function hostKeyLearned(row: GitSyncConnectionRow, remote: RemoteBranch | undefined): Pick<GitSyncConnectionRow, 'host_key'> | Record<string, never> {
  if (row.host_key !== null || remote?.transport.kind !== 'ssh' || remote.transport.hostKey === undefined) return {};
  return { host_key: remote.transport.hostKey };
}

/** What a failure to reach the host says in the state: its reason, and what to do. */
function remoteFailureSentence(error: RemoteFailure | FetchFailure, row: GitSyncConnectionRow): string {
  if (!(error instanceof RemoteFailure)) return error.message;
  const ssh = row.auth_kind === 'ssh-key';
  switch (error.reason) {
    case 'auth':
      return `${error.message}; connect again with ${ssh ? 'a deploy key whose public key the host has, with write access' : 'a token the host accepts'}`;
    case 'host-key':
      return `${error.message}: the host key of ${sshRemote(row.url).host} changed since it was first trusted, so nothing was read or changed on either side; if the change is expected (the host's keys were replaced), connect again (PUT .../git/sync) to trust the new key, otherwise something may stand between Quire and the host`;
    default:
      return error.message;
  }
}

const stopped = (status: 'error' | 'conflict', error: string, remote: string | undefined, local: string | undefined): Outcome => ({
  status,
  error,
  remote_commit: remote ?? null,
  local_commit: local ?? null,
  synced: false,
  direction: 'none',
  commits: 0,
});

/**
 * Whether the host's branch still holds the commit it was last seen at (false: it was rewritten, force-pushed). None
 * seen, or that commit no longer in the repository: nothing to tell, so true (merging loses nothing; following would).
 */
async function lastSeenIn(ctx: Context, spaceId: string, lastSeen: string | null, fetched: string): Promise<boolean> {
  if (lastSeen === null || lastSeen === fetched) return true;
  return ctx.git.isAncestor(spaceId, lastSeen, fetched).catch(() => true);
}

/** One attempt: fetch, decide, act. `moved`: the host's branch moved under the push (fetch again). */
async function attempt(ctx: Context, row: GitSyncConnectionRow, remote: RemoteBranch, alreadySynced: boolean): Promise<Outcome | 'moved'> {
  const spaceId = row.space_id;
  const fetched = await fetchHostBranch(ctx, spaceId, remote, mirrorKey(ctx, row));
  const local = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (!local) return stopped('error', 'the space has no main branch', fetched, undefined);
  const [remoteInLocal, localInRemote, lastRemoteInRemote] =
    fetched === undefined
      ? [false, false, true]
      : await Promise.all([ctx.git.isAncestor(spaceId, fetched, local), ctx.git.isAncestor(spaceId, local, fetched), lastSeenIn(ctx, spaceId, row.remote_commit, fetched)]);
  const step = syncStep({ firstSync: row.first_sync as FirstSync, synced: alreadySynced, remote: fetched, local, remoteInLocal, localInRemote, lastRemoteInRemote });
  const inStep = (commit: string, direction: Direction = 'none', commits = 0): Outcome => ({
    status: 'synced',
    error: null,
    remote_commit: commit,
    local_commit: commit,
    change_request_id: null,
    synced: true,
    direction,
    commits,
    // News of an earlier run stays until commits move again.
    ...(direction === 'none' ? {} : { notice: null }),
  });
  const moveMain = async (to: string, from: string): Promise<boolean> => {
    if (!(await ctx.git.compareAndSwapRef(spaceId, MAIN_REF, to, from))) return false;
    await recordMainMoved(ctx, spaceId);
    return true;
  };
  switch (step.kind) {
    case 'in-step':
      return inStep(local);
    case 'stop':
      return stopped('error', step.reason, fetched, local);
    case 'push':
      try {
        await pushToRemoteBranch(ctx.git, spaceId, remote, local, fetched);
      } catch (error) {
        if (error instanceof RemoteFailure && error.reason === 'moved') return 'moved';
        throw error;
      }
      return inStep(local, 'to host', await ctx.git.countCommits(spaceId, local, fetched));
    case 'take':
    case 'replace': {
      const refusal = await contentRefusal(ctx, spaceId, fetched!, row.project_directory, SYNC_REMOTE_REF);
      if (refusal) return stopped('error', refusal, fetched, local);
      let kept: string | undefined;
      if (step.kind === 'replace') {
        // The space's former history stays reachable (and fetchable by a clone) under a ref of its own.
        kept = `refs/quire/sync/replaced/${nowIso().replace(/[:.]/g, '-')}`;
        await ctx.git.compareAndSwapRef(spaceId, kept, local, '0'.repeat(40));
      }
      // Main moved meanwhile (a push, a merge): the next attempt starts again from where it is.
      if (!(await moveMain(fetched!, local))) return 'moved';
      const taken = inStep(fetched!, 'from host', await ctx.git.countCommits(spaceId, fetched!, local));
      if (kept === undefined) return taken;
      const why = alreadySynced ? `the branch was force-pushed on the host, and main followed it` : 'the first sync imported the branch';
      return { ...taken, notice: `${why}; the space's former main (${local.slice(0, 12)}) is kept under ${kept}` };
    }
    case 'merge': {
      const refusal = await contentRefusal(ctx, spaceId, fetched!, row.project_directory, SYNC_REMOTE_REF);
      if (refusal) return stopped('error', refusal, fetched, local);
      const merged = await mergeInto(ctx, spaceId, MAIN_REF, SYNC_REMOTE_REF, `Merge ${row.ref.replace(/^refs\/heads\//, '')} of ${row.url} (Git Sync)`, QUIRE_SIGNATURE);
      if (merged.conflicts.length > 0) {
        const parked = await parkConflict(ctx, row, fetched!, local);
        const paths = merged.conflicts.slice(0, 10).join(', ');
        const more = merged.conflicts.length > 10 ? ` and ${merged.conflicts.length - 10} more` : '';
        const reason = `both sides changed the same lines of ${paths}${more}: neither side was changed, and the host's commits are in change request #${parked.number}; bring main into it, resolve the conflict there and merge it, and the sync goes on by itself`;
        return { ...stopped('conflict', reason, fetched, local), change_request_id: parked.id };
      }
      if (merged.moved) await recordMainMoved(ctx, spaceId);
      try {
        await pushToRemoteBranch(ctx.git, spaceId, remote, merged.head, fetched);
      } catch (error) {
        if (error instanceof RemoteFailure && error.reason === 'moved') return 'moved';
        throw error;
      }
      return inStep(merged.head, 'both', await ctx.git.countCommits(spaceId, merged.head, fetched));
    }
  }
}

/**
 * The connection's branches and change requests brought in step (./branches.ts), after main's step: a change request
 * main's step marked merged is ended on the host in the same run. The host's branches are read once, as a poll does.
 */
async function syncBranchesAfterMain(ctx: Context, row: GitSyncConnectionRow, remote: RemoteBranch): Promise<void> {
  const heads = await advertisedRemoteBranches(ctx.fetcher, ctx.git, row.space_id, remote);
  await syncBranches(ctx, row, remote, heads);
}

/** Runs Git Sync for the space now (if connected): its state afterwards; undefined when the space has no connection. */
export async function runGitSync(ctx: Context, spaceId: string): Promise<GitSyncState | undefined> {
  return ctx.workByKey.inTurn(`git-sync:${spaceId}`, async () => {
    const row = await findGitSyncConnection(ctx.db, spaceId);
    if (!row || row.status === 'paused') return row && gitSyncState(row);
    const started = performance.now();
    let outcome: Outcome | 'moved' = 'moved';
    let remote: RemoteBranch | undefined;
    try {
      remote = await remoteOf(ctx, row);
      const alreadySynced = row.last_synced_at !== null;
      for (let i = 0; i < MAX_ATTEMPTS && outcome === 'moved'; i++) outcome = await attempt(ctx, row, remote, alreadySynced);
      if (outcome === 'moved') outcome = stopped('error', 'both sides kept moving during the sync; it will be tried again', undefined, undefined);
      if (row.branch_pattern !== null) await syncBranchesAfterMain(ctx, row, remote);
    } catch (error) {
      if (!(error instanceof RemoteFailure || error instanceof FetchFailure)) throw error;
      outcome = stopped('error', remoteFailureSentence(error, row), row.remote_commit ?? undefined, row.local_commit ?? undefined);
    }
    const now = nowIso();
    const { synced, direction, commits, ...state } = outcome;
    const failures = state.status === 'error' ? row.failures + 1 : 0;
    const recorded = { ...state, failures, ...hostKeyLearned(row, remote), ...(synced ? { last_synced_at: now } : {}), updated_at: now };
    const ms = Math.round(performance.now() - started);
    const line = { spaceId, status: state.status, direction, commits, ms, ...(state.error ? { error: state.error } : {}) };
    if (state.status === 'error') ctx.log.warn(line, `git sync of space ${spaceId} failed (${failures} in a row): ${state.error}`);
    else ctx.log.info(line, `git sync of space ${spaceId}: ${direction === 'none' ? 'in step' : `${commits} commit${commits === 1 ? '' : 's'} ${direction}`}${state.status === 'conflict' ? ' (conflict)' : ''} in ${ms} ms`);
    // A connection replaced or removed during the run keeps what it says; this run's findings are for the old one.
    if (!(await updateGitSyncState(ctx.db, spaceId, row.updated_at, recorded))) {
      const current = await findGitSyncConnection(ctx.db, spaceId);
      return current && gitSyncState(current, await gitSyncBranchesOf(ctx.db, spaceId));
    }
    return gitSyncState({ ...row, ...recorded }, await gitSyncBranchesOf(ctx.db, spaceId));
  });
}

/** A run asked for by a caller: the space's editors (the reference's `triggerGitSync`); NotFound when not connected. */
export async function runGitSyncFor(ctx: Context, caller: Caller, spaceId: string): Promise<GitSyncState> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'triggerGitSync', 'sync it with its git repository');
  const state = await runGitSync(ctx, spaceId);
  if (!state) throw new NotFound(`spaceId: space "${spaceId}" is not connected to a git repository`);
  return state;
}
