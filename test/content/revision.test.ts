import { describe, expect, it } from 'vitest';
import type { Page, Revision } from '../../src/content/model.js';
import { formatProblem, sortProblems } from '../../src/content/problems.js';
import { analyzeTree, buildRevision } from '../../src/content/revision.js';
import { parsePageFiles, type PageFilesInput, type ParsedPage } from '../../src/content/page.js';
import type { KeptSummary } from '../../src/content/summary-kept.js';
import { gitBlobOid, memoryFacts, memoryTree, TEST_COMMIT, tinyPng, type MemoryFile } from '../helpers/content.js';

async function build(files: Record<string, MemoryFile>, facts = memoryFacts()): Promise<Revision> {
  return buildRevision(memoryTree(files), TEST_COMMIT, facts);
}

/** [type, title, path, gitPath?, children?] per page: the shape of a tree. */
function shape(pages: Page[]): unknown[] {
  return pages.map((page) => {
    const row: unknown[] = [page.type, page.title, page.path];
    if (page.type === 'document' || page.type === 'computed') row.push(page.gitPath);
    if (page.type === 'link') row.push(page.href);
    if (page.pages.length > 0) row.push(shape(page.pages));
    return row;
  });
}

function find(pages: Page[], path: string): Page {
  for (const page of pages) {
    if (page.path === path) return page;
    const inner = page.pages.length > 0 ? (() => { try { return find(page.pages, path); } catch { return undefined; } })() : undefined;
    if (inner) return inner;
  }
  throw new Error(`no page ${path}`);
}

function doc(pages: Page[], path: string) {
  const page = find(pages, path);
  if (page.type !== 'document' && page.type !== 'computed') throw new Error(`${path} is a ${page.type}`);
  return page;
}

const HERO = tinyPng(12, 5);

/** A repository in the seen layout: .gitbook.yaml with a root, SUMMARY.md, assets, includes, vars. */
const SEEN_LAYOUT: Record<string, MemoryFile> = {
  '.gitbook.yaml': 'root: ./docs/\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n\nredirects:\n  previous/page: getting-started/install.md\n',
  'README.md': '# The repository README, outside the content root\n',
  'LICENSE': 'MIT',
  'docs/README.md': '---\ndescription: Quire documentation\n---\n\n# Introduction\n\nWelcome.\n',
  'docs/SUMMARY.md': `# Table of contents

* [Introduction](README.md)
* [Getting started](getting-started/README.md)
  * [Install the CLI](getting-started/install.md "Install")
  * [Configure](getting-started/configure.md)
* [Status page](https://status.example.com)

## Reference <a href="#reference" id="reference"></a>

* [API reference](api-reference.md)
  * [Changelog](https://example.com/changelog)
* [FAQ](<faq page.md>)
`,
  'docs/getting-started/README.md': '# Getting started\n\nStart here.\n',
  'docs/getting-started/install.md': `---
description: >-
  Install the CLI and authenticate against your organization.
icon: rocket
cover: ../.gitbook/assets/hero.png
coverY: -40
hidden: true
vars:
  cli_version: 3.2.1
layout:
  cover:
    visible: true
    size: hero
  title:
    visible: true
  description:
    visible: true
  tableOfContents:
    visible: true
  outline:
    visible: false
  pagination:
    visible: true
---

# Install the CLI

{% include "../.gitbook/includes/footer.md" %}
`,
  'docs/getting-started/configure.md': 'No heading here.\n',
  'docs/api-reference.md': '# API reference\n',
  'docs/faq page.md': '# FAQ\n',
  'docs/.gitbook/assets/hero.png': HERO,
  'docs/.gitbook/assets/hero (1).png': tinyPng(3, 3),
  'docs/.gitbook/assets/guide.pdf': Buffer.from('%PDF-1.4 not really'),
  'docs/.gitbook/includes/footer.md': '---\ntitle: Footer\n---\n\nNeed help? Write to {{ $vars.support }}.\n',
  'docs/.gitbook/vars.yaml': 'support: help@example.com\nversion: 3.10\n',
};

