/**
 * What one run of Git Sync does with a branch of the host kept in step with a change request (a connection with
 * branches on: ./branches.ts reads the facts, this says what follows). The same rule as main's (./sync-step.ts), for
 * a change request's branch: the same commits on both sides, the side that is behind brought forward, both moved
 * merged, nothing lost. And what ends one ends the other:
 *
 * - a change request merged in Quire, or merged on the host (its commits reach main, which marks it merged:
 *   src/domain/change-requests/merged-into-main.ts), or closed in Quire, is no longer kept in step; the branch a
 *   change request made in Quire had on the host (`quire/cr-<number>`, Quire's own) is deleted there, unless someone
 *   pushed to it since; a branch the host made is left to the host (its pull request sees its commits in main);
 * - the host's branch deleted while its change request is open: the change request is closed, unless Quire holds
 *   commits the host never had (then they are pushed back: deleting a branch on one side loses nothing on the other);
 * - a host branch with new commits after its change request ended opens a new change request.
 */

/** Where a branch and its change request are, as the run found them. */
export interface BranchFacts {
  /** `host`: the branch came from the host (`docs/*`); `quire`: the change request was made in Quire. */
  origin: 'host' | 'quire';
  /** The host branch's commit; undefined when the host has no such branch. */
  remote: string | undefined;
  /** The change request's branch in the space; undefined when there is no change request. */
  local: string | undefined;
  /** Whether the change request is open (or a draft): merged and closed ones are no longer kept in step. */
  open: boolean;
  /** Where both were when last in step; undefined before the branch was first on the host. */
  synced: string | undefined;
  /** Whether `remote` is `local` or one of its ancestors. */
  remoteInLocal: boolean;
  /** Whether `local` is `remote` or one of its ancestors. */
  localInRemote: boolean;
  /** Whether `remote` is in the space's main (nothing to review). */
  remoteInMain: boolean;
}

export type BranchStep =
  /** Nothing to do: in step, or nothing left to keep in step. */
  | { kind: 'none' }
  /** Push the change request's branch to the host's (expected there: `remote`, undefined for an absent branch). */
  | { kind: 'push' }
  /** Move the change request's branch forward to the host's commit. */
  | { kind: 'take' }
  /** The host's branch was rewritten (force-pushed) and Quire added nothing since: follow it, the former head kept. */
  | { kind: 'replace' }
  /** Both moved: merge the host's commit into the change request's branch, and push the merge. */
  | { kind: 'merge' }
  /** A host branch with commits to review and no open change request: open one holding its commits. */
  | { kind: 'open' }
  /** The host deleted the branch and Quire added nothing since: close the change request. */
  | { kind: 'close' }
  /** The change request ended: delete Quire's branch on the host (expected there: `remote`). */
  | { kind: 'delete' };

export function branchStep(facts: BranchFacts): BranchStep {
  const { remote, local, synced } = facts;
  if (!facts.open) {
    if (remote === undefined) return { kind: 'none' };
    // Quire's own branch of an ended change request goes, unless the host added to it since (that is the host's).
    if (facts.origin === 'quire') return remote === synced || remote === local ? { kind: 'delete' } : { kind: 'none' };
    // A host branch that moved on after its change request ended, with commits main lacks: a new change request.
    return remote !== synced && !facts.remoteInMain && !facts.remoteInLocal ? { kind: 'open' } : { kind: 'none' };
  }
  if (local === undefined) return { kind: 'none' };
  if (remote === local) return { kind: 'none' };
  if (remote === undefined) {
    // Never on the host yet, or deleted there with commits only Quire has: (re)created by a push.
    if (synced === undefined || local !== synced) return { kind: 'push' };
    // Deleted on the host with nothing new in Quire: the host's branch ends its change request; Quire's own branch,
    // deleted there by someone, comes back with the change request's next commit.
    return facts.origin === 'host' ? { kind: 'close' } : { kind: 'none' };
  }
  if (facts.remoteInLocal) return { kind: 'push' };
  if (facts.localInRemote) return { kind: 'take' };
  // Rewritten on the host, and the change request unchanged since: the host's history is followed.
  if (synced !== undefined && local === synced) return { kind: 'replace' };
  return { kind: 'merge' };
}
