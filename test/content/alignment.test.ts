/**
 * The alignment shared by the line and block diffs, checked as a property over many small random sequences: its
 * steps replay both sequences exactly, in order, and keep as many elements as a longest common subsequence has.
 */
import { describe, expect, it } from 'vitest';
import { align, type AlignmentStep } from '../../src/content/alignment.js';

/** The length of a longest common subsequence, by the textbook recursion (small inputs only). */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const memo = new Map<string, number>();
  const go = (i: number, j: number): number => {
    if (i === a.length || j === b.length) return 0;
    const key = `${i},${j}`;
    let found = memo.get(key);
    if (found === undefined) {
      found = a[i] === b[j] ? go(i + 1, j + 1) + 1 : Math.max(go(i + 1, j), go(i, j + 1));
      memo.set(key, found);
    }
    return found;
  };
  return go(0, 0);
}

/** What the steps say each sequence was: kept and removed elements for the first, kept and added for the second. */
function replay(steps: AlignmentStep[], before: readonly string[], after: readonly string[]) {
  const first: string[] = [];
  const second: string[] = [];
  for (const step of steps) {
    if (step.kind === 'same') {
      expect(before[step.before]).toBe(after[step.after]);
      first.push(before[step.before]);
      second.push(after[step.after]);
    } else {
      expect(step.before[1] > step.before[0] || step.after[1] > step.after[0]).toBe(true);
      first.push(...before.slice(...step.before));
      second.push(...after.slice(...step.after));
    }
  }
  return { first, second };
}

/** A deterministic generator, so that a failure shows the same case again. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('align', () => {
  it('replays both sequences and keeps a longest common subsequence, over 2,000 random pairs', () => {
    const next = random(7);
    const sequence = () => Array.from({ length: Math.floor(next() * 12) }, () => 'abcd'[Math.floor(next() * 4)]);
    for (let round = 0; round < 2000; round++) {
      const before = sequence();
      const after = sequence();
      const steps = align(before, after, 100);
      const { first, second } = replay(steps, before, after);
      expect(first, JSON.stringify({ before, after })).toEqual(before);
      expect(second, JSON.stringify({ before, after })).toEqual(after);
      expect(steps.filter((step) => step.kind === 'same').length, JSON.stringify({ before, after })).toBe(lcsLength(before, after));
    }
  });

  it('leaves a middle longer than the bound unaligned, as one run, keeping the equal start and end', () => {
    const before = ['start', 'x', 'y', 'z', 'end'];
    const after = ['start', 'z', 'y', 'x', 'w', 'end'];
    expect(align(before, after, 3)).toEqual([
      { kind: 'same', before: 0, after: 0 },
      { kind: 'replaced', before: [1, 4], after: [1, 5], unaligned: true },
      { kind: 'same', before: 4, after: 5 },
    ]);
    expect(align(before, after, 4).some((step) => step.kind === 'replaced' && step.unaligned)).toBe(false);
  });
});
