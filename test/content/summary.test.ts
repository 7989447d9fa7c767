import { describe, expect, it } from 'vitest';
import { parseSummary, serializeSummary, type SummaryStructure } from '../../src/content/summary.js';

const SEEN = `# Table of contents

* [Introduction](README.md)
* [Getting started](getting-started/README.md)
  * [Install](getting-started/install.md "Install the CLI")
* [Status page](https://status.example.com)

## Reference

* [API reference](api-reference.md)
`;

function existing(...paths: string[]): (path: string) => boolean {
  const set = new Set(paths);
  return (path) => set.has(path);
}

describe('parseSummary', () => {
  it('reads the seen grammar: title, nesting, toc titles, link pages and groups', () => {
    const { structure, problems } = parseSummary(SEEN, {
      path: 'SUMMARY.md',
      exists: existing('README.md', 'getting-started/README.md', 'getting-started/install.md', 'api-reference.md'),
    });
    expect(problems).toEqual([]);
    expect(structure).toEqual({
      title: 'Table of contents',
      entries: [
        { type: 'page', title: 'Introduction', path: 'README.md', gitPath: 'README.md', line: 3, children: [] },
        {
          type: 'page',
          title: 'Getting started',
          path: 'getting-started/README.md',
          gitPath: 'getting-started/README.md',
          line: 4,
          children: [
            {
              type: 'page',
              title: 'Install',
              tocTitle: 'Install the CLI',
              path: 'getting-started/install.md',
              gitPath: 'getting-started/install.md',
              line: 5,
              children: [],
            },
          ],
        },
        { type: 'link', title: 'Status page', href: 'https://status.example.com', line: 6, children: [] },
        {
          type: 'group',
          title: 'Reference',
          line: 8,
          items: [{ type: 'page', title: 'API reference', path: 'api-reference.md', gitPath: 'api-reference.md', line: 10, children: [] }],
        },
      ],
    } satisfies SummaryStructure);
  });

  it('nests by 2 spaces, 4 spaces or tabs, and `-`, `+` or numbered items', () => {
    const text = [
      '# TOC',
      '- [A](a.md)',
      '    - [B](b.md)',
      '\t\t+ [C](c.md)',
      '    1. [D](d.md)',
      '* [E](e.md)',
      '  * [F](f.md)',
      '    * [G](g.md)',
      '  * [H](h.md)',
    ].join('\n');
    const { structure, problems } = parseSummary(text, { path: 'SUMMARY.md' });
    expect(problems).toEqual([]);
    const shape = (items: SummaryStructure['entries']): unknown =>
      items.map((item) => (item.type === 'group' ? item.title : [item.title, shape(item.children)]));
    expect(shape(structure.entries)).toEqual([
      ['A', [['B', [['C', []]]], ['D', []]]],
      ['E', [['F', [['G', []]]], ['H', []]]],
    ]);
  });

  it('resolves paths against the SUMMARY folder: decoded, <wrapped>, folders mean README.md, anchors are links', () => {
    const text = [
      '# Contents',
      '',
      '* [Spaces](my%20page.md)',
      '* [Wrapped](<other page.md> \'Other\')',
      '* [Folder](guide/)',
      '* [Up and back](guide/../up.md)',
      '* [Anchor](#faq)',
      '* [Mail](mailto:docs@example.com)',
      '* [Escaped \\[beta\\] &amp; more](beta.md)',
    ].join('\n');
    const { structure, problems } = parseSummary(text, { path: 'docs/SUMMARY.md', root: 'docs/' });
    expect(problems).toEqual([]);
    expect(structure.entries.map((e) => (e.type === 'page' ? [e.title, e.gitPath, e.path, e.tocTitle] : e.type === 'link' ? [e.title, e.href] : e))).toEqual([
      ['Spaces', 'docs/my page.md', 'my page.md', undefined],
      ['Wrapped', 'docs/other page.md', 'other page.md', 'Other'],
      ['Folder', 'docs/guide/README.md', 'guide/README.md', undefined],
      ['Up and back', 'docs/up.md', 'up.md', undefined],
      ['Anchor', '#faq'],
      ['Mail', 'mailto:docs@example.com'],
      ['Escaped [beta] & more', 'docs/beta.md', 'beta.md', undefined],
    ]);
  });

  it('strips the anchors the hosted platform writes after group titles, and ignores comments and rules', () => {
    const text = '# TOC\n\n<!-- a comment\nover lines -->\n## Getting Started <a href="#getting-started" id="getting-started"></a>\n\n* [A](a.md)\n\n---\n\n## Second\n* [B](b.md)\n';
    const { structure, problems } = parseSummary(text, { path: 'SUMMARY.md' });
    expect(problems).toEqual([]);
    expect(structure.entries.map((e) => (e.type === 'group' ? [e.title, e.items.map((i) => i.title)] : e.title))).toEqual([
      ['Getting Started', ['A']],
      ['Second', ['B']],
    ]);
  });

  it('accepts a SUMMARY without an H1', () => {
    const { structure, problems } = parseSummary('* [A](a.md)\n', { path: 'SUMMARY.md' });
    expect(problems).toEqual([]);
    expect(structure.title).toBe('Table of contents');
    expect(structure.entries).toHaveLength(1);
  });

  it('warns of each line the hosted platform tolerates, with its number, and keeps reading', () => {
    const text = [
      '# Table of contents', // 1
      '', // 2
      '* [Intro](README.md)', // 3
      '* Just text, not a link', // 4
      '* [Escape](../../etc/passwd.md)', // 5
      '* [Again](README.md)', // 6
      '* [Missing](getting-started/install.md)', // 7
      '* [Picture](hero.png)', // 8
      'Some stray paragraph', // 9
      '* [Empty]()', // 10
      '* [Outside the root](../outside.md)', // 11
    ].join('\n');
    const { structure, problems } = parseSummary(text, { path: 'docs/SUMMARY.md', root: 'docs/', exists: existing('docs/README.md') });
    const warning = (line: number, message: string) => ({ path: 'docs/SUMMARY.md', line, message, severity: 'warning' });
    expect(problems).toEqual([
      warning(4, 'an item is a link `[Title](page.md)`, found "Just text, not a link": its nested items are shown in its place'),
      warning(5, '../../etc/passwd.md points outside the content root: ignored'),
      warning(6, 'docs/README.md is already listed on line 3: shown as a link to that page'),
      warning(7, 'the listed file docs/getting-started/install.md does not exist: ignored, its nested items are shown in its place'),
      warning(8, 'hero.png is not a markdown file (an item points at a .md file, a URL or an #anchor): ignored'),
      warning(9, 'not an item of the table of contents (`* [Title](page.md)` or a `## Group` heading), ignored: "Some stray paragraph"'),
      warning(10, 'the link "Empty" has no target: ignored, its nested items are shown in its place'),
      warning(11, '../outside.md points outside the content root: ignored'),
    ]);
    expect(structure.entries.map((e) => [e.type, e.title])).toEqual([
      ['page', 'Intro'],
      ['link', 'Again'],
    ]);
  });

  it('counts lines of CRLF files and skips a BOM', () => {
    const { problems } = parseSummary('\uFEFF# TOC\r\n\r\n* [A](a.md)\r\n* nope\r\n', { path: 'SUMMARY.md' });
    expect(problems).toEqual([
      { path: 'SUMMARY.md', line: 4, severity: 'warning', message: 'an item is a link `[Title](page.md)`, found "nope": its nested items are shown in its place' },
    ]);
  });
});