describe('buildRevision: the seen layout', () => {
  it('parses the tree into the expected revision', async () => {
    const revision = await build(SEEN_LAYOUT);
    expect(revision.root).toBe('docs/');
    expect(revision.commit).toBe(TEST_COMMIT);
    expect(shape(revision.pages)).toEqual([
      ['document', 'Introduction', 'readme', 'docs/README.md'],
      ['document', 'Getting started', 'getting-started', 'docs/getting-started/README.md', [
        ['document', 'Install the CLI', 'getting-started/install', 'docs/getting-started/install.md'],
        ['document', 'Configure', 'getting-started/configure', 'docs/getting-started/configure.md'],
      ]],
      ['link', 'Status page', 'status-page', 'https://status.example.com'],
      ['group', 'Reference', 'reference', [
        ['document', 'API reference', 'api-reference', 'docs/api-reference.md', [
          ['link', 'Changelog', 'api-reference/changelog', 'https://example.com/changelog'],
        ]],
        ['document', 'FAQ', 'faq-page', 'docs/faq page.md'],
      ]],
    ]);

    const install = doc(revision.pages, 'getting-started/install');
    const installText = SEEN_LAYOUT['docs/getting-started/install.md'] as string;
    expect(install).toEqual({
      id: 'new-page-docs-getting-started-install-md',
      type: 'document',
      title: 'Install the CLI',
      tocTitle: 'Install',
      slug: 'install',
      path: 'getting-started/install',
      pages: [],
      gitPath: 'docs/getting-started/install.md',
      blobOid: gitBlobOid(Buffer.from(installText)),
      markdown: '{% include "../.gitbook/includes/footer.md" %}\n',
      description: 'Install the CLI and authenticate against your organization.',
      icon: 'rocket',
      hidden: true,
      variables: { cli_version: '3.2.1' },
      layout: {
        width: 'default',
        cover: true,
        coverSize: 'hero',
        title: true,
        description: true,
        tableOfContents: true,
        outline: false,
        pagination: true,
        metadata: true,
      },
      cover: { file: 'new-file-docs-gitbook-assets-hero-png', yPos: -40 },
      frontMatter: {
        description: 'Install the CLI and authenticate against your organization.',
        icon: 'rocket',
        cover: '../.gitbook/assets/hero.png',
        coverY: -40,
        hidden: true,
        vars: { cli_version: '3.2.1' },
        layout: {
          cover: { visible: true, size: 'hero' },
          title: { visible: true },
          description: { visible: true },
          tableOfContents: { visible: true },
          outline: { visible: false },
          pagination: { visible: true },
        },
      },
      createdAt: '2024-01-01T00:00:00.000Z#docs/getting-started/install.md',
      updatedAt: '2024-02-01T00:00:00.000Z#docs/getting-started/install.md',
    });
    expect(doc(revision.pages, 'getting-started/configure')).toMatchObject({ title: 'Configure', markdown: 'No heading here.\n' });
    expect(find(revision.pages, 'reference')).toMatchObject({ id: 'new-page-docs-SUMMARY-md-reference', slug: 'reference' });

    expect(revision.files).toEqual([
      {
        id: 'new-file-docs-gitbook-assets-guide-pdf',
        name: 'guide.pdf',
        gitPath: 'docs/.gitbook/assets/guide.pdf',
        blobOid: gitBlobOid(Buffer.from('%PDF-1.4 not really')),
        size: 19,
        contentType: 'application/pdf',
      },
      {
        id: 'new-file-docs-gitbook-assets-hero-1-png',
        name: 'hero (1).png',
        gitPath: 'docs/.gitbook/assets/hero (1).png',
        blobOid: gitBlobOid(SEEN_LAYOUT['docs/.gitbook/assets/hero (1).png'] as Buffer),
        size: (SEEN_LAYOUT['docs/.gitbook/assets/hero (1).png'] as Buffer).length,
        contentType: 'image/png',
        dimensions: { width: 3, height: 3 },
      },
      {
        id: 'new-file-docs-gitbook-assets-hero-png',
        name: 'hero.png',
        gitPath: 'docs/.gitbook/assets/hero.png',
        blobOid: gitBlobOid(HERO),
        size: HERO.length,
        contentType: 'image/png',
        dimensions: { width: 12, height: 5 },
      },
    ]);
    expect(revision.reusableContents).toEqual([
      {
        id: 'new-page-docs-gitbook-includes-footer-md',
        title: 'Footer',
        markdown: 'Need help? Write to {{ $vars.support }}.\n',
        gitPath: 'docs/.gitbook/includes/footer.md',
        blobOid: gitBlobOid(Buffer.from(SEEN_LAYOUT['docs/.gitbook/includes/footer.md'] as string)),
      },
    ]);
    expect(revision.variables).toEqual({ support: 'help@example.com', version: '3.10' });
    expect(revision.redirects).toEqual([{ source: 'previous/page', target: { kind: 'page', pageId: install.id } }]);
  });

  it('reads only the blobs it needs: markdown, YAML and images, not other files', async () => {
    const tree = memoryTree(SEEN_LAYOUT);
    await buildRevision(tree, TEST_COMMIT, memoryFacts());
    const pdf = gitBlobOid(SEEN_LAYOUT['docs/.gitbook/assets/guide.pdf'] as Buffer);
    const outside = gitBlobOid(Buffer.from(SEEN_LAYOUT['README.md'] as string));
    expect(tree.reads).not.toContain(pdf);
    expect(tree.reads).not.toContain(outside);
    expect(tree.reads).toContain(gitBlobOid(HERO));
  });
});

