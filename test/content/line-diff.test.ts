/**
 * A page's markdown compared line by line (src/content/line-diff.ts): the alignment, the hunks and their line numbers
 * as `diff -u` counts them, and the bound on the work a big middle may take.
 */
import { describe, expect, it } from 'vitest';
import { diffLines, hunksOf, linesOf, markdownLineDiff } from '../../src/content/line-diff.js';

const marks = (lines: Array<{ change: string; text: string }>) => lines.map((line) => `${line.change === 'added' ? '+' : line.change === 'removed' ? '-' : ' '}${line.text}`);

describe('diffLines', () => {
  it('keeps common lines and puts what a run removes before what it adds', () => {
    expect(marks(diffLines(['a', 'b', 'c'], ['a', 'B', 'c']))).toEqual([' a', '-b', '+B', ' c']);
    expect(marks(diffLines(['a', 'b', 'c', 'd'], ['x', 'b', 'y', 'd']))).toEqual(['-a', '+x', ' b', '-c', '+y', ' d']);
    expect(marks(diffLines([], ['a']))).toEqual(['+a']);
    expect(marks(diffLines(['a'], []))).toEqual(['-a']);
  });

  it('past the bound, leaves the middle all removed then all added (no table the size of the product)', () => {
    expect(marks(diffLines(['s', 'a', 'b', 'c', 'e'], ['s', 'b', 'x', 'e'], 2))).toEqual([' s', '-a', '-b', '-c', '+b', '+x', ' e']);
    const big = Array.from({ length: 100_000 }, (_, i) => `line ${i}`);
    const other = big.map((line, i) => (i % 2 ? line : `${line}!`));
    // Only the last line is common: 99,999 lines a side of middle, far past the bound.
    const lines = diffLines(big, other);
    expect(lines).toHaveLength(199_999);
    expect(lines.slice(0, 99_999).every((line) => line.change === 'removed')).toBe(true);
    expect(lines.slice(99_999, 199_998).every((line) => line.change === 'added')).toBe(true);
  });
});

describe('linesOf and hunksOf', () => {
  it('reads lines as diff does (no empty line after the last end of line) and counts hunks as diff -u does', () => {
    expect(linesOf('a\r\nb\n')).toEqual(['a', 'b']);
    expect(linesOf(undefined)).toEqual([]);
    const before = Array.from({ length: 20 }, (_, i) => `${i + 1}`);
    const after = [...before];
    after[1] = 'two';
    after.splice(15, 1);
    const hunks = hunksOf(diffLines(before, after));
    expect(hunks.map(({ lines, ...numbers }) => [numbers, marks(lines)])).toEqual([
      [{ beforeStart: 1, beforeLines: 5, afterStart: 1, afterLines: 5 }, [' 1', '-2', '+two', ' 3', ' 4', ' 5']],
      [{ beforeStart: 13, beforeLines: 7, afterStart: 13, afterLines: 6 }, [' 13', ' 14', ' 15', '-16', ' 17', ' 18', ' 19']],
    ]);
    // Changes closer than twice the context share one hunk.
    after.splice(15, 0, '16');
    after[7] = 'eight';
    expect(hunksOf(diffLines(before, after))).toHaveLength(1);
  });

  it('answers a page added or removed as one hunk, and nothing for equal texts', () => {
    expect(markdownLineDiff({ after: '# New\n\nText.\n' })).toEqual([
      { beforeStart: 1, beforeLines: 0, afterStart: 1, afterLines: 3, lines: [{ change: 'added', text: '# New' }, { change: 'added', text: '' }, { change: 'added', text: 'Text.' }] },
    ]);
    expect(markdownLineDiff({ before: 'same\n', after: 'same\n' })).toEqual([]);
  });
});
