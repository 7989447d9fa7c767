import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../src/content/convert.js';
import { assetRef, entriesOfPages, pageRef, planImport, type ExistingContent, type ImportNode, type ImportPageNode, type ImportTree } from '../../src/content/import-plan.js';
import { folderOf } from '../../src/content/paths.js';
import { buildRevision } from '../../src/content/revision.js';
import { gitBlobOid, memoryFacts, memoryTree, TEST_COMMIT, tinyPng } from '../helpers/content.js';

function page(key: string, file: string, title: string, markdown: string, children: ImportNode[] = [], extra: Partial<ImportPageNode> = {}): ImportPageNode {
  return { kind: 'page', key, file, title, body: parseMarkdown(markdown), children, ...extra };
}

/** The existing content of a tree given as files; its pages as buildRevision reads them. */
async function existing(files: Record<string, string | Buffer>, root = ''): Promise<ExistingContent> {
  const tree = memoryTree(files);
  const summaryPath = `${root}SUMMARY.md`;
  const revision = await buildRevision(tree, TEST_COMMIT, memoryFacts());
  const summary = files[summaryPath];
  return {
    entries: tree.entries.map((e) => ({ path: e.path, oid: e.oid })),
    root,
    summaryPath,
    summaryText: summary === undefined ? undefined : String(summary),
    pageEntries: entriesOfPages(revision.pages, folderOf(summaryPath)),
  };
}

const text = (plan: { files: Map<string, Buffer> }, path: string) => plan.files.get(path)?.toString('utf8');