describe('buildRevision: structure without SUMMARY.md', () => {
  it('infers pages from folders: README first, then files and folders by name', async () => {
    const revision = await build({
      'README.md': '# Home\n',
      'zeta.md': '# Zeta\n',
      'alpha.md': '# Alpha\n',
      '10-ten.md': '# Ten\n',
      '2-two.md': '# Two\n',
      'guide/README.md': '# Guide\n',
      'guide/b.md': '# B\n',
      'guide/a.md': '# A\n',
      'guide/deep/x.md': '# X\n',
      'loose/one.md': '# One\n',
      'Getting Started.md': 'no title\n',
      '.github/ISSUE_TEMPLATE.md': 'not a page\n',
      'images/logo.png': tinyPng(1, 1),
    });
    expect(shape(revision.pages)).toEqual([
      ['document', 'Home', 'readme', 'README.md'],
      ['document', 'Two', '2-two', '2-two.md'],
      ['document', 'Ten', '10-ten', '10-ten.md'],
      ['document', 'Alpha', 'alpha', 'alpha.md'],
      ['document', 'Getting Started', 'getting-started', 'Getting Started.md'],
      ['document', 'Guide', 'guide', 'guide/README.md', [
        ['document', 'A', 'guide/a', 'guide/a.md'],
        ['document', 'B', 'guide/b', 'guide/b.md'],
        ['document', 'X', 'guide/deep/x', 'guide/deep/x.md'],
      ]],
      ['document', 'One', 'loose/one', 'loose/one.md'],
      ['document', 'Zeta', 'zeta', 'zeta.md'],
    ]);
    expect(revision.files.map((f) => [f.gitPath, f.contentType])).toEqual([
      ['.github/ISSUE_TEMPLATE.md', 'text/markdown'],
      ['images/logo.png', 'image/png'],
    ]);
  });

  it('keeps paths unique: a.md and a/README.md', async () => {
    const revision = await build({ 'a.md': '# File\n', 'a/README.md': '# Folder\n', 'a/b.md': '# B\n' });
    expect(shape(revision.pages)).toEqual([
      ['document', 'File', 'a', 'a.md'],
      ['document', 'Folder', 'a-2', 'a/README.md', [['document', 'B', 'a/b', 'a/b.md']]],
    ]);
  });

  it('uses .gitbook.yaml root and structure.readme', async () => {
    const revision = await build({
      '.gitbook.yaml': 'root: docs\nstructure:\n  readme: intro.md\n',
      'README.md': '# Outside\n',
      'docs/intro.md': '# Intro\n',
      'docs/README.md': '# Also a page\n',
      'docs/usage.md': '# Usage\n',
    });
    expect(shape(revision.pages)).toEqual([
      ['document', 'Intro', 'readme', 'docs/intro.md'],
      ['document', 'Also a page', 'readme-2', 'docs/README.md'],
      ['document', 'Usage', 'usage', 'docs/usage.md'],
    ]);
  });

  it('gives an empty revision for an empty tree', async () => {
    expect(await build({})).toEqual({ commit: TEST_COMMIT, pages: [], files: [], reusableContents: [], variables: {}, root: '', redirects: [] });
  });
});

