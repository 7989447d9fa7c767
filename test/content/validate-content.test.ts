import { describe, expect, it } from 'vitest';
import { formatProblem, sortProblems } from '../../src/content/problems.js';
import { checkContent, validateContent, type ContentCheck } from '../../src/content/validate-content.js';
import { reanalyzePages } from '../../src/content/revise-tree.js';
import { memoryTree, tinyPng, type MemoryFile } from '../helpers/content.js';

async function problems(files: Parameters<typeof memoryTree>[0]): Promise<string[]> {
  return (await validateContent(memoryTree(files))).map((p) => `${p.severity === 'warning' ? 'warning: ' : ''}${formatProblem(p)}`);
}

describe('validateContent', () => {
  it('finds nothing wrong with a tree in the format', async () => {
    expect(
      await problems({
        '.gitbook.yaml': 'root: ./docs/\n',
        'docs/SUMMARY.md': '# TOC\n\n* [Home](README.md)\n\n## Group\n\n* [Page](page.md)\n* [Site](https://example.com)\n',
        'docs/README.md': '---\ndescription: Home\ncover: .gitbook/assets/a.png\n---\n# Home\n',
        'docs/page.md': '# Page\n',
        'docs/.gitbook/assets/a.png': tinyPng(1, 1),
        'docs/.gitbook/includes/x.md': '---\ntitle: X\n---\nX\n',
        'docs/.gitbook/vars.yaml': 'a: b\n',
        'outside.md': '---\nbroken: [\n---\n',
      }),
    ).toEqual([]);
  });

  it('reports broken YAML front matter with file and line', async () => {
    expect(await problems({ 'README.md': '# Home\n', 'guide.md': '---\ntitle: ok\ndescription: "unclosed\n---\n# Guide\n' })).toEqual([
      expect.stringMatching(/^guide\.md:4: front matter is not valid YAML: unexpected end of the stream within a double quoted scalar/),
    ]);
  });

  it('warns of what the hosted platform tolerates in SUMMARY.md', async () => {
    expect(
      await problems({
        'SUMMARY.md': '# TOC\n\n* [A](a.md)\n  * Not a link\n* [A again](a.md)\n* [Gone](gone.md)\n* [Out](../../x.md)\n',
        'a.md': '# A\n',
      }),
    ).toEqual([
      'warning: SUMMARY.md:4: an item is a link `[Title](page.md)`, found "Not a link": its nested items are shown in its place',
      'warning: SUMMARY.md:5: a.md is already listed on line 3: shown as a link to that page',
      'warning: SUMMARY.md:6: the listed file gone.md does not exist: ignored, its nested items are shown in its place',
      'warning: SUMMARY.md:7: ../../x.md points outside the content root: ignored',
    ]);
  });

  it('reports a .gitbook.yaml that does not parse or whose root escapes', async () => {
    expect(await problems({ '.gitbook.yaml': 'root: [docs\n', 'README.md': '# Home\n' })).toEqual([
      expect.stringMatching(/^\.gitbook\.yaml:2: not valid YAML: /),
    ]);
    expect(await problems({ '.gitbook.yaml': 'root: ../../\n', 'README.md': '# Home\n' })).toEqual([
      '.gitbook.yaml:1: `root` ../../ points outside the repository',
    ]);
  });

  it('reports vars.yaml that is not a string map, and broken includes', async () => {
    expect(
      await problems({
        'README.md': '# Home\n',
        '.gitbook/vars.yaml': 'name: Quire\nversions:\n  - 1\n  - 2\n',
        '.gitbook/includes/footer.md': '---\ntitle: [Footer\n---\nBody\n',
        '.gitbook/includes/header.md': '---\ntitle: 3\n---\nBody\n',
      }),
    ).toEqual([
      expect.stringMatching(/^\.gitbook\/includes\/footer\.md:3: front matter is not valid YAML: /),
      'warning: .gitbook/includes/header.md:2: front matter `title` must be a string',
      'warning: .gitbook/vars.yaml:2: variable versions must be a string, found a list: ignored',
    ]);
  });

  it('reports wrong field types, missing covers, and a broken manifest', async () => {
    expect(
      await problems({
        'README.md': '---\nhidden: "yes"\ncover: nowhere.png\n---\n# Home\n',
        '.quire/manifest.yaml': 'pages: [\n',
      }),
    ).toEqual([
      expect.stringMatching(/^\.quire\/manifest\.yaml:2: not valid YAML: /),
      'README.md:2: front matter `hidden` must be true or false, found string "yes"',
      'warning: README.md:3: front matter `cover` names nowhere.png, which is not a file of the content (paths are relative to the page)',
    ]);
  });

  it('reports symbolic links under the content root, and warns of submodules', async () => {
    expect(
      await problems({
        'README.md': '# Home\n',
        'link.md': { content: 'README.md', mode: '120000' },
        'vendor/lib': { content: 'ignored', mode: '160000' },
      }),
    ).toEqual([
      'link.md: symbolic links are not supported: commit the file itself',
      'warning: vendor/lib: a submodule: its content is not part of the space',
    ]);
  });
});

describe('reanalyzePages: a tree that differs only in page contents', () => {
  const base: Record<string, MemoryFile> = {
    '.gitbook.yaml': 'root: ./docs/\nredirects:\n  old: nowhere.md\n',
    'docs/SUMMARY.md': '# TOC\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Missing](missing.md)\n* [Cover](cover.md)\n',
    'docs/README.md': '# Home\n',
    'docs/guide.md': '---\nhidden: "yes"\n---\n# Guide\n',
    'docs/cover.md': '---\ncover: images/none.png\n---\n# Cover\n',
    'docs/images/a.png': tinyPng(1, 1),
    'docs/link.md': 'not listed: a file\n',
  };
  const edits: Array<[string, Record<string, string>]> = [
    ['an error fixed, another page broken', { 'docs/guide.md': '# Guide\n\nFixed.\n', 'docs/README.md': '---\ntitle: [\n---\n# Home\n' }],
    ['a cover pointed at a file that exists', { 'docs/cover.md': '---\ncover: images/a.png\n---\n# Cover\n' }],
    ['a page longer than the indexes read', { 'docs/README.md': `# Home\n\n${'word '.repeat(220_000)}\n` }],
    ['nothing', {}],
  ];

  for (const [what, edit] of edits) {
    it(`finds what a whole check finds: ${what}`, async () => {
      const before = await checkContent(memoryTree(base));
      const after = memoryTree({ ...base, ...edit });
      const changed = new Map(Object.keys(edit).map((path) => [path, after.entries.find((entry) => entry.path === path)!.oid]));
      const again = await reanalyzePages(before, changed, after);
      // Only the changed pages were read again.
      expect(new Set(after.reads)).toEqual(new Set(changed.values()));
      const whole = await checkContent(after);
      const text = (check: ContentCheck) => sortProblems(check.problems).map((p) => `${p.severity ?? 'error'} ${formatProblem(p)}`);
      expect(text(again)).toEqual(text(whole));
      expect(text(whole).length).toBeGreaterThan(0);
      expect(again.pageChecks.map((check) => [check.oid, check.options])).toEqual(whole.pageChecks.map((check) => [check.oid, check.options]));
    });
  }
});
