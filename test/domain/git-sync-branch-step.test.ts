/**
 * What a run of Git Sync does with a branch of the host kept in step with a change request
 * (src/domain/git-sync/branch-step.ts): the side behind brought forward, both moved merged, what ends one ends the
 * other, and never a side overwritten.
 */
import { describe, expect, it } from 'vitest';
import { branchStep, type BranchFacts } from '../../src/domain/git-sync/branch-step.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const facts = (over: Partial<BranchFacts>): BranchFacts => ({
  origin: 'host', remote: A, local: B, open: true, synced: C, remoteInLocal: false, localInRemote: false, remoteInMain: false, ...over,
});
const kind = (over: Partial<BranchFacts>) => branchStep(facts(over)).kind;

describe('a branch kept in step with a change request', () => {
  it('does nothing when both are the same commit', () => {
    for (const origin of ['host', 'quire'] as const) expect(kind({ origin, remote: A, local: A })).toBe('none');
  });

  it('brings the side behind forward: pushes what only Quire has, takes what only the host has', () => {
    expect(kind({ remoteInLocal: true })).toBe('push');
    expect(kind({ localInRemote: true })).toBe('take');
    // A change request made in Quire, never on the host yet: its branch is created there.
    expect(kind({ origin: 'quire', remote: undefined, synced: undefined })).toBe('push');
    // Connected again to a host that already has the branch: whichever side is behind follows.
    expect(kind({ origin: 'quire', synced: undefined, remoteInLocal: true })).toBe('push');
    expect(kind({ origin: 'quire', synced: undefined, localInRemote: true })).toBe('take');
  });

  it('merges when both moved, and follows a rewritten host branch only when Quire added nothing since', () => {
    expect(kind({})).toBe('merge');
    expect(kind({ synced: undefined })).toBe('merge');
    expect(kind({ local: C, synced: C })).toBe('replace');
  });

  it('a host branch with commits to review opens a change request; one already in main, or unchanged, does not', () => {
    expect(kind({ open: false, local: undefined, synced: undefined })).toBe('open');
    expect(kind({ open: false, local: undefined, synced: undefined, remoteInMain: true })).toBe('none');
    // Its change request ended: only new commits (not in main, not in the ended change request) open another.
    expect(kind({ open: false, synced: A })).toBe('none');
    expect(kind({ open: false, remoteInLocal: true })).toBe('none');
    expect(kind({ open: false })).toBe('open');
  });

  it('ends Quire\'s branch on the host with its change request, unless the host added to it since', () => {
    expect(kind({ origin: 'quire', open: false, remote: A, synced: A })).toBe('delete');
    expect(kind({ origin: 'quire', open: false, remote: B, local: B, synced: C })).toBe('delete');
    expect(kind({ origin: 'quire', open: false, remote: A, local: B, synced: C })).toBe('none');
    expect(kind({ origin: 'quire', open: false, remote: undefined })).toBe('none');
  });

  it('a host branch deleted closes its change request, unless Quire holds commits the host never had', () => {
    expect(kind({ remote: undefined, local: A, synced: A })).toBe('close');
    expect(kind({ remote: undefined, local: B, synced: A })).toBe('push');
    // Quire's own branch deleted on the host: nothing is closed; it comes back with the next commit.
    expect(kind({ origin: 'quire', remote: undefined, local: A, synced: A })).toBe('none');
    expect(kind({ origin: 'quire', remote: undefined, local: B, synced: A })).toBe('push');
  });

  it('never acts on a change request whose branch is gone', () => {
    expect(kind({ local: undefined })).toBe('none');
  });
});
