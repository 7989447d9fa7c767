/**
 * The tree `quire migrate` writes from a source's pages and files when the source serves no git: read back as a
 * revision, it gives the same pages (ids, titles, paths, markdown, nesting, groups, links) and files (ids, bytes).
 */
import { describe, expect, it } from 'vitest';
import { treeOfPages, type SourceFile, type SourcePage } from '../../src/content/pages-tree.js';
import { buildRevision } from '../../src/content/revision.js';
import type { Page } from '../../src/content/model.js';
import { memoryFacts, memoryTree, TEST_COMMIT } from '../helpers/content.js';

async function readBack(pages: SourcePage[], files: SourceFile[] = []) {
  const tree = treeOfPages(pages, files);
  const revision = await buildRevision(memoryTree(Object.fromEntries(tree)), TEST_COMMIT, memoryFacts());
  return { tree, revision };
}

const outline = (pages: Page[]): unknown[] =>
  pages.map((page) => ({
    id: page.id,
    type: page.type,
    title: page.title,
    ...('markdown' in page ? { markdown: page.markdown, path: page.path } : {}),
    ...(page.type === 'link' ? { href: page.href } : {}),
    pages: outline(page.pages),
  }));

describe('treeOfPages', () => {
  it('writes nested pages, groups and links that read back as the same pages, with their ids (groups and links too)', async () => {
    const { tree, revision } = await readBack([
      { id: 'home', title: 'Welcome', type: 'document', path: '', markdown: 'Start here.\n' },
      {
        id: 'grp',
        title: 'Guides',
        type: 'group',
        path: 'guides',
        pages: [
          {
            id: 'guide',
            title: 'Guide',
            type: 'document',
            path: 'guide',
            description: 'How to',
            markdown: '{% hint style="info" %}\nRead **this**.\n{% endhint %}\n',
            pages: [
              { id: 'install', title: 'Install', type: 'document', path: 'guide/install', markdown: '```bash\nnpm i\n```\n' },
              { id: 'lnk', title: 'Elsewhere', type: 'link', href: 'https://example.com/' },
            ],
          },
        ],
      },
    ]);
    expect([...tree.keys()].sort()).toEqual(['.quire/manifest.yaml', 'README.md', 'SUMMARY.md', 'guide/README.md', 'guide/install.md']);
    expect(tree.get('guide/README.md')).toBe('---\ndescription: How to\n---\n\n# Guide\n\n{% hint style="info" %}\nRead **this**.\n{% endhint %}\n');
    expect(outline(revision.pages)).toEqual([
      { id: 'home', type: 'document', title: 'Welcome', markdown: 'Start here.\n', path: 'readme', pages: [] },
      {
        id: 'grp',
        type: 'group',
        title: 'Guides',
        pages: [
          {
            id: 'guide',
            type: 'document',
            title: 'Guide',
            markdown: '{% hint style="info" %}\nRead **this**.\n{% endhint %}\n',
            path: 'guide',
            pages: [
              { id: 'install', type: 'document', title: 'Install', markdown: '```bash\nnpm i\n```\n', path: 'guide/install', pages: [] },
              { id: 'lnk', type: 'link', title: 'Elsewhere', href: 'https://example.com/', pages: [] },
            ],
          },
        ],
      },
    ]);
  });

  it("keeps a file's own path when the source gives a safe one, so that files of one name in two folders stay apart", async () => {
    const { tree, revision } = await readBack([{ id: 'p', title: 'P', path: '', markdown: 'x\n' }], [
      { id: 'f1', name: 'info.png', bytes: Buffer.from('a'), gitPath: 'images/info.png' },
      { id: 'f2', name: 'info.png', bytes: Buffer.from('b'), gitPath: '.gitbook/assets/info.png' },
      { id: 'f3', name: 'x.png', bytes: Buffer.from('c'), gitPath: '../../x.png' },
      { id: 'f4', name: 'y.png', bytes: Buffer.from('d'), gitPath: '.quire/manifest.yaml' },
      { id: 'f5', name: 'info.png', bytes: Buffer.from('e') },
    ]);
    expect([...tree.keys()].filter((p) => p.endsWith('.png')).sort()).toEqual([
      '.gitbook/assets/info (1).png',
      '.gitbook/assets/info.png',
      '.gitbook/assets/x.png',
      '.gitbook/assets/y.png',
      'images/info.png',
    ]);
    expect(revision.files.map((f) => f.id).sort()).toEqual(['f1', 'f2', 'f3', 'f4', 'f5']);
  });

  it('keeps source paths inside the tree and apart: `..`, separators and a path given twice', async () => {
    const { tree, revision } = await readBack([
      { id: 'a', title: 'A', path: '../../etc/passwd', markdown: 'a\n' },
      { id: 'b', title: 'B', path: 'notes', markdown: 'b\n' },
      { id: 'c', title: 'C', path: 'Notes', markdown: 'c\n' },
      { id: 'd', title: 'D', path: 'x\\y:z', markdown: 'd\n' },
    ]);
    for (const path of tree.keys()) expect(path.split('/')).not.toContain('..');
    expect([...tree.keys()].filter((p) => p.endsWith('.md') && p !== 'SUMMARY.md').sort()).toEqual(['Notes-2.md', 'etc/passwd.md', 'notes.md', 'x-y-z.md']);
    expect(revision.pages.map((p) => [p.type === 'document' && p.id, p.title])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
      ['d', 'D'],
    ]);
  });

  it('writes files under .gitbook/assets with their ids, names (but for separators) and bytes, a clashing name numbered', async () => {
    const one = Buffer.from([0, 1, 2, 255]);
    const two = Buffer.from('second');
    const { tree, revision } = await readBack([{ id: 'p', title: 'P', path: '', markdown: 'x\n' }], [
      { id: 'f1', name: 'logo.png', bytes: one },
      { id: 'f2', name: 'Logo.png', bytes: two },
      { id: 'f3', name: '../evil.sh', bytes: two },
      { id: 'f4', name: '.DS_Store', bytes: one },
    ]);
    expect(tree.get('.gitbook/assets/logo.png')).toEqual(one);
    expect(tree.get('.gitbook/assets/Logo (1).png')).toEqual(two);
    expect([...tree.keys()].filter((p) => p.startsWith('.gitbook/')).sort()).toEqual([
      '.gitbook/assets/..-evil.sh',
      '.gitbook/assets/.DS_Store',
      '.gitbook/assets/Logo (1).png',
      '.gitbook/assets/logo.png',
    ]);
    expect(revision.files.map((f) => [f.id, f.name]).sort()).toEqual([
      ['f1', 'logo.png'],
      ['f2', 'Logo (1).png'],
      ['f3', '..-evil.sh'],
      ['f4', '.DS_Store'],
    ]);
  });
});