describe('buildRevision: SUMMARY.md', () => {
  it('makes unlisted markdown files files, and leaves the format files out of files', async () => {
    const revision = await build({
      'SUMMARY.md': '# TOC\n\n* [Listed](listed.md)\n',
      'listed.md': '# Listed\n',
      'unlisted.md': '# Unlisted\n',
      '.gitbook.yaml': 'root: ./\n',
      '.quire/manifest.yaml': 'pages: {}\n',
      '.gitbook/includes/snippet.md': 'Snippet\n',
      '.gitbook/includes/diagram.png': tinyPng(2, 1),
      '.gitbook/vars.yaml': 'a: b\n',
    });
    expect(shape(revision.pages)).toEqual([['document', 'Listed', 'listed', 'listed.md']]);
    expect(revision.files.map((f) => f.gitPath)).toEqual(['.gitbook/includes/diagram.png', 'unlisted.md']);
    expect(revision.reusableContents).toMatchObject([{ title: 'snippet', markdown: 'Snippet\n', gitPath: '.gitbook/includes/snippet.md' }]);
    expect(revision.variables).toEqual({ a: 'b' });
  });

  it('reads a SUMMARY.md at structure.summary, with paths relative to its folder', async () => {
    const revision = await build({
      '.gitbook.yaml': 'structure:\n  summary: toc/contents.md\n',
      'toc/contents.md': '# TOC\n\n* [Home](../README.md)\n* [Same folder](here.md)\n',
      'README.md': '# Home\n',
      'toc/here.md': '# Here\n',
    });
    expect(shape(revision.pages)).toEqual([
      ['document', 'Home', 'readme', 'README.md'],
      ['document', 'Same folder', 'toc/here', 'toc/here.md'],
    ]);
  });

  it('gives groups unique slugs and takes titles from the link text when a page has no H1', async () => {
    const revision = await build({
      'SUMMARY.md': '# TOC\n\n## Guides\n\n* [Untitled page](a.md)\n\n## Guides\n\n* [B](b.md)\n\n## \n\n* [C](c.md)\n',
      'a.md': 'Text without a heading.\n',
      'b.md': '# B\n',
      'c.md': '# C\n',
    });
    expect(shape(revision.pages)).toEqual([
      ['group', 'Guides', 'guides', [['document', 'Untitled page', 'a', 'a.md']]],
      ['group', 'Guides', 'guides-2', [['document', 'B', 'b', 'b.md']]],
      ['group', '', 'group', [['document', 'C', 'c', 'c.md']]],
    ]);
  });
});

