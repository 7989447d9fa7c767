/** A page's markdown with only the `{% if %}` branches a reader is shown (src/content/adaptive-markdown.ts). */
import { describe, expect, it } from 'vitest';
import { adaptedMarkdown } from '../../src/content/adaptive-markdown.js';

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
