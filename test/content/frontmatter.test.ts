import { describe, expect, it } from 'vitest';
import { frontMatterKeyLine, parseFrontMatter, stringifyFrontMatter } from '../../src/content/frontmatter.js';

function parsed(text: string) {
  const result = parseFrontMatter(text, 'page.md');
  if (!result.ok) throw new Error(result.problem.message);
  return result.value;
}

describe('parseFrontMatter', () => {
  it('splits front matter from the body', () => {
    const value = parsed('---\ndescription: Hello\nicon: rocket\n---\n\n# Title\n');
    expect(value.data).toEqual({ description: 'Hello', icon: 'rocket' });
    expect(value.present).toBe(true);
    expect(value.body).toBe('\n# Title\n');
    expect(value.bodyLine).toBe(5);
    expect(value.yamlText).toBe('description: Hello\nicon: rocket');
  });

  it('gives the whole text as body when there is no front matter', () => {
    expect(parsed('# Title\n\n---\n\nafter a rule\n')).toEqual({ data: {}, present: false, body: '# Title\n\n---\n\nafter a rule\n', bodyLine: 1, yamlText: '' });
  });

  it('keeps date-looking and yes/no values as YAML 1.2 reads them', () => {
    const value = parsed('---\nreleased: 2024-01-05\nanswer: yes\ncount: 3\nratio: 1.5\nflag: true\nnothing: ~\n---\n');
    expect(value.data).toEqual({ released: '2024-01-05', answer: 'yes', count: 3, ratio: 1.5, flag: true, nothing: null });
  });

  it('handles CRLF files, a BOM, and an empty block', () => {
    expect(parsed('\uFEFF---\r\ntitle: x\r\n---\r\nBody\r\n')).toMatchObject({ data: { title: 'x' }, body: 'Body\r\n', bodyLine: 4 });
    expect(parsed('---\n---\nBody')).toMatchObject({ data: {}, present: true, body: 'Body' });
  });

  it('reports a YAML error with the line in the file', () => {
    const result = parseFrontMatter('---\ndescription: ok\nicon: [unclosed\n---\n# T\n', 'docs/page.md');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.path).toBe('docs/page.md');
    expect(result.problem.line).toBe(4);
    expect(result.problem.message).toMatch(/^front matter is not valid YAML: /);

    const tabs = parseFrontMatter('---\na: 1\n\tb: 2\n---\n', 'p.md');
    expect(tabs.ok ? undefined : tabs.problem.line).toBe(3);
    const duplicate = parseFrontMatter('---\na: 1\nb: 2\na: 3\n---\n', 'p.md');
    expect(duplicate.ok ? undefined : duplicate.problem).toMatchObject({ line: 4, message: expect.stringContaining('duplicated mapping key') });
  });

  it('refuses front matter that is not a mapping, or never closed', () => {
    expect(parseFrontMatter('---\n- a\n- b\n---\n', 'p.md')).toEqual({
      ok: false,
      problem: { path: 'p.md', line: 2, message: 'front matter must be a mapping of keys to values, found a list' },
    });
    expect(parseFrontMatter('---\njust a string\n---\n', 'p.md')).toMatchObject({ ok: false, problem: { message: expect.stringContaining('found a string') } });
    expect(parseFrontMatter('---\ntitle: x\n\nbody without end\n', 'p.md')).toEqual({
      ok: false,
      problem: { path: 'p.md', line: 1, message: 'front matter opened here is never closed by a `---` line' },
    });
    expect(parseFrontMatter('---\na: 1\n---more\n---\n', 'p.md')).toEqual({
      ok: false,
      problem: { path: 'p.md', line: 3, message: 'front matter must be closed by a line holding only `---`' },
    });
  });

  it('refuses front matter that aliases expand into a huge value', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 6; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    expect(parseFrontMatter(`---\n${levels.join('\n')}\n---\n`, 'p.md')).toEqual({
      ok: false,
      problem: { path: 'p.md', line: 2, message: 'front matter holds more than 10000 values (YAML aliases can make a small text huge)' },
    });
  });

  it('never runs front matter in another language (gray-matter would eval ---js)', () => {
    const text = '---js\n{ title: (globalThis.__pwned = true, "x") }\n---\nBody\n';
    const value = parsed(text);
    expect(value.present).toBe(false);
    expect(value.body).toBe(text);
    expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
  });

  it('finds the line of a top-level key', () => {
    const value = parsed('---\nid: a\n# comment\nhidden: "yes"\n---\n');
    expect(frontMatterKeyLine(value, 'hidden')).toBe(4);
    expect(frontMatterKeyLine(value, 'missing')).toBe(2);
  });
});

describe('stringifyFrontMatter', () => {
  it('writes keys in their order, unknown keys included, with js-yaml dump', () => {
    const text = stringifyFrontMatter(
      { zeta: 1, description: 'Install the CLI: authenticate', alpha: { nested: [1, 2] }, released: '2024-01-05' },
      '# Title\n',
    );
    expect(text).toBe(
      "---\nzeta: 1\ndescription: 'Install the CLI: authenticate'\nalpha:\n  nested:\n    - 1\n    - 2\nreleased: '2024-01-05'\n---\n# Title\n",
    );
    expect(parsed(text).data).toEqual({ zeta: 1, description: 'Install the CLI: authenticate', alpha: { nested: [1, 2] }, released: '2024-01-05' });
  });

  it('folds long descriptions as the seen files do, and writes no block for no data', () => {
    const description = 'Install the CLI and authenticate against your organization so that every command knows who you are.';
    expect(stringifyFrontMatter({ description }, 'Body')).toBe(
      '---\ndescription: >-\n  Install the CLI and authenticate against your organization so that every\n  command knows who you are.\n---\nBody\n',
    );
    expect(stringifyFrontMatter({}, '# T\n')).toBe('# T\n');
  });

  it('does not read a body that starts with --- as front matter', () => {
    expect(stringifyFrontMatter({ a: 1 }, '---\nnot: front matter\n---\n')).toBe('---\na: 1\n---\n---\nnot: front matter\n---\n');
  });
});