describe('serializeSummary', () => {
  it('writes the seen format, which parses back to the same structure', () => {
    const { structure } = parseSummary(SEEN, { path: 'SUMMARY.md' });
    expect(serializeSummary(structure)).toBe(SEEN);
  });

  it('escapes titles and encodes paths so that they read back unchanged', () => {
    const structure: SummaryStructure = {
      title: 'Contents',
      entries: [
        {
          type: 'page',
          title: 'Arrays [1] and \\ slashes',
          tocTitle: 'Say "hi"',
          path: 'my page (draft) 100%.md',
          children: [{ type: 'link', title: 'Site', href: 'https://example.com/a_(b)', children: [] }],
        },
        { type: 'group', title: 'Group', items: [{ type: 'page', title: 'Deep', path: 'a/b/c.md', children: [] }] },
      ],
    };
    const text = serializeSummary(structure);
    expect(text).toBe(
      '# Contents\n\n* [Arrays \\[1\\] and \\\\ slashes](my%20page%20%28draft%29%20100%25.md "Say \\"hi\\"")\n  * [Site](https://example.com/a_(b))\n\n## Group\n\n* [Deep](a/b/c.md)\n',
    );
    const strip = (s: SummaryStructure): unknown => JSON.parse(JSON.stringify(s, (k, v) => (k === 'line' || k === 'gitPath' ? undefined : v)));
    expect(strip(parseSummary(text, { path: 'SUMMARY.md' }).structure)).toEqual(strip(structure));
  });
});
