import { describe, expect, it } from 'vitest';
import { parseSummary, type SummaryStructure } from '../../src/content/summary.js';
import { serializeSummary } from '../../src/content/summary-writing.js';

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

  it('leaves out link items to other schemes than http(s) and mailto, however written, with a warning', () => {
    const text = '# TOC\n\n* [Home](README.md)\n* [Evil](javascript:alert(1))\n  * [Nested](more.md)\n* [Upper](JaVaScRiPt:alert(2))\n* [Entity](&#106;avascript:alert(3))\n* [Data](data:text/html,x)\n* [VB](<vbscript:msgbox(1)>)\n* [Mail](mailto:ops@example.com)\n';
    const { structure, problems } = parseSummary(text, { path: 'SUMMARY.md', exists: existing('README.md', 'more.md') });
    expect(structure.entries.map((e) => [e.type, e.title, e.type === 'link' ? e.href : undefined])).toEqual([
      ['page', 'Home', undefined],
      ['page', 'Nested', undefined],
      ['link', 'Mail', 'mailto:ops@example.com'],
    ]);
    expect(problems.map((p) => [p.line, p.message])).toEqual(
      [[4, 'javascript'], [6, 'javascript'], [7, 'javascript'], [8, 'data'], [9, 'vbscript']].map(([line, scheme]) => [
        line,
        expect.stringContaining(`leads to a ${scheme}: URL: ignored`),
      ]),
    );
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

/** Forms seen in repositories the hosted platform's Git Sync wrote (each a small fixture; none copied). */
describe('parseSummary: the forms the hosted platform writes', () => {
  const parse = (text: string, files: string[], options: { path?: string; root?: string } = {}) =>
    parseSummary(text, { path: options.path ?? 'SUMMARY.md', root: options.root, exists: existing(...files) });
  /** [type, title, gitPath | href, children] */
  const rows = (entries: SummaryStructure['entries']): unknown =>
    entries.map((e) =>
      e.type === 'group'
        ? ['group', e.title, rows(e.items)]
        : e.type === 'page'
          ? ['page', e.title, e.gitPath, rows(e.children)]
          : e.type === 'link'
            ? ['link', e.title, e.pageGitPath ?? e.href, e.anchor, rows(e.children)]
            : ['computed', e.title, rows(e.children)],
    );

  it('a file listed twice or more: the first listing is the page, the others links to it (with their anchor)', () => {
    const text = '# TOC\n\n* [Start](start.md)\n  * [Start](start.md)\n  * [Linux](start.md#linux)\n* [Start again](./start.md "Again")\n';
    const { structure, problems } = parse(text, ['start.md']);
    expect(rows(structure.entries)).toEqual([
      ['page', 'Start', 'start.md', [
        ['link', 'Start', 'start.md', undefined, []],
        ['link', 'Linux', 'start.md', 'linux', []],
      ]],
      ['link', 'Start again', 'start.md', undefined, []],
    ]);
    expect(problems.map((p) => [p.line, p.severity, p.message])).toEqual([
      [4, 'warning', 'start.md is already listed on line 3: shown as a link to that page'],
      [5, 'warning', 'start.md is already listed on line 3: shown as a link to that page'],
      [6, 'warning', 'start.md is already listed on line 3: shown as a link to that page'],
    ]);
    const again = structure.entries[1];
    expect(again).toMatchObject({ type: 'link', href: './start.md', tocTitle: 'Again' });
  });

  it('the first listing may carry an anchor: it is the page, and writes back with it', () => {
    const { structure, problems } = parse('* [Part](guide.md#part)\n* [Guide](guide.md)\n', ['guide.md']);
    expect(problems).toHaveLength(1);
    expect(structure.entries[0]).toMatchObject({ type: 'page', gitPath: 'guide.md', anchor: 'part' });
    expect(serializeSummary(structure)).toContain('* [Part](guide.md#part)');
  });

  it('group headings with anchors, at any depth, and any first heading', () => {
    const text = [
      '## 9', // a first heading that is not an H1: a group
      '',
      '### Version 9 <a href="#v9" id="v9"></a>',
      '',
      ' * [Begin](/contents/9/begin.md)',
      '',
      '# Table of Contents <a href="#toc" id="toc"></a>', // an H1 after content: a group too
      '* [Other](other.md)',
    ].join('\n');
    const { structure, problems } = parse(text, ['contents/9/begin.md', 'other.md']);
    expect(problems).toEqual([]);
    expect(structure.title).toBe('Table of contents');
    expect(rows(structure.entries)).toEqual([
      ['group', '9', []],
      ['group', 'Version 9', [['page', 'Begin', 'contents/9/begin.md', []]]],
      ['group', 'Table of Contents', [['page', 'Other', 'other.md', []]]],
    ]);
  });

  it('character references CommonMark cannot read as a character are U+FFFD, never an error', () => {
    const text = '## Big &#x110000; &#1114112; &#0; &#xD800; &#x1F600; &#x1234567; <a id="x"></a>\n\n* [Item &#x110000;](item.md "Toc &#99999999;")\n';
    const { structure, problems } = parse(text, ['item.md']);
    expect(problems).toEqual([]);
    expect(rows(structure.entries)).toEqual([['group', 'Big \ufffd \ufffd \ufffd \ufffd \u{1F600} &#x1234567;', [['page', 'Item \ufffd', 'item.md', []]]]]);
    // Eight digits are not a reference (CommonMark allows seven at most): kept as written.
    expect(structure.entries[0]).toMatchObject({ items: [{ tocTitle: 'Toc &#99999999;' }] });
  });

  it('reads headings in one pass: a 200 KB heading of "<", of spaces, and closing sequences', () => {
    const text = [`## ${'<'.repeat(200_000)}`, `## a${' '.repeat(200_000)}b ##`, '## C# ', '### ## ', '####### seven'].join('\n');
    const { structure, problems } = parse(text, []);
    expect(rows(structure.entries)).toEqual([
      ['group', '<'.repeat(200_000), []],
      ['group', 'a b', []],
      ['group', 'C#', []],
      ['group', '', []],
    ]);
    expect(problems.map((problem) => problem.line)).toEqual([5]);
  });

  it('the readme inside the first group, and its children in another folder', () => {
    const text = '# Table of Contents\n\n## Get started <a href="#get-started" id="get-started"></a>\n\n* [Welcome](README.md)\n  * [Install](guides/setup/install.md)\n';
    const { structure, problems } = parse(text, ['README.md', 'guides/setup/install.md']);
    expect(problems).toEqual([]);
    expect(structure.title).toBe('Table of Contents');
    expect(rows(structure.entries)).toEqual([['group', 'Get started', [['page', 'Welcome', 'README.md', [['page', 'Install', 'guides/setup/install.md', []]]]]]]);
  });

  it('backslash-escaped targets, angle-bracket targets with spaces, percent escapes, and folders without a slash', () => {
    const text = [
      '* [MiniMax Music \\[legacy\\]](models/minimax-music-\\[legacy].md)',
      '* [Spaces](<guides/my page.md>)',
      '* [Encoded](guides/my%20page%20two.md)',
      '* [Cyrillic](%D0%BD%D0%B0%D1%87%D0%B0%D0%BB%D0%BE.md)',
      '* [Folder](guides)',
      '* [Literal percent](100%25.md)',
    ].join('\n');
    const files = ['models/minimax-music-[legacy].md', 'guides/my page.md', 'guides/my page two.md', 'начало.md', 'guides/README.md', '100%.md'];
    const { structure, problems } = parse(text, files);
    expect(problems).toEqual([]);
    expect(rows(structure.entries)).toEqual([
      ['page', 'MiniMax Music [legacy]', 'models/minimax-music-[legacy].md', []],
      ['page', 'Spaces', 'guides/my page.md', []],
      ['page', 'Encoded', 'guides/my page two.md', []],
      ['page', 'Cyrillic', 'начало.md', []],
      ['page', 'Folder', 'guides/README.md', []],
      ['page', 'Literal percent', '100%.md', []],
    ]);
  });

  it('URL items are link pages', () => {
    const { structure } = parse('* [Status](https://status.example.com)\n* [Mail](mailto:a@example.com)\n', []);
    expect(rows(structure.entries)).toEqual([
      ['link', 'Status', 'https://status.example.com', undefined, []],
      ['link', 'Mail', 'mailto:a@example.com', undefined, []],
    ]);
  });

  it('a fenced ```yaml block as an item is a computed page, at any depth, and writes back as written', () => {
    const text = [
      '# Table of contents',
      '',
      '* [Overview](README.md)',
      '  * ```yaml',
      '    type: builtin:openapi',
      '    props:',
      '      models: true',
      '      downloadLink: false',
      '    dependencies:',
      '      spec:',
      '        ref:',
      '          kind: openapi',
      '          spec: petstore-api',
      '    ```',
      '',
      '## Reference',
      '',
      '* ```yaml',
      '  props:',
      '    models: false',
      '  type: builtin:openapi',
      '  dependencies:',
      '    spec:',
      '      ref:',
      '        kind: openapi',
      '        spec: billing',
      '  ```',
      '* [After](after.md)',
    ].join('\n');
    const { structure, problems } = parse(text, ['README.md', 'after.md']);
    expect(problems).toEqual([]);
    expect(rows(structure.entries)).toEqual([
      ['page', 'Overview', 'README.md', [['computed', 'petstore-api', []]]],
      ['group', 'Reference', [['computed', 'billing', []], ['page', 'After', 'after.md', []]]],
    ]);
    const first = (structure.entries[0] as { children: unknown[] }).children[0];
    expect(first).toMatchObject({
      type: 'computed',
      line: 4,
      source: { type: 'builtin:openapi', props: { models: true, downloadLink: false }, dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore-api' } } } },
    });
    expect(serializeSummary(structure)).toBe(`${text}\n`);
  });

  it('a YAML item that does not parse is an error (YAML Quire must read); one without a type a warning', () => {
    const { problems } = parse('* ```yaml\n  type: [unclosed\n  ```\n* ```yaml\n  props: {}\n  ```\n', []);
    expect(problems.map((p) => [p.line, p.severity ?? 'error'])).toEqual([
      [3, 'error'],
      [4, 'warning'],
    ]);
  });

  it('text lines that are not items, and items without a link, are warnings; nested items take their place', () => {
    const text = '# TOC\n\nSome introduction.\n\n- [Start](start.md)\n- Overview\n    - [Nodes](nodes.md)\n    - [Gone](gone.md)\n        - [Kept](kept.md)\n';
    const { structure, problems } = parse(text, ['start.md', 'nodes.md', 'kept.md']);
    expect(rows(structure.entries)).toEqual([
      ['page', 'Start', 'start.md', []],
      ['page', 'Nodes', 'nodes.md', []],
      ['page', 'Kept', 'kept.md', []],
    ]);
    expect(problems.map((p) => [p.line, p.severity])).toEqual([
      [3, 'warning'],
      [6, 'warning'],
      [8, 'warning'],
    ]);
  });
});
