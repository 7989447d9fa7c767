/**
 * The poll's rule (src/domain/git-sync/poll-rule.ts): a run only for a connection with something to do, and a
 * connection in error tried again after waits that double with each failure in a row, up to a cap.
 */
import { describe, expect, it } from 'vitest';
import { RETRY_CAP_MS, retryDelayMs, shouldRunOnPoll, type PollFacts } from '../../src/domain/git-sync/poll-rule.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const facts = (fields: Partial<PollFacts> = {}): PollFacts => ({
  status: 'synced', failures: 0, recordedAt: 1_000_000, now: 1_000_000, pollMs: 60_000,
  remoteHead: A, remoteCommit: A, localMain: A, localCommit: A, conflictOpen: true, ...fields,
});

describe('the Git Sync poll rule', () => {
  it('runs a synced connection only when a side moved or the host did not answer', () => {
    expect(shouldRunOnPoll(facts())).toBe(false);
    expect(shouldRunOnPoll(facts({ remoteHead: B }))).toBe(true);
    expect(shouldRunOnPoll(facts({ localMain: B }))).toBe(true);
    expect(shouldRunOnPoll(facts({ remoteHead: undefined }))).toBe(true);
    expect(shouldRunOnPoll(facts({ remoteHead: 'unreadable' }))).toBe(true);
  });

  it('finishes a run never finished, and never runs a paused connection', () => {
    expect(shouldRunOnPoll(facts({ status: 'syncing' }))).toBe(true);
    expect(shouldRunOnPoll(facts({ status: 'paused', remoteHead: B }))).toBe(false);
  });

  it('tries a failed connection again after a wait that doubles with each failure in a row, up to the cap', () => {
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(failures, 60_000))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(retryDelayMs(10, 60_000)).toBe(RETRY_CAP_MS);
    expect(retryDelayMs(10_000, 60_000)).toBe(RETRY_CAP_MS);
    // A poll interval longer than the cap: once per poll.
    expect(retryDelayMs(5, 3_600_000)).toBe(3_600_000);
    const failed = facts({ status: 'error', failures: 3, recordedAt: 0 });
    expect(shouldRunOnPoll({ ...failed, now: 240_000 - 1 })).toBe(false);
    expect(shouldRunOnPoll({ ...failed, now: 240_000 })).toBe(true);
  });

  it('leaves a conflict alone until a side moves or its change request is merged or closed', () => {
    expect(shouldRunOnPoll(facts({ status: 'conflict' }))).toBe(false);
    expect(shouldRunOnPoll(facts({ status: 'conflict', conflictOpen: false }))).toBe(true);
    expect(shouldRunOnPoll(facts({ status: 'conflict', remoteHead: B }))).toBe(true);
  });
});
