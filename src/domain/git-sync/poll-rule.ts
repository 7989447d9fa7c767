/**
 * Whether a poll cycle runs Git Sync for a connection: a rule over what the cycle read (the host's branch, the
 * space's main) and what the connection recorded, with no git or network in it. A cycle reads each host once and
 * runs only the connections with something to do, so an unchanged remote costs one ref read and no fetch:
 *
 * - a side moved since the two were last in step (the host's branch, or main: a push whose job a crash lost);
 * - a run never finished (`syncing`: the process stopped in the middle of one, or the first run is still to come);
 * - a run failed (the host down, a refused push): tried again after a wait that doubles with each failure in a row
 *   (one poll interval, two, four... up to RETRY_CAP_MS), so a host down for an hour is not hammered and a host back
 *   within a minute is caught up with at the next cycle or so;
 * - a conflict waits for a side to move or for the change request holding the host's commits to be merged or closed.
 */

export interface PollFacts {
  status: 'syncing' | 'synced' | 'conflict' | 'error' | 'paused';
  /** Runs failed in a row. */
  failures: number;
  /** When the connection's state was last recorded (ms since the epoch). */
  recordedAt: number;
  now: number;
  /** The poll interval (ms). */
  pollMs: number;
  /** The host branch's commit as read now: undefined when the branch is absent, 'unreadable' when the host did not answer. */
  remoteHead: string | undefined | 'unreadable';
  /** Where the host's branch was when the two sides were last in step (or last looked at). */
  remoteCommit: string | null;
  /** The space's main now. */
  localMain: string | undefined;
  localCommit: string | null;
  /** A conflict's change request is still open. */
  conflictOpen: boolean;
}

/** The longest wait between two tries of a connection in error. */
export const RETRY_CAP_MS = 15 * 60_000;

/** How long a connection that failed `failures` times in a row waits before the next try. */
export function retryDelayMs(failures: number, pollMs: number): number {
  return Math.min(pollMs * 2 ** Math.max(0, Math.min(failures - 1, 20)), Math.max(RETRY_CAP_MS, pollMs));
}

export function shouldRunOnPoll(facts: PollFacts): boolean {
  switch (facts.status) {
    case 'paused':
      return false;
    case 'syncing':
      return true;
    case 'error':
      return facts.now - facts.recordedAt >= retryDelayMs(facts.failures, facts.pollMs);
    case 'conflict':
      return !facts.conflictOpen || moved(facts);
    case 'synced':
      return moved(facts);
  }
}

function moved(facts: PollFacts): boolean {
  if (facts.remoteHead === 'unreadable') return true;
  return (facts.remoteHead ?? null) !== facts.remoteCommit || (facts.localMain ?? null) !== facts.localCommit;
}
