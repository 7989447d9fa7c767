/**
 * Change requests and the host's branches (a connection made with `branches: true`), beyond main: every branch of
 * the host whose name the connection's pattern matches (`docs/*`) opens or updates a change request holding the same
 * commits, and a change request made in Quire appears on the host as the branch `quire/cr-<number>`, so that a pull
 * request can be opened from it. What each run does with a branch is the rule of ./branch-step.ts; here it is read
 * and done, after main's step (./run.ts), within the same turn of the space's runs:
 *
 * - the host's branches are read once (the ref read of the poll), and those that moved are fetched in one fetch into
 *   `refs/quire/sync/branches/<name>`, the run's picture of them;
 * - commits from the host go through a push's checks before a change request takes them (what is refused stays in
 *   the picture, and the branch's state says why);
 * - a change request's branch moves only by compare-and-swap, the host's only by `--force-with-lease`: a push to
 *   either side meanwhile is never replaced; the next run meets it;
 * - what cannot be brought in step (a true conflict, a refusal) changes neither side and is told in the branch's state.
 *
 * The host's own branch (the connection's `ref`) and Quire's namespace on the host (`quire/`) never open change
 * requests.
 */
import type { Context } from '../context.js';
import { InvalidArgument } from '../errors.js';
import { nowIso } from '../ids.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { mergeInto, openChangeRequest } from '../change-requests/change-requests.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import { deleteRemoteBranch, fetchRemoteBranches, pushToRemoteBranch, RemoteFailure, type RemoteBranch } from '../../store/git/remote-branch.js';
import { findChangeRequest, liveChangeRequests, updateChangeRequestRow, type ChangeRequestRow } from '../../store/sql/change-requests.js';
import type { GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import { gitSyncBranchesOf, saveGitSyncBranch, type GitSyncBranchRow } from '../../store/sql/git-sync-branches.js';
import { branchStep, type BranchFacts, type BranchStep } from './branch-step.js';
import { contentRefusal } from './content-refusal.js';

/** The pattern of a connection made with `branches: true` and none named. */
export const DEFAULT_BRANCH_PATTERN = 'docs/*';
/** Where a change request made in Quire appears on the host. */
export const QUIRE_BRANCH_PREFIX = 'quire/';
const HEADS = 'refs/heads/';
/** Where a run keeps the host's branches as last fetched. */
const PICTURES = 'refs/quire/sync/branches/';
const LIVE = new Set(['open', 'draft']);

/** A branch pattern as given (`docs/*`), checked: branch-name characters and `*` (any characters, `/` too). */
export function checkedBranchPattern(pattern: string | undefined): string {
  const given = (pattern ?? DEFAULT_BRANCH_PATTERN).replace(/^refs\/heads\//, '');
  if (!/^[A-Za-z0-9._/*-]{1,200}$/.test(given) || given.includes('..') || given.startsWith('/') || given.includes('//')) {
    throw new InvalidArgument('branchPattern: must be a branch name pattern such as "docs/*" ("*" stands for any characters)');
  }
  if (given.startsWith(QUIRE_BRANCH_PREFIX)) throw new InvalidArgument(`branchPattern: "${QUIRE_BRANCH_PREFIX}" is where change requests made in Quire appear on the host; choose another pattern`);
  return given;
}

/** Whether the host's branch `ref` is one the connection keeps in step with a change request of its own. */
export function matchesBranchPattern(pattern: string, ref: string, connectionRef: string): boolean {
  if (!ref.startsWith(HEADS) || ref === connectionRef) return false;
  const name = ref.slice(HEADS.length);
  if (name.startsWith(QUIRE_BRANCH_PREFIX)) return false;
  const expression = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&')).join('.*')}$`);
  return expression.test(name);
}

/** The branch a change request made in Quire has on the host. */
export const quireBranchOf = (number: number) => `${HEADS}${QUIRE_BRANCH_PREFIX}cr-${number}`;

/** What a run found of one branch. */
interface BranchRun {
  row: GitSyncBranchRow;
  changeRequest: ChangeRequestRow | undefined;
  remote: string | undefined;
}

/**
 * Brings the connection's branches and change requests in step, after main's step of the same run. `heads`: every
 * branch of the host and its commit, as just read. Failures of one branch (a conflict, a refusal, the branch moved
 * under the push) are that branch's state; a host that cannot be reached fails the whole (RemoteFailure).
 */
export async function syncBranches(ctx: Context, connection: GitSyncConnectionRow, remote: RemoteBranch, heads: Map<string, string>): Promise<void> {
  const pattern = connection.branch_pattern;
  if (pattern === null) return;
  const spaceId = connection.space_id;
  const stored = new Map((await gitSyncBranchesOf(ctx.db, spaceId)).map((row) => [row.remote_ref, row]));
  const rows = new Map(stored);
  const now = nowIso();
  const fresh = (remoteRef: string, origin: 'host' | 'quire', changeRequestId: string | null): GitSyncBranchRow => ({
    space_id: spaceId,
    remote_ref: remoteRef,
    change_request_id: changeRequestId,
    origin,
    synced_commit: null,
    remote_commit: null,
    error: null,
    updated_at: now,
  });
  for (const ref of heads.keys()) if (!rows.has(ref) && matchesBranchPattern(pattern, ref, connection.ref)) rows.set(ref, fresh(ref, 'host', null));
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  const live = await liveChangeRequests(ctx.db, spaceId);
  const liveIds = new Set(live.map((changeRequest) => changeRequest.id));
  const linked = new Set([...rows.values()].map((row) => row.change_request_id));
  for (const changeRequest of live) {
    if (linked.has(changeRequest.id)) continue;
    // A change request a host branch opened, whose link a process stopped before storing: linked again, not doubled.
    const orphaned = [...rows.values()].find(
      (row) => row.origin === 'host' && !liveIds.has(row.change_request_id ?? '') && changeRequest.subject === openedSubject(row.remote_ref, connection.url),
    );
    if (orphaned) {
      rows.set(orphaned.remote_ref, { ...orphaned, change_request_id: changeRequest.id, synced_commit: null });
      continue;
    }
    // A change request with nothing of its own yet (its branch still in main) is not worth a branch on the host.
    const head = await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number));
    if (head === undefined || (main !== undefined && (await ctx.git.isAncestor(spaceId, head, main)))) continue;
    const ref = quireBranchOf(changeRequest.number);
    rows.set(ref, { ...(rows.get(ref) ?? fresh(ref, 'quire', null)), change_request_id: changeRequest.id });
  }

  // The host's branches that moved since the last picture, in one fetch.
  const wanted: Array<readonly [string, string]> = [];
  for (const ref of rows.keys()) {
    const head = heads.get(ref);
    if (head === undefined) continue;
    const picture = pictureOf(ref);
    const held = await ctx.reader.resolveRef(spaceId, picture);
    if (held !== head) wanted.push([ref, picture]);
  }
  await fetchRemoteBranches(ctx.git, spaceId, remote, wanted);

  for (const row of rows.values()) {
    const changeRequest = row.change_request_id === null ? undefined : await findChangeRequest(ctx.db, spaceId, row.change_request_id);
    const hostHead = heads.get(row.remote_ref);
    const outcome: BranchOutcome = { remote_commit: hostHead ?? null, ...(await stepOne(ctx, connection, remote, { row, changeRequest, remote: hostHead }, main)) };
    const after = { ...row, ...outcome };
    const changed = stored.get(row.remote_ref) !== row || (Object.keys(outcome) as Array<keyof BranchOutcome>).some((key) => after[key] !== row[key]);
    if (changed) await saveGitSyncBranch(ctx.db, { ...after, updated_at: now });
  }
}

/** The subject of a change request a host branch opens. */
const openedSubject = (ref: string, url: string) => `${ref.slice(HEADS.length)} (from ${url})`;

/** The run's picture of the host's branch `ref`. */
const pictureOf = (ref: string) => `${PICTURES}${ref.slice(HEADS.length)}`;

/** The facts of one branch, as the rule reads them. */
async function factsOf(ctx: Context, spaceId: string, found: BranchRun, main: string | undefined): Promise<BranchFacts> {
  const { row, changeRequest, remote } = found;
  const local = changeRequest ? await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number)) : undefined;
  const ancestor = (a: string | undefined, b: string | undefined) => (a === undefined || b === undefined ? Promise.resolve(false) : ctx.git.isAncestor(spaceId, a, b));
  const [remoteInLocal, localInRemote, remoteInMain] = await Promise.all([ancestor(remote, local), ancestor(local, remote), ancestor(remote, main)]);
  return {
    origin: row.origin as BranchFacts['origin'],
    remote,
    local,
    open: changeRequest !== undefined && LIVE.has(changeRequest.status),
    synced: row.synced_commit ?? undefined,
    remoteInLocal,
    localInRemote,
    remoteInMain,
  };
}

/** What a branch's row records after one step. */
type BranchOutcome = Partial<Pick<GitSyncBranchRow, 'change_request_id' | 'synced_commit' | 'remote_commit' | 'error'>>;

/** One branch brought in step as far as the rule says: what its row records afterwards. */
async function stepOne(ctx: Context, connection: GitSyncConnectionRow, remote: RemoteBranch, found: BranchRun, main: string | undefined): Promise<BranchOutcome> {
  const spaceId = connection.space_id;
  const { row, changeRequest } = found;
  const facts = await factsOf(ctx, spaceId, found, main);
  const step: BranchStep = branchStep(facts);
  const hostBranch: RemoteBranch = { ...remote, ref: row.remote_ref };
  const name = row.remote_ref.slice(HEADS.length);
  const theirs = facts.remote!;
  const local = facts.local!;
  const refused = () => contentRefusal(ctx, spaceId, theirs, connection.project_directory, pictureOf(row.remote_ref));
  const moveChangeRequest = async (to: string): Promise<boolean> => {
    if (!(await ctx.git.compareAndSwapRef(spaceId, branchOf(changeRequest!.number), to, local))) return false;
    ctx.events.publish({ spaceId, changeRequestId: changeRequest!.id, kind: 'change-request', action: 'pushed' });
    return true;
  };
  try {
    switch (step.kind) {
      case 'none':
        // In step, or nothing to keep in step: remembered where the host's branch is (a first sight of one with
        // nothing to review included), so a poll finds nothing new until it moves. A refusal stays told until then.
        return {
          synced_commit: facts.remote !== undefined && facts.remote === facts.local ? facts.remote : (row.synced_commit ?? facts.remote ?? null),
          error: facts.remote === (row.remote_commit ?? undefined) ? row.error : null,
        };
      case 'push':
        await pushToRemoteBranch(ctx.git, spaceId, hostBranch, local, facts.remote);
        return { synced_commit: local, remote_commit: local, error: null };
      case 'take':
      case 'replace': {
        const refusal = await refused();
        if (refusal) return { error: refusal };
        if (step.kind === 'replace') await ctx.git.compareAndSwapRef(spaceId, `refs/quire/sync/replaced/${nowIso().replace(/[:.]/g, '-')}`, local, '0'.repeat(40));
        if (!(await moveChangeRequest(theirs))) return { error: `change request #${changeRequest!.number} moved during the run; the next run brings it in step` };
        return { synced_commit: theirs, error: null };
      }
      case 'merge': {
        const refusal = await refused();
        if (refusal) return { error: refusal };
        const merged = await mergeInto(ctx, spaceId, branchOf(changeRequest!.number), pictureOf(row.remote_ref), `Merge ${name} of ${connection.url} (Git Sync)`, QUIRE_SIGNATURE);
        if (merged.conflicts.length > 0) {
          const paths = merged.conflicts.slice(0, 10).join(', ');
          return { error: `both sides changed the same lines of ${paths}: neither side was changed; resolve it on either side (merge ${name} into the change request's branch, or the other way) and the sync goes on by itself` };
        }
        if (merged.moved) ctx.events.publish({ spaceId, changeRequestId: changeRequest!.id, kind: 'change-request', action: 'pushed' });
        await pushToRemoteBranch(ctx.git, spaceId, hostBranch, merged.head, theirs);
        return { synced_commit: merged.head, remote_commit: merged.head, error: null };
      }
      case 'open': {
        const refusal = await refused();
        if (refusal) return { synced_commit: theirs, error: refusal };
        const opened = await openChangeRequest(ctx, spaceId, { subject: openedSubject(row.remote_ref, connection.url), createdBy: connection.connected_by, initial: main ?? theirs, head: theirs });
        return { change_request_id: opened.id, synced_commit: theirs, error: null };
      }
      case 'close':
        await updateChangeRequestRow(ctx.db, changeRequest!.id, { status: 'archived', updated_at: nowIso() });
        ctx.events.publish({ spaceId, changeRequestId: changeRequest!.id, kind: 'change-request', action: 'updated' });
        return { error: null };
      case 'delete':
        await deleteRemoteBranch(ctx.git, spaceId, hostBranch, theirs);
        return { remote_commit: null, error: null };
    }
  } catch (error) {
    if (!(error instanceof RemoteFailure) || error.reason === 'auth' || error.reason === 'unreachable' || error.reason === 'host-key') throw error;
    const why = error.reason === 'moved' ? `${name} moved on the host during the run; the next run brings it in step` : error.message;
    return { error: why };
  }
}

/**
 * Whether a poll finds news of the connection's branches in the host's `heads`: a branch the pattern matches that no
 * run has looked at, or one that moved (or went) since the last run looked. Quire's side needs no poll: a change
 * request's moves queue their own run (./change-request-moved.ts).
 */
export function hostBranchesMoved(pattern: string, connectionRef: string, heads: ReadonlyMap<string, string>, rows: readonly GitSyncBranchRow[]): boolean {
  const known = new Map(rows.map((row) => [row.remote_ref, row]));
  for (const [ref, head] of heads) {
    const row = known.get(ref);
    if (row ? row.remote_commit !== head : matchesBranchPattern(pattern, ref, connectionRef)) return true;
  }
  return rows.some((row) => row.remote_commit !== null && !heads.has(row.remote_ref));
}
