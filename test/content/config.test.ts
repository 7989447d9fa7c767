import { describe, expect, it } from 'vitest';
import { parseGitbookConfig } from '../../src/content/config.js';

/** `.gitbook.yaml` as found in repositories the hosted platform's Git Sync wrote. */
describe('.gitbook.yaml as found', () => {
  it('an empty file, or one with only comments, is the defaults', () => {
    for (const text of ['', '\n', '# nothing here\n', '\uFEFF']) {
      expect(parseGitbookConfig(text)).toEqual({
        config: { root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: {}, redirectLines: {} },
        problems: [],
      });
    }
  });

  it('invisible characters around keys and values are not part of them', () => {
    const text = 'root: ./\n\n\u200Bstructure:  \n    readme: README.md  \n    summary: SUMMARY.md\u200B\n\nredirects:\n  \uFEFFold: new.md\u200B\n';
    expect(parseGitbookConfig(text)).toEqual({
      config: { root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: { old: 'new.md' }, redirectLines: { old: 8 } },
      problems: [],
    });
    expect(parseGitbookConfig('\u200Bstructure:\n  summary: toc/SUMMARY.md\u200B\n').config.summary).toBe('toc/SUMMARY.md');
  });

  it('root with or without ./ and a trailing /', () => {
    for (const root of ['./docs/', './docs', 'docs/', 'docs', '/docs', 'docs//']) {
      expect(parseGitbookConfig(`root: ${root}\n`).config.root).toBe('docs/');
    }
    for (const root of ['./', '.', '/', '""']) expect(parseGitbookConfig(`root: ${root}\n`).config.root).toBe('');
  });

  it('keeps dozens of redirects, to pages or to full URLs, in order, with their lines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `  old/page-${i}: https://example.com/p/${i}` : `  old/page-${i}: new/page-${i}.md`));
    const { config, problems } = parseGitbookConfig(`root: ./\n\nredirects:\n${lines.join('\n')}\n`);
    expect(problems).toEqual([]);
    expect(Object.keys(config.redirects)).toHaveLength(40);
    expect(Object.keys(config.redirects)[0]).toBe('old/page-0');
    expect(config.redirects['old/page-3']).toBe('https://example.com/p/3');
    expect(config.redirects['old/page-4']).toBe('new/page-4.md');
    expect(config.redirectLines['old/page-4']).toBe(8);
  });

  it('a value of the wrong shape is a warning (the default is used); only what leaves the repository or does not parse is an error', () => {
    const { config, problems } = parseGitbookConfig('root: ./docs/\nstructure: [a]\nredirects:\n  a: [b]\n  c: d.md\n');
    expect(config).toMatchObject({ root: 'docs/', summary: 'SUMMARY.md', redirects: { c: 'd.md' } });
    expect(problems.map((p) => p.severity)).toEqual(['warning', 'warning']);
    expect(parseGitbookConfig('just a sentence\n').problems).toMatchObject([{ severity: 'warning' }]);
    expect(parseGitbookConfig('root: ../../\n').problems).toMatchObject([{ line: 1, message: '`root` ../../ points outside the repository' }]);
    expect(parseGitbookConfig('root: ../../\n').problems[0].severity).toBeUndefined();
  });
});
