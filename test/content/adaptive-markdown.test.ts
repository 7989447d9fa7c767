/** A page's markdown with only the `{% if %}` branches a reader is shown (src/content/adaptive-markdown.ts). */
import { describe, expect, it } from 'vitest';
import { adaptedMarkdown, conditionsOf } from '../../src/content/adaptive-markdown.js';

const holdsFor = (claims: string[]) => (condition: string) => claims.includes(condition.trim());

describe('adaptedMarkdown', () => {
  const page = ['# Title', '', 'Before.', '', '{% if beta %}', 'Beta **only**.', '{% elif staff %}', 'Staff.', '{% else %}', 'Everyone else.', '{% endif %}', '', 'After.', ''].join('\n');

  it('keeps the shown branch and the rest byte for byte, drops the tags and the other branches', () => {
    expect(adaptedMarkdown(page, holdsFor(['beta']))).toBe('# Title\n\nBefore.\n\nBeta **only**.\n\nAfter.\n');
    expect(adaptedMarkdown(page, holdsFor(['staff']))).toBe('# Title\n\nBefore.\n\nStaff.\n\nAfter.\n');
    expect(adaptedMarkdown(page, holdsFor([]))).toBe('# Title\n\nBefore.\n\nEveryone else.\n\nAfter.\n');
  });

  it('adapts conditions nested in a shown branch, and in list items; leaves a page without conditions untouched', () => {
    const nested = '{% if a %}\nOuter.\n\n{% if b %}\nInner.\n{% endif %}\n{% endif %}\n';
    expect(adaptedMarkdown(nested, holdsFor(['a']))).toBe('Outer.\n\n\n');
    expect(adaptedMarkdown(nested, holdsFor(['a', 'b']))).toBe('Outer.\n\nInner.\n');
    expect(adaptedMarkdown(nested, holdsFor(['b']))).toBe('\n');
    const list = '* One\n* Two\n\n  {% if a %}\n  Hidden.\n  {% endif %}\n';
    expect(adaptedMarkdown(list, holdsFor([]))).not.toContain('Hidden');
    expect(adaptedMarkdown(list, holdsFor(['a']))).toContain('Hidden.');
    const plain = 'No {{ conditions }} here, `{% if x %}` in code.\n';
    expect(adaptedMarkdown(plain, holdsFor([]))).toBe(plain);
  });
});

describe('conditionsOf', () => {
  it('lists every condition a renderer can be asked about, nested and in every branch, each once; none in code', () => {
    const page = ['{% if a %}', 'A.', '', '{% if b == "x" %}', 'B.', '{% endif %}', '{% elif c %}', 'C.', '{% elsif a %}', '{% else %}', '{% if d %}', 'D.', '{% endif %}', '{% endif %}', '', '* item', '', '  {% if e %}', '  E.', '  {% endif %}', ''].join('\n');
    expect(conditionsOf(page).sort()).toEqual(['a', 'b == "x"', 'c', 'd', 'e']);
    expect(conditionsOf('No `{% if x %}` here.\n\n```\n{% if y %}\n{% endif %}\n```\n')).toEqual([]);
    // Each condition it lists is one the renderer asks about (and only those).
    const asked = new Set<string>();
    adaptedMarkdown(page, (condition) => (asked.add(condition), true));
    adaptedMarkdown(page, (condition) => (asked.add(condition), false));
    for (const condition of asked) expect(conditionsOf(page)).toContain(condition);
  });
});
