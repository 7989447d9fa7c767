/**
 * What a run of Git Sync does from where both sides are (src/domain/git-sync/sync-step.ts): the first run as the
 * connection asks, then the side behind brought forward, a merge when both moved, and never a side overwritten.
 */
import { describe, expect, it } from 'vitest';
import { syncStep, type SyncFacts } from '../../src/domain/git-sync/sync-step.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const facts = (over: Partial<SyncFacts>): SyncFacts => ({ firstSync: 'import', synced: true, remote: A, local: B, remoteInLocal: false, localInRemote: false, lastRemoteInRemote: true, ...over });

describe('a Git Sync run', () => {
  it('does nothing when both sides are the same commit, first run or not', () => {
    for (const firstSync of ['import', 'export'] as const) {
      for (const synced of [true, false]) expect(syncStep(facts({ firstSync, synced, remote: A, local: A }))).toEqual({ kind: 'in-step' });
    }
  });

  it('first run, import: the host\'s history replaces the space\'s; an absent branch stops it', () => {
    expect(syncStep(facts({ synced: false }))).toEqual({ kind: 'replace' });
    // Even when the host is behind the space: asked to import, it imports (the former main is kept by the run).
    expect(syncStep(facts({ synced: false, remoteInLocal: true }))).toEqual({ kind: 'replace' });
    expect(syncStep(facts({ synced: false, remote: undefined }))).toMatchObject({ kind: 'stop', reason: expect.stringContaining('does not exist on the host') });
  });

  it('first run, export: pushes to an absent branch or one the space contains, never over the host\'s own commits', () => {
    expect(syncStep(facts({ firstSync: 'export', synced: false, remote: undefined }))).toEqual({ kind: 'push' });
    expect(syncStep(facts({ firstSync: 'export', synced: false, remoteInLocal: true }))).toEqual({ kind: 'push' });
    expect(syncStep(facts({ firstSync: 'export', synced: false, localInRemote: true }))).toMatchObject({ kind: 'stop', reason: expect.stringContaining('firstSync "import"') });
    expect(syncStep(facts({ firstSync: 'export', synced: false }))).toMatchObject({ kind: 'stop' });
  });

  it('afterwards brings the side that is behind forward, and merges when both moved', () => {
    for (const firstSync of ['import', 'export'] as const) {
      expect(syncStep(facts({ firstSync, remoteInLocal: true }))).toEqual({ kind: 'push' });
      expect(syncStep(facts({ firstSync, localInRemote: true }))).toEqual({ kind: 'take' });
      expect(syncStep(facts({ firstSync }))).toEqual({ kind: 'merge' });
    }
  });

  it('follows a force-push on the host (the former main is kept by the run), even one back to a commit the space has', () => {
    for (const firstSync of ['import', 'export'] as const) {
      expect(syncStep(facts({ firstSync, lastRemoteInRemote: false }))).toEqual({ kind: 'replace' });
      expect(syncStep(facts({ firstSync, lastRemoteInRemote: false, remoteInLocal: true }))).toEqual({ kind: 'replace' });
      expect(syncStep(facts({ firstSync, lastRemoteInRemote: false, remote: A, local: A }))).toEqual({ kind: 'in-step' });
    }
  });

  it('stops, changing nothing, when the host\'s branch was deleted after the first run', () => {
    expect(syncStep(facts({ remote: undefined }))).toMatchObject({ kind: 'stop', reason: expect.stringContaining('deleted on the host') });
  });
});