describe('buildRevision: ids and timestamps', () => {
  it('takes ids from front matter, then the manifest, then the history facts', async () => {
    const facts = memoryFacts({ 'page:renamed.md': 'pg_from_rename_detection' });
    const revision = await build(
      {
        'SUMMARY.md': '# TOC\n\n* [A](a.md)\n* [B](b.md)\n* [Renamed](renamed.md)\n* [New](new.md)\n* [Site](https://example.com)\n\n## Group\n\n* [Z](z.md)\n',
        'a.md': '---\nid: pg_front_matter\n---\n# A\n',
        'b.md': '# B\n',
        'renamed.md': '# Renamed\n',
        'new.md': '# New\n',
        'z.md': '# Z\n',
        'assets/one.png': tinyPng(1, 1),
        'assets/two.png': tinyPng(2, 2),
        '.quire/manifest.yaml':
          'pages:\n  a.md: pg_manifest_loses_to_front_matter\n  b.md: pg_manifest_b\n  SUMMARY.md#group: pg_group\n  SUMMARY.md#site: pg_link\nfiles:\n  assets/one.png: fl_one\n',
      },
      facts,
    );
    const ids = (pages: Page[]): unknown[] => pages.map((p) => (p.pages.length > 0 ? [p.id, ids(p.pages)] : p.id));
    expect(ids(revision.pages)).toEqual([
      'pg_front_matter',
      'pg_manifest_b',
      'pg_from_rename_detection',
      'new-page-new-md',
      'pg_link',
      ['pg_group', ['new-page-z-md']],
    ]);
    expect(revision.files.map((f) => [f.gitPath, f.id])).toEqual([
      ['assets/one.png', 'fl_one'],
      ['assets/two.png', 'new-file-assets-two-png'],
    ]);
    expect(facts.asked).toEqual(expect.arrayContaining(['page:renamed.md', 'page:new.md', 'file:assets/two.png']));
    expect(facts.asked).not.toContain('page:a.md');
    expect(facts.asked).not.toContain('page:b.md');
  });

  it('gives a copied id to the page that comes first in the page order', async () => {
    const files = {
      'original.md': '---\nid: pg_shared\n---\n# Original\n',
      'copy.md': '---\nid: pg_shared\n---\n# Copy\n',
    };
    const copyFirst = await build({ ...files, 'SUMMARY.md': '* [Copy](copy.md)\n* [Original](original.md)\n' });
    expect(copyFirst.pages.map((p) => [p.title, p.id])).toEqual([
      ['Copy', 'pg_shared'],
      ['Original', 'new-page-original-md'],
    ]);
    const originalFirst = await build({ ...files, 'SUMMARY.md': '* [Original](original.md)\n* [Copy](copy.md)\n' });
    expect(originalFirst.pages.map((p) => [p.title, p.id])).toEqual([
      ['Original', 'pg_shared'],
      ['Copy', 'new-page-copy-md'],
    ]);
    // A manifest entry of the copy that repeats the taken id is not used either.
    const withManifest = await build({
      ...files,
      'SUMMARY.md': '* [Original](original.md)\n* [Copy](copy.md)\n',
      '.quire/manifest.yaml': 'pages:\n  copy.md: pg_copy\n',
    });
    expect(withManifest.pages.map((p) => p.id)).toEqual(['pg_shared', 'pg_copy']);
  });

  it('takes reusable content ids from front matter, and timestamps from the facts', async () => {
    const revision = await build({
      'README.md': '# Home\n',
      '.gitbook/includes/a.md': '---\nid: rc_kept\ntitle: A\n---\nA\n',
      '.gitbook/includes/b.md': 'B\n',
    });
    expect(revision.reusableContents.map((r) => [r.id, r.title])).toEqual([
      ['rc_kept', 'A'],
      ['new-page-gitbook-includes-b-md', 'b'],
    ]);
    expect(doc(revision.pages, 'readme')).toMatchObject({
      createdAt: '2024-01-01T00:00:00.000Z#README.md',
      updatedAt: '2024-02-01T00:00:00.000Z#README.md',
    });
  });
});

describe('buildRevision: redirects', () => {
  it('leads a redirect to a page or an http(s) URL only: other schemes are left out, with a warning', async () => {
    const files = {
      '.gitbook.yaml': 'redirects:\n  old: a.md\n  moved: https://example.com/moved\n  evil: javascript:alert(1)\n  upper: " JaVaScRiPt:alert(2)"\n  mail: mailto:ops@example.com\n  data: data:text/html,x\n',
      'SUMMARY.md': '# TOC\n\n* [A](a.md)\n',
      'a.md': '# A\n',
    };
    const revision = await build(files);
    expect(revision.redirects).toEqual([
      { source: 'old', target: { kind: 'page', pageId: doc(revision.pages, 'a').id } },
      { source: 'moved', target: { kind: 'url', url: 'https://example.com/moved' } },
    ]);
    const { problems } = await analyzeTree(memoryTree(files), TEST_COMMIT, memoryFacts());
    expect(problems.map((p) => `${p.severity ?? 'error'} ${formatProblem(p)}`)).toEqual([
      'warning .gitbook.yaml:4: a redirect may lead only to a page or an http(s) URL: ignored evil -> javascript:alert(1), upper -> JaVaScRiPt:alert(2), mail -> mailto:ops@example.com, ...',
    ]);
  });
});

