/**
 * Trees in the forms the hosted platform's Git Sync writes (each a small fixture built here; none copied from a
 * real repository): the revision shows them the way the hosted platform does, and links into them resolve.
 */
import { describe, expect, it } from 'vitest';
import { revisionLinks } from '../../src/content/links.js';
import type { Page, Revision } from '../../src/content/model.js';
import { analyzeTree, buildRevision } from '../../src/content/revision.js';
import { memoryFacts, memoryTree, TEST_COMMIT, tinyPng, type MemoryFile } from '../helpers/content.js';

async function build(files: Record<string, MemoryFile>): Promise<Revision> {
  return buildRevision(memoryTree(files), TEST_COMMIT, memoryFacts());
}

function flat(pages: Page[], out: Page[] = []): Page[] {
  for (const page of pages) {
    out.push(page);
    flat(page.pages, out);
  }
  return out;
}

function byPath(revision: Revision, path: string): Page {
  const page = flat(revision.pages).find((p) => p.path === path);
  if (!page) throw new Error(`no page ${path}: ${flat(revision.pages).map((p) => p.path).join(', ')}`);
  return page;
}

describe('SUMMARY.md forms in a revision', () => {
  it('titles come from SUMMARY.md, sidebar titles from the quoted link title', async () => {
    const revision = await build({
      'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Axon AMQP Extension](amqp.md "AMQP")\n* [Edited in SUMMARY](edited.md)\n',
      'README.md': '# Welcome\n\nHi.\n',
      'amqp.md': '# Axon AMQP Extension\n\nBody.\n',
      'edited.md': '# The old title\n\nBody.\n',
    });
    expect(flat(revision.pages).map((p) => [p.title, p.tocTitle])).toEqual([
      ['Welcome', undefined],
      ['Axon AMQP Extension', 'AMQP'],
      ['Edited in SUMMARY', undefined],
    ]);
    expect(byPath(revision, 'amqp')).toMatchObject({ markdown: 'Body.\n' });
    expect(byPath(revision, 'edited')).toMatchObject({ markdown: '# The old title\n\nBody.\n' });
  });

  it('a file listed twice: one page, and link pages that point at it by id (and anchor)', async () => {
    const revision = await build({
      'SUMMARY.md': '* [Getting Started](start.md)\n  * [Getting Started](start.md)\n  * [Hardware](hardware.md)\n* [Linux setup](start.md#linux)\n',
      'start.md': '# Getting Started\n',
      'hardware.md': '# Hardware\n',
    });
    const start = byPath(revision, 'start');
    expect(flat(revision.pages).map((p) => [p.type, p.title, p.path])).toEqual([
      ['document', 'Getting Started', 'start'],
      ['link', 'Getting Started', 'start/getting-started'],
      ['document', 'Hardware', 'hardware'],
      ['link', 'Linux setup', 'linux-setup'],
    ]);
    expect(byPath(revision, 'start/getting-started')).toMatchObject({ type: 'link', pageId: start.id, href: 'start.md' });
    expect(byPath(revision, 'linux-setup')).toMatchObject({ type: 'link', pageId: start.id, anchor: 'linux', href: 'start.md#linux' });
    const ids = flat(revision.pages).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a fenced YAML item is a computed page with its source; a group holds the readme and children from other folders', async () => {
    const revision = await build({
      'SUMMARY.md': [
        '# Table of contents',
        '',
        '## Get started <a href="#get-started" id="get-started"></a>',
        '',
        '* [Welcome](README.md)',
        '  * [Install](../guides/install.md)',
        '  * [Setup](guides/setup.md)',
        '',
        '## API',
        '',
        '* ```yaml',
        '  type: builtin:openapi',
        '  props:',
        '    models: true',
        '  dependencies:',
        '    spec:',
        '      ref:',
        '        kind: openapi',
        '        spec: petstore',
        '  ```',
      ].join('\n'),
      'README.md': '# Welcome\n',
      'guides/setup.md': '# Setup\n',
    });
    expect(flat(revision.pages).map((p) => [p.type, p.title, p.path])).toEqual([
      ['group', 'Get started', 'get-started'],
      ['document', 'Welcome', 'readme'],
      ['document', 'Setup', 'guides/setup'],
      ['group', 'API', 'api'],
      ['computed-block', 'petstore', 'petstore'],
    ]);
    expect(byPath(revision, 'petstore')).toMatchObject({
      computed: { type: 'builtin:openapi', props: { models: true }, dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore' } } } },
    });
  });

  it('a revision with real errors still builds; only they refuse a push', async () => {
    const files = {
      'SUMMARY.md': '* [A](a.md)\n* [Missing](missing.md)\n* ```yaml\n  type: [\n  ```\n',
      'a.md': '---\ncover: ../nowhere.png\nunknownKey: kept\n---\n# A\n',
    };
    const { revision, problems } = await analyzeTree(memoryTree(files), TEST_COMMIT, memoryFacts());
    expect(flat(revision.pages).map((p) => p.title)).toEqual(['A']);
    expect(problems.map((p) => p.severity ?? 'error').sort()).toEqual(['error', 'warning', 'warning']);
    expect(byPath(revision, 'a')).toMatchObject({ frontMatter: { unknownKey: 'kept' } });
  });
});

describe('.gitbook.yaml and files as found', () => {
  it('invisible characters around keys: the structure is read', async () => {
    const revision = await build({
      '.gitbook.yaml': 'root: ./\n\u200Bstructure:\n  readme: intro.md\n  summary: toc.md\u200B\n',
      'toc.md': '* [Intro](intro.md)\n',
      'intro.md': '# Intro\n',
    });
    expect(flat(revision.pages).map((p) => [p.title, p.path])).toEqual([['Intro', 'readme']]);
  });

  it('redirects are kept: to pages (files, folders), to URLs, and to nothing', async () => {
    const { revision, problems } = await analyzeTree(
      memoryTree({
        '.gitbook.yaml': 'root: ./docs\nredirects:\n  old/install: guides/install.md\n  /old/guides/: ./guides\n  gone: removed.md\n  status: https://status.example.com\n',
        'docs/SUMMARY.md': '* [Guides](guides/README.md)\n  * [Install](guides/install.md)\n',
        'docs/guides/README.md': '# Guides\n',
        'docs/guides/install.md': '# Install\n',
      }),
      TEST_COMMIT,
      memoryFacts(),
    );
    expect(revision.redirects).toEqual([
      { source: 'old/install', target: { kind: 'page', pageId: byPath(revision, 'guides/install').id } },
      { source: 'old/guides', target: { kind: 'page', pageId: byPath(revision, 'guides').id } },
      { source: 'gone', target: { kind: 'missing', path: 'removed.md' } },
      { source: 'status', target: { kind: 'url', url: 'https://status.example.com' } },
    ]);
    expect(problems).toEqual([
      { path: '.gitbook.yaml', line: 5, severity: 'warning', message: 'a redirect leads to no page of the table of contents: gone -> removed.md' },
    ]);
  });

  it('reusable contents at the top of the repository, outside the content root, are read and linked', async () => {
    const revision = await build({
      '.gitbook.yaml': 'root: ./docs/\n',
      'docs/README.md': '# Home\n\n{% include "../.gitbook/includes/footer.md" %}\n',
      '.gitbook/includes/footer.md': '---\ntitle: Footer\n---\nFooter text\n',
    });
    expect(revision.reusableContents).toMatchObject([{ title: 'Footer', gitPath: '.gitbook/includes/footer.md' }]);
    expect(revisionLinks(revision)).toMatchObject([{ relation: 'dependsOn', kind: 'reusable-content', value: revision.reusableContents[0].id, status: 'ok' }]);
  });

  it('files with every kind of name are files, and links reach them percent-encoded or not', async () => {
    const names = [
      'image',
      'notes.md',
      'Screen Shot 2023.png',
      'C#.png',
      'Q&A.png',
      'shot [1].png',
      'image (1).png',
      'at\u202F10.00.png',
      '图片1.png', // (digits: the test's ids keep only ASCII letters and digits of a path)
      'схема2.png',
      'Logo.png',
      'logo.png',
    ];
    const files: Record<string, MemoryFile> = { 'SUMMARY.md': '* [Home](README.md)\n' };
    for (const name of names) files[`.gitbook/assets/${name}`] = name.endsWith('.png') ? tinyPng(2, 2) : 'bytes';
    const links = [
      '![](.gitbook/assets/image)',
      '[n](.gitbook/assets/notes.md)',
      '![](<.gitbook/assets/Screen Shot 2023.png>)',
      '![](.gitbook/assets/Screen%20Shot%202023.png)',
      '![](.gitbook/assets/C%23.png)',
      '![](.gitbook/assets/C#.png)',
      '![](.gitbook/assets/Q&amp;A.png)',
      '![](<.gitbook/assets/shot [1].png>)',
      '![](.gitbook/assets/image%20(1).png)',
      '![](.gitbook/assets/at%E2%80%AF10.00.png)',
      '![](.gitbook/assets/%E5%9B%BE%E7%89%871.png)',
      '![](.gitbook/assets/схема2.png)',
      '![](.gitbook/assets/Logo.png)',
      '![](.gitbook/assets/logo.png)',
    ];
    files['README.md'] = `# Home\n\n${links.join('\n\n')}\n`;
    const revision = await build(files);
    expect(flat(revision.pages).map((p) => p.title)).toEqual(['Home']);
    expect(revision.files.map((f) => f.name).sort()).toEqual([...names].sort());
    expect(revision.files.find((f) => f.name === 'image')).toMatchObject({ contentType: 'application/octet-stream' });
    const found = revisionLinks(revision);
    expect(found.filter((l) => l.status !== 'ok')).toEqual([]);
    const fileName = (id: string) => revision.files.find((f) => f.id === id)?.name;
    expect(found.map((l) => fileName(l.value))).toEqual([
      'image',
      'notes.md',
      'Screen Shot 2023.png',
      'C#.png',
      'Q&A.png',
      'shot [1].png',
      'image (1).png',
      'at\u202F10.00.png',
      '图片1.png',
      'схема2.png',
      'Logo.png',
      'logo.png',
    ]);
  });

  it('page paths keep letters of every script; names that differ only in case get distinct paths', async () => {
    const revision = await build({
      'SUMMARY.md': '* [开始](快速开始.md)\n* [Начало](начало.md)\n* [Upper](Guide.md)\n* [Lower](guide.md)\n',
      '快速开始.md': '# 开始\n',
      'начало.md': '# Начало\n',
      'Guide.md': '# Upper\n',
      'guide.md': '# Lower\n',
    });
    expect(flat(revision.pages).map((p) => p.path)).toEqual(['快速开始', 'начало', 'guide', 'guide-2']);
  });
});
