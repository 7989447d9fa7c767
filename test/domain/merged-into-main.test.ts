import { describe, expect, it } from 'vitest';
import { basesOf, isMergedIntoMain, needsBaseCheck, type ChangeRequestFacts } from '../../src/domain/change-requests/merged-into-main.js';

const base = 'b'.repeat(40);
const updated = 'u'.repeat(40);
const head = 'h'.repeat(40);

const cr = (status: ChangeRequestFacts['status'], merged: string | null = null): ChangeRequestFacts => ({ status, revision_initial: base, revision_merged_ancestor: merged });

describe('change requests merged into main outside Quire', () => {
  it('marks an open or draft change request whose own commits main contains', () => {
    for (const status of ['open', 'draft'] as const) {
      expect(needsBaseCheck(cr(status), head, true)).toBe(true);
      expect(isMergedIntoMain(cr(status), { head, inMain: true, inBase: false })).toBe(true);
    }
  });

  it('leaves it when main does not contain its head (nothing merged, or only cherry-picked copies)', () => {
    expect(needsBaseCheck(cr('open'), head, false)).toBe(false);
    expect(isMergedIntoMain(cr('open'), { head, inMain: false, inBase: false })).toBe(false);
  });

  it('leaves a change request with no commits of its own: its head is a base, or a base contains it', () => {
    expect(needsBaseCheck(cr('open'), base, true)).toBe(false);
    expect(isMergedIntoMain(cr('open'), { head: base, inMain: true, inBase: true })).toBe(false);
    expect(needsBaseCheck(cr('open', updated), updated, true)).toBe(false);
    // A branch moved back behind its base (a forced push): main contains it, but it brings nothing.
    expect(isMergedIntoMain(cr('open'), { head, inMain: true, inBase: true })).toBe(false);
  });

  it('leaves merged and archived change requests as they are, and a branch that is gone', () => {
    for (const status of ['merged', 'archived'] as const) {
      expect(needsBaseCheck(cr(status), head, true)).toBe(false);
      expect(isMergedIntoMain(cr(status), { head, inMain: true, inBase: false })).toBe(false);
    }
    expect(needsBaseCheck(cr('open'), undefined, true)).toBe(false);
    expect(isMergedIntoMain(cr('open'), { head: undefined, inMain: true, inBase: false })).toBe(false);
  });

  it('takes as bases main when the change request was opened and when it was last updated from main', () => {
    expect(basesOf(cr('open'))).toEqual([base]);
    expect(basesOf(cr('open', updated))).toEqual([base, updated]);
  });
});