describe('buildRevision: problems', () => {
  it('never throws: it builds what it can, and analyzeTree lists the problems', async () => {
    const files = {
      'SUMMARY.md': '# TOC\n\n* [A](a.md)\n* [Missing](missing.md)\n  * [B](b.md)\n* [Broken](broken.md)\n',
      'a.md': '---\nhidden: "yes"\n---\n# A\n',
      'b.md': '# B\n',
      'broken.md': '---\ntitle: [unclosed\n---\n# Broken\n\nBody.\n',
      '.gitbook/vars.yaml': 'list:\n  - 1\nname: x\n',
    };
    const revision = await build(files);
    expect(shape(revision.pages)).toEqual([
      ['document', 'A', 'a', 'a.md'],
      ['document', 'B', 'b', 'b.md'],
      ['document', 'Broken', 'broken', 'broken.md'],
    ]);
    expect(doc(revision.pages, 'a').hidden).toBeUndefined();
    // Front matter that does not parse: the whole file is the body (its title heading aside), nothing is lost.
    expect(doc(revision.pages, 'broken').markdown).toBe('---\ntitle: [unclosed\n---\n\nBody.\n');
    expect(revision.variables).toEqual({ name: 'x' });
    const { problems } = await analyzeTree(memoryTree(files), TEST_COMMIT, memoryFacts());
    expect(sortProblems(problems).map((p) => `${p.severity ?? 'error'} ${formatProblem(p)}`)).toEqual([
      'warning .gitbook/vars.yaml:1: variable list must be a string, found a list: ignored',
      'warning SUMMARY.md:4: the listed file missing.md does not exist: ignored, its nested items are shown in its place',
      'error a.md:2: front matter `hidden` must be true or false, found string "yes"',
      expect.stringMatching(/^error broken\.md:\d+: front matter is not valid YAML/),
    ]);
  });
});