describe('planImport', () => {
  it('places pages by their source paths, names the top-level readme after its title, writes SUMMARY.md listing what was there first', async () => {
    // The importers mark links into the import with pageRef; the plan turns them into relative paths.
    const install = page('install', 'guide/install.md', 'Install', `Back [home](${pageRef('home')})`);
    const guide = page('guide', 'guide/README.md', 'Guide', '', [install]);
    const tree: ImportTree = { nodes: [page('home', 'README.md', 'Acme docs', `See [install](${pageRef('install', 'steps')}).`, [guide])], assets: [], total: 3 };
    const plan = planImport(await existing({ 'README.md': '# Space\n', 'notes.md': '# Notes\n' }), tree);
    expect([...plan.files.keys()].sort()).toEqual(['SUMMARY.md', 'acme-docs.md', 'guide/README.md', 'guide/install.md']);
    expect(text(plan, 'acme-docs.md')).toBe('# Acme docs\n\nSee [install](guide/install.md#steps).\n');
    expect(text(plan, 'guide/README.md')).toBe('# Guide\n');
    expect(text(plan, 'guide/install.md')).toBe('# Install\n\nBack [home](../acme-docs.md)\n');
    expect(text(plan, 'SUMMARY.md')).toBe(
      '# Table of contents\n\n* [Space](README.md)\n* [Notes](notes.md)\n* [Acme docs](acme-docs.md)\n  * [Guide](guide/README.md)\n    * [Install](guide/install.md)\n',
    );
    expect(plan).toMatchObject({ pages: 3, assets: 0 });
  });

  it('appends to an existing SUMMARY.md after its last entry, groups last, and leaves its lines as they were', async () => {
    const summary = '# Contents\n\n* [Home](README.md)\n\n## Reference\n\n*   [API](api.md "The API")\n';
    const tree: ImportTree = {
      nodes: [page('a', 'a.md', 'A', 'a'), { kind: 'group', title: 'Imported', children: [page('b', 'b.md', 'B', 'b'), { kind: 'link', title: 'Site', href: 'https://x.test/', children: [] }] }],
      assets: [],
      total: 2,
    };
    const plan = planImport(await existing({ 'README.md': '# Home\n', 'api.md': '# API\n', 'SUMMARY.md': summary }), tree);
    expect(text(plan, 'SUMMARY.md')).toBe(`${summary}* [A](a.md)\n\n## Imported\n\n* [B](b.md)\n* [Site](https://x.test/)\n`);
  });

  it('gives clashing names a suffix: files by number, folders as a whole, twins (X.md / X/README.md) and case count', async () => {
    const tree: ImportTree = {
      nodes: [
        page('guide', 'guide/README.md', 'Guide', '', [page('install', 'guide/install.md', 'Install', `[api](${pageRef('api')})`)]),
        page('api', 'api.md', 'API', ''),
        page('faq', 'faq.md', 'FAQ', ''),
        page('setup', 'Setup.md', 'Setup', ''),
      ],
      assets: [],
      total: 4,
    };
    const plan = planImport(
      await existing({ 'README.md': '# Home\n', 'guide/README.md': '# Old guide\n', 'api/README.md': '# Old API\n', 'faq.md': '# Old FAQ\n', 'faq-2.md': '# Also\n', 'setup.md': '# s\n' }),
      tree,
    );
    expect([...plan.files.keys()].filter((p) => p !== 'SUMMARY.md').sort()).toEqual(['Setup-2.md', 'api-2.md', 'faq-3.md', 'guide-2/README.md', 'guide-2/install.md']);
    expect(text(plan, 'guide-2/install.md')).toBe('# Install\n\n[api](../api-2.md)\n');
  });

  it('writes files to .gitbook/assets: " (n)" on a clash, identical bytes not written again', async () => {
    const logo = tinyPng(2, 2);
    const other = tinyPng(3, 3);
    const tree: ImportTree = {
      nodes: [page('p', 'p.md', 'P', `![a](${assetRef('u1')}) ![b](${assetRef('u2')}) ![c](${assetRef('u3')}) ![d](${assetRef('u4')})`, [], { frontMatter: { cover: assetRef('u2'), description: 'D' } })],
      assets: [
        { key: 'u1', name: 'logo.png', bytes: logo },
        { key: 'u2', name: 'logo.png', bytes: other },
        { key: 'u3', name: 'copy.png', bytes: other },
        { key: 'u4', name: '../../etc/pass wd', bytes: Buffer.from('x') },
      ],
      total: 5,
    };
    const plan = planImport(await existing({ 'README.md': '# Home\n', '.gitbook/assets/logo.png': logo }), tree);
    expect([...plan.files.keys()].sort()).toEqual(['.gitbook/assets/logo (1).png', '.gitbook/assets/pass wd', 'SUMMARY.md', 'p.md']);
    expect(text(plan, 'p.md')).toBe(
      '---\ncover: .gitbook/assets/logo (1).png\ndescription: D\n---\n\n# P\n\n![a](.gitbook/assets/logo.png) ![b](<.gitbook/assets/logo (1).png>) ![c](<.gitbook/assets/logo (1).png>) ![d](<.gitbook/assets/pass wd>)\n',
    );
    expect(plan).toMatchObject({ pages: 1, assets: 4 });
  });

  it('writes under the content root, and its result reads back as a revision with the pages in order', async () => {
    const files = { '.gitbook.yaml': 'root: ./docs/\n', 'docs/README.md': '# Home\n' };
    const tree: ImportTree = { nodes: [page('g', 'g/README.md', 'G', '', [page('h', 'g/h.md', 'H', 'text')], { generated: true })], assets: [], total: 1 };
    const plan = planImport({ ...(await existing(files, 'docs/')) }, tree);
    expect([...plan.files.keys()].sort()).toEqual(['docs/SUMMARY.md', 'docs/g/README.md', 'docs/g/h.md']);
    expect(plan.pages).toBe(1);
    const after = { ...files, ...Object.fromEntries([...plan.files].map(([p, b]) => [p, b])) };
    const revision = await buildRevision(memoryTree(after), TEST_COMMIT, memoryFacts());
    expect(revision.pages.map((p) => [p.title, p.path, p.pages.map((c) => c.path)])).toEqual([
      ['Home', 'readme', []],
      ['G', 'g', ['g/h']],
    ]);
  });

  it('writes titles so they read back as written, markdown punctuation included', async () => {
    const title = 'C# for *fast* [beta] <users> _now_ `x`';
    const files = { 'README.md': '# Home\n' };
    const plan = planImport(await existing(files), { nodes: [page('t', 't.md', title, 'Body')], assets: [], total: 1 });
    const after = { ...files, ...Object.fromEntries(plan.files) };
    const revision = await buildRevision(memoryTree(after), TEST_COMMIT, memoryFacts());
    expect(revision.pages.map((p) => p.title)).toEqual(['Home', title]);
  });

  it('leaves the tree it was given as it was (it may be planned again on another head)', async () => {
    const tree: ImportTree = { nodes: [page('a', 'a.md', 'A', `[self](${pageRef('a')})`)], assets: [], total: 1 };
    const first = planImport(await existing({ 'README.md': '# Home\n' }), tree);
    const second = planImport(await existing({ 'README.md': '# Home\n', 'a.md': '# Taken meanwhile\n' }), tree);
    expect(text(first, 'a.md')).toBe('# A\n\n[self](a.md)\n');
    expect(text(second, 'a-2.md')).toBe('# A\n\n[self](a-2.md)\n');
    expect(gitBlobOid(first.files.get('a.md')!)).not.toBe(gitBlobOid(second.files.get('a-2.md')!));
  });
});
