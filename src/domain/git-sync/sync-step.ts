/**
 * What one run of Git Sync does, from where both sides are: a rule over commits, with no git or network in it (the
 * run reads the facts, this says what follows). The same commit objects go both ways, so "in step" means the host's
 * branch and the space's main are the same commit; never "the last sync wins":
 *
 * - the first run follows the connection's `firstSync`: `import` makes the host's history the space's (the space's
 *   former main is kept under a ref, never dropped), `export` pushes the space's main to a branch that is absent or
 *   that the space's history already contains;
 * - afterwards, the side that is behind is brought forward: the host's new commits move main (after the checks a push
 *   gets), main's new commits are pushed (by compare-and-swap on the host);
 * - both moved: the two are merged, and the merge goes to both sides (or, on a true conflict, neither moves);
 * - the host's branch rewritten (a force-push: where it was last seen is no longer in its history): the space follows
 *   it, as the first import does, its former main kept under a ref of its own (what only the space had is not lost);
 * - the host's branch gone, or the first run impossible as asked: nothing moves, and the state says why.
 */

export type FirstSync = 'import' | 'export';

/** Where the two sides are, as the run found them. */
export interface SyncFacts {
  firstSync: FirstSync;
  /** Whether a run has put both sides in step before (the first one is governed by `firstSync`). */
  synced: boolean;
  /** The host branch's commit; undefined when the host has no such branch. */
  remote: string | undefined;
  /** The space's main. */
  local: string;
  /** Whether `remote` is `local` or one of its ancestors (the space holds everything the host has). */
  remoteInLocal: boolean;
  /** Whether `local` is `remote` or one of its ancestors (the host holds everything the space has). */
  localInRemote: boolean;
  /**
   * Whether the commit the host's branch was at when last seen is `remote` or one of its ancestors (true when none was
   * seen): false when the branch was rewritten on the host (force-pushed).
   */
  lastRemoteInRemote: boolean;
}

export type SyncStep =
  /** Both sides are the same commit. */
  | { kind: 'in-step' }
  /** Push main to the host's branch (expected there: `remote`, undefined for an absent branch). */
  | { kind: 'push' }
  /** Move main to the host's commit (the host's commits are new to the space). */
  | { kind: 'take' }
  /** The first import, or following a force-push: main becomes the host's commit, the former main kept. */
  | { kind: 'replace' }
  /** Merge the host's commit into main, then push the merge. */
  | { kind: 'merge' }
  /** Nothing can move: `reason` is for the state, a sentence saying what to do. */
  | { kind: 'stop'; reason: string };

export function syncStep(facts: SyncFacts): SyncStep {
  const { remote, local } = facts;
  if (remote === local) return { kind: 'in-step' };
  if (!facts.synced) {
    if (facts.firstSync === 'import') {
      if (remote === undefined) return { kind: 'stop', reason: 'the branch does not exist on the host: create it there, or connect with firstSync "export" to push the space to it' };
      return { kind: 'replace' };
    }
    if (remote === undefined || facts.remoteInLocal) return { kind: 'push' };
    return { kind: 'stop', reason: 'the branch on the host holds commits the space does not have: connect with firstSync "import", or export to an empty or new branch' };
  }
  if (remote === undefined) return { kind: 'stop', reason: 'the branch was deleted on the host: nothing changed in the space; push it again there, or disconnect' };
  if (!facts.lastRemoteInRemote) return { kind: 'replace' };
  if (facts.remoteInLocal) return { kind: 'push' };
  if (facts.localInRemote) return { kind: 'take' };
  return { kind: 'merge' };
}