describe('buildRevision: pages parsed before', () => {
  /** A ParsedPageStore in a Map, counting the pages the build sends to its parser. */
  function keptParses() {
    const kept = new Map<string, ParsedPage>();
    const parsed: string[] = [];
    return {
      parsed,
      parsedPages: { get: (key: string) => kept.get(key), set: (key: string, page: ParsedPage) => void kept.set(key, page) },
      parsePages: async (input: PageFilesInput) => {
        parsed.push(...input.files.map((file) => file.options.gitPath));
        return parsePageFiles(input);
      },
    };
  }

  it('neither reads nor parses again a page whose blob, path and SUMMARY.md title are the same', async () => {
    const parses = keptParses();
    const files: Record<string, MemoryFile> = {
      'SUMMARY.md': '# TOC\n\n* [A](a.md)\n* [B](b.md)\n* [C](c.md)\n',
      'a.md': '# A\n\nAlpha.\n',
      'b.md': '---\ndescription: Bee\n---\n# B\n',
      'c.md': '# C\n',
    };
    const first = await buildRevision({ ...memoryTree(files), ...parses }, TEST_COMMIT, memoryFacts());
    expect(parses.parsed.sort()).toEqual(['a.md', 'b.md', 'c.md']);

    parses.parsed.length = 0;
    // b.md changes; c.md keeps its blob under another SUMMARY.md title (the title is part of what it parses).
    const changed = { ...files, 'SUMMARY.md': '# TOC\n\n* [A](a.md)\n* [B](b.md)\n* [See](c.md)\n', 'b.md': '# B2\n\nBeta.\n' };
    const tree = memoryTree(changed);
    const second = await buildRevision({ ...tree, ...parses }, TEST_COMMIT, memoryFacts());
    expect(parses.parsed.sort()).toEqual(['b.md', 'c.md']);
    const aBlob = tree.entries.find((entry) => entry.path === 'a.md')!.oid;
    expect(tree.reads).not.toContain(aBlob);
    // The same revision as a build that keeps nothing.
    expect(second).toEqual(await build(changed));
    expect(doc(second.pages, 'a')).toEqual(doc(first.pages, 'a'));
  });

  it('parses a page again when a cover it names became a file, or stopped being one', async () => {
    const parses = keptParses();
    const page = '---\ncover: images/hero.png\n---\n# A\n';
    const without = { 'SUMMARY.md': '# TOC\n\n* [A](a.md)\n', 'a.md': page };
    const problemsOf = async (files: Record<string, MemoryFile>) =>
      (await analyzeTree({ ...memoryTree(files), ...parses }, TEST_COMMIT, memoryFacts())).problems.map((p) => formatProblem(p));

    expect(await problemsOf(without)).toEqual([expect.stringContaining('a.md:2: front matter `cover` names images/hero.png')]);
    expect(await problemsOf({ ...without, 'images/hero.png': HERO })).toEqual([]);
    const withCover = await buildRevision({ ...memoryTree({ ...without, 'images/hero.png': HERO }), ...parses }, TEST_COMMIT, memoryFacts());
    expect(doc(withCover.pages, 'a').cover?.file).toBe('new-file-images-hero-png');
    expect(await problemsOf(without)).toHaveLength(1);
    expect(parses.parsed).toEqual(['a.md', 'a.md', 'a.md']);
  });

  it('keeps a SUMMARY.md parse while the page files it looked for stay as they were', async () => {
    const kept = new Map<string, KeptSummary>();
    const parsedSummaries = { get: (key: string) => kept.get(key), set: (key: string, summary: KeptSummary) => void kept.set(key, summary) };
    const summary = '# TOC\n\n* [A](a.md)\n* [Guide](guide/)\n* [Missing](missing.md)\n';
    const files = { 'SUMMARY.md': summary, 'a.md': '# A\n', 'guide/README.md': '# Guide\n' };
    const summaryBlob = gitBlobOid(Buffer.from(summary));
    const analyze = async (tree: Record<string, MemoryFile>) => {
      const source = memoryTree(tree);
      const analysis = await analyzeTree({ ...source, parsedSummaries }, TEST_COMMIT, memoryFacts());
      return { analysis, summaryRead: source.reads.includes(summaryBlob) };
    };
    const fresh = async (tree: Record<string, MemoryFile>) => (await analyzeTree(memoryTree(tree), TEST_COMMIT, memoryFacts())).revision;

    const first = await analyze(files);
    expect(first.summaryRead).toBe(true);
    expect(kept.size).toBe(1);
    // A page's text changed, another file came: the same parse, SUMMARY.md not read again.
    const edited = { ...files, 'a.md': '# A, edited\n', 'images/x.png': HERO };
    const second = await analyze(edited);
    expect(second.summaryRead).toBe(false);
    expect(second.analysis.revision).toEqual(await fresh(edited));
    expect(second.analysis.problems.map((p) => formatProblem(p))).toEqual([expect.stringContaining('missing.md')]);
    // A file it listed appeared, or one it found went away: parsed again, and the same as a parse of its own.
    const changes: Array<Record<string, MemoryFile>> = [{ ...files, 'missing.md': '# Here now\n' }, { 'SUMMARY.md': summary, 'a.md': '# A\n', 'guide/other.md': '# Other\n' }];
    for (const changed of changes) {
      const again = await analyze(changed);
      expect(again.summaryRead).toBe(true);
      expect(again.analysis.revision).toEqual(await fresh(changed));
      expect(shape(again.analysis.revision.pages)).toEqual(shape((await fresh(changed)).pages));
    }
    expect(shape((await analyze({ ...files, 'missing.md': '# Here now\n' })).analysis.revision.pages).map((row) => (row as unknown[])[1])).toEqual(['A', 'Guide', 'Missing']);
  });
});
