import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { describe, expect, it } from 'vitest';
import {
  documentPages,
  extractLinks,
  linkAnswers,
  linkBearingText,
  linkLookups,
  normalizeUrl,
  pageLinks,
  revisionLinks,
  targetKey,
  type RevisionLink,
} from '../../src/content/links.js';
import { buildRevision } from '../../src/content/revision.js';
import type { Revision } from '../../src/content/model.js';
import { memoryFacts, memoryTree, TEST_COMMIT, tinyPng, type MemoryFile } from '../helpers/content.js';

async function build(files: Record<string, MemoryFile>): Promise<Revision> {
  return buildRevision(memoryTree(files), TEST_COMMIT, memoryFacts());
}

describe('extractLinks', () => {
  it('finds inline links, images, reference-style links and images, autolinks and GFM literal autolinks', () => {
    const markdown = [
      'See [the guide](guide.md) and ![a chart](../.gitbook/assets/chart.png "Chart").',
      '',
      'Read [the API][api] and [twice][API], ![logo][logo], and [undefined][nowhere].',
      '',
      'Visit <https://example.com/a> or https://example.org/b or www.example.net, write to help@example.com.',
      '',
      '[api]: reference/api.md',
      '[logo]: <.gitbook/assets/logo 1.png>',
    ].join('\n');
    expect(extractLinks(markdown).map((l) => l.href)).toEqual([
      'guide.md',
      '../.gitbook/assets/chart.png',
      'reference/api.md',
      'reference/api.md',
      '.gitbook/assets/logo 1.png',
      'https://example.com/a',
      'https://example.org/b',
      'http://www.example.net',
      'mailto:help@example.com',
    ]);
  });

  it('reads GitBook blocks: includes depend on their target, embeds, files and content-refs reference it', () => {
    const markdown = [
      '{% include "../.gitbook/includes/footer.md" %}',
      '',
      '{% embed url="https://www.youtube.com/watch?v=1" %}',
      '',
      '{% file src=".gitbook/assets/manual.pdf" %}',
      '',
      '{% content-ref url="install.md" %}',
      '[install.md](install.md)',
      '{% endcontent-ref %}',
    ].join('\n');
    const links = extractLinks(markdown);
    expect(links).toContainEqual({ href: '../.gitbook/includes/footer.md', relation: 'dependsOn' });
    expect(links).toContainEqual({ href: 'https://www.youtube.com/watch?v=1', relation: 'reference' });
    expect(links).toContainEqual({ href: '.gitbook/assets/manual.pdf', relation: 'reference' });
    expect(links.filter((l) => l.href === 'install.md')).toHaveLength(2);
  });

  it('reads GitBook blocks inside other blocks and list items, and a tag written inside a paragraph', () => {
    const markdown = [
      '{% tabs %}',
      '{% tab title="Video" %}',
      '{% embed url="https://example.com/watch?v=2" %}',
      '{% endtab %}',
      '{% endtabs %}',
      '',
      '1. Read this:',
      '   {% content-ref url="setup.md" %}',
      '   [setup.md](setup.md)',
      '   {% endcontent-ref %}',
      '',
      'See {% file src=".gitbook/assets/a.pdf" %} for details.',
    ].join('\n');
    const links = extractLinks(markdown);
    expect(links).toContainEqual({ href: 'https://example.com/watch?v=2', relation: 'reference' });
    expect(links.filter((l) => l.href === 'setup.md')).toHaveLength(2);
    expect(links).toContainEqual({ href: '.gitbook/assets/a.pdf', relation: 'reference' });
  });

  it('leaves code and inline code alone', () => {
    const markdown = ['```md', '[not a link](nowhere.md)', '<img src="fenced.png">', '```', '', 'Use `[x](y.md)` in text.', '', '    [indented](code.md)'].join('\n');
    expect(extractLinks(markdown)).toEqual([]);
  });

  it('reads the links, images and picture sources of raw HTML: GitBook figures, HTML tables, cards', () => {
    const markdown = [
      '<figure><img src=".gitbook/assets/shot (1).png" alt="x"><figcaption><p>Caption</p></figcaption></figure>',
      '<picture><source srcset=".gitbook/assets/dark.png 2x, .gitbook/assets/dark-1.png 1x"><img src=\'.gitbook/assets/light.png\'></picture>',
      '<table><tr><td><a href="quickstart/supported-sdks.md">SDKs</a></td></tr></table>',
      'Text with <a href="inline.md">an inline link</a> and <span title="x">no URL</span>, <img src=".gitbook/assets/a&amp;b.png">.',
      '<constructor src="x.png"> <a name="anchor"> <A HREF="upper.md">',
    ].join('\n\n');
    expect(extractLinks(markdown).map((link) => link.href)).toEqual([
      '.gitbook/assets/shot (1).png',
      '.gitbook/assets/dark.png',
      '.gitbook/assets/dark-1.png',
      '.gitbook/assets/light.png',
      'quickstart/supported-sdks.md',
      'inline.md',
      '.gitbook/assets/a&b.png',
      'upper.md',
    ]);
  });

  it('skips bodies that cannot hold a link without parsing them, and empty links', () => {
    expect(extractLinks('Just prose, nothing else.\n\nMore prose.')).toEqual([]);
    expect(extractLinks('[empty]() and [blank](<>)')).toEqual([]);
  });

  it('parses only the chunks that can hold a link, without changing which links remark finds', () => {
    const markdown = [
      'Plain prose.',
      'Still plain.',
      '',
      'A [link](a.md) here.',
      '',
      '```',
      'fenced [not a link](b.md)',
      '',
      'still fenced',
      '```',
      '',
      '<!--',
      'a comment',
      '',
      'that [hides](c.md) a link',
      '',
      '-->',
      '',
      '1. Item',
      '',
      'Closing prose.',
      '',
      '    [indented code](d.md)',
      '',
      '- Item',
      '',
      '    [continuation](e.md)',
    ].join('\n');
    const text = linkBearingText(markdown);
    expect(text.startsWith('x\n\nA [link](a.md) here.')).toBe(true);
    expect(text).not.toContain('Plain prose');
    expect(text).not.toContain('Closing prose');
    expect(text).toContain('still fenced');
    expect(text).toContain('a comment');
    // The links of a parse of the whole body: prose became `x` paragraphs, which close lists as prose does.
    const whole: string[] = [];
    visit(unified().use(remarkParse).use(remarkGfm).parse(markdown), 'link', (node) => void whole.push(node.url));
    expect(whole).toEqual(['a.md', 'e.md']);
    expect(extractLinks(markdown).map((l) => l.href)).toEqual(whole);
  });

  it('normalizes http(s) URLs and keeps other schemes as written', () => {
    expect(normalizeUrl('HTTPS://Example.COM:443/a/../b?x=1#top')).toBe('https://example.com/b?x=1#top');
    expect(normalizeUrl('mailto:Ada@Example.com')).toBe('mailto:Ada@Example.com');
    expect(normalizeUrl('https://[bad')).toBe('https://[bad');
  });
});

describe('revisionLinks', () => {
  const SUMMARY = [
    '# Table of contents',
    '',
    '* [Home](README.md)',
    '* [Guide](guide/README.md)',
    '  * [Install](guide/install.md)',
    '* [Status](https://status.example.com)',
  ].join('\n');

  async function linksOf(files: Record<string, MemoryFile>): Promise<{ revision: Revision; links: RevisionLink[] }> {
    const revision = await build({ 'SUMMARY.md': SUMMARY, ...files });
    return { revision, links: revisionLinks(revision) };
  }

  const base: Record<string, MemoryFile> = {
    'guide/README.md': '# Guide\n',
    '.gitbook/assets/chart.png': tinyPng(2, 2),
    '.gitbook/assets/my file.pdf': 'pdf',
    '.gitbook/includes/footer.md': '---\ntitle: Footer\n---\nFooter text.\n',
    'notes.md': '# Notes not in SUMMARY\n',
  };

  it('resolves relative to the page file: pages, folder pages, files, unlisted markdown files, reusable contents', async () => {
    const { revision, links } = await linksOf({
      ...base,
      'README.md': '# Home\n\n[Install](guide/install.md#steps) [Guide](guide/) [Guide again](./guide) [Chart](.gitbook/assets/chart.png)\n',
      'guide/install.md': [
        '# Install',
        '',
        '[Home](../README.md) [Root-relative](/guide/README.md) [PDF](../.gitbook/assets/my%20file.pdf)',
        '[Notes](../notes.md?x=1) [Here](#steps) [Query file](../.gitbook/assets/chart.png?raw=1#frag)',
        '',
        '{% include "../.gitbook/includes/footer.md" %}',
      ].join('\n'),
    });
    const home = revision.pages[0];
    const guide = revision.pages[1];
    const install = guide.pages[0];
    const file = (name: string) => revision.files.find((f) => f.name === name)!.id;
    const of = (pageId: string) => links.filter((l) => l.pageId === pageId).map((l) => [l.relation, l.kind, l.value, l.anchor, l.status]);
    expect(of(home.id)).toEqual([
      ['reference', 'page', install.id, 'steps', 'ok'],
      ['reference', 'page', guide.id, undefined, 'ok'],
      ['reference', 'file', file('chart.png'), undefined, 'ok'],
    ]);
    expect(of(install.id)).toEqual([
      ['reference', 'page', home.id, undefined, 'ok'],
      ['reference', 'page', guide.id, undefined, 'ok'],
      ['reference', 'file', file('my file.pdf'), undefined, 'ok'],
      ['reference', 'file', file('notes.md'), undefined, 'ok'],
      ['reference', 'page', install.id, 'steps', 'ok'],
      ['reference', 'file', file('chart.png'), undefined, 'ok'],
      ['dependsOn', 'reusable-content', revision.reusableContents[0].id, undefined, 'ok'],
    ]);
    // One row per page, relation and target: `guide/` and `./guide` are the same target.
    expect(links.filter((l) => l.pageId === home.id && l.kind === 'page' && l.value === guide.id)).toHaveLength(1);
    expect(links.every((l) => l.pageOrder === (l.pageId === home.id ? 0 : l.pageId === guide.id ? 1 : 2))).toBe(true);
  });

  it('marks targets that resolve to nothing, or leave the content, as broken with the path they resolve to', async () => {
    const { revision, links } = await linksOf({
      ...base,
      'README.md': '# Home\n\n[Gone](guide/missing.md) [Escape](../../etc/passwd) [Image](.gitbook/assets/nope.png)\n',
      'guide/install.md': '# Install\n\n[Gone too](./missing.md#x)\n',
    });
    const broken = links.filter((l) => l.status === 'broken').map((l) => [l.pageId, l.kind, l.value, l.target]);
    const [home, guide] = revision.pages;
    expect(broken).toEqual([
      [home.id, 'missing', 'guide/missing.md', 'missing:guide/missing.md'],
      [home.id, 'missing', '../../etc/passwd', 'missing:../../etc/passwd'],
      [home.id, 'missing', '.gitbook/assets/nope.png', 'missing:.gitbook/assets/nope.png'],
      [guide.pages[0].id, 'missing', 'guide/missing.md', 'missing:guide/missing.md'],
    ]);
  });

  it('keeps URLs as ok url targets without fetching them, and counts covers as references to their files', async () => {
    const { revision, links } = await linksOf({
      ...base,
      'README.md': '---\ncover: .gitbook/assets/chart.png\n---\n# Home\n\n[Out](HTTPS://Example.com/x) [Mail](mailto:a@b.c) [Protocol-relative](//cdn.example.com/a.js)\n',
      'guide/install.md': '# Install\n',
    });
    const home = revision.pages[0];
    expect(links.filter((l) => l.pageId === home.id).map((l) => [l.kind, l.value, l.status, l.target])).toEqual([
      ['file', revision.files.find((f) => f.name === 'chart.png')!.id, 'ok', targetKey('file', revision.files.find((f) => f.name === 'chart.png')!.id)],
      ['url', 'https://example.com/x', 'ok', 'url:https://example.com/x'],
      ['url', 'mailto:a@b.c', 'ok', 'url:mailto:a@b.c'],
      ['url', '//cdn.example.com/a.js', 'ok', 'url://cdn.example.com/a.js'],
    ]);
  });

  it('resolves against the content root of .gitbook.yaml, where `/` means the root; a path that leaves it is broken as written', async () => {
    const revision = await build({
      '.gitbook.yaml': 'root: ./docs/\n',
      'docs/README.md': '# Home\n\n[Abs](/guide.md) [Rel](guide.md) [Out of root](../outside.md)\n',
      'docs/guide.md': '# Guide\n',
      'outside.md': '# Outside\n',
    });
    const links = revisionLinks(revision);
    const guide = revision.pages.find((p) => p.title === 'Guide')!;
    expect(links.map((l) => [l.kind, l.value, l.status])).toEqual([
      ['page', guide.id, 'ok'],
      ['missing', '../outside.md', 'broken'],
    ]);
  });

  it('hashes target keys too long for an index, keeping the whole URL as the value', () => {
    const url = `https://example.com/${'a'.repeat(600)}`;
    const key = targetKey('url', url);
    expect(key).toMatch(/^url:sha256:[0-9a-f]{64}$/);
    expect(targetKey('url', url)).toBe(key);
    expect(targetKey('url', 'https://example.com/')).toBe('url:https://example.com/');
  });
});

describe('linkAnswers and probes (what the incremental index compares)', () => {
  it('answers each path as a link resolves it: reusable content, then page or folder readme, then file', async () => {
    const revision = await build({
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/README.md)\n',
      'README.md': '# Home\n',
      'guide/README.md': '# Guide\n',
      'notes.md': '# Not listed: a file\n',
      '.gitbook/assets/a.png': tinyPng(1, 1),
      '.gitbook/includes/footer.md': 'Footer.\n',
    });
    const [home, guide] = revision.pages;
    const file = (name: string) => revision.files.find((f) => f.name === name)!.id;
    expect(Object.fromEntries(linkAnswers(linkLookups(revision)))).toEqual({
      'README.md': `page:${home.id}`,
      '': `page:${home.id}`,
      'guide/README.md': `page:${guide.id}`,
      guide: `page:${guide.id}`,
      'notes.md': `file:${file('notes.md')}`,
      '.gitbook/assets/a.png': `file:${file('a.png')}`,
      '.gitbook/includes/footer.md': `reusable-content:${revision.reusableContents[0].id}`,
    });
  });

  it('records every path a link tried and found nothing at, and none for a link that resolved at its first try', async () => {
    const revision = await build({
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      'README.md': '# Home\n',
      'my file.md': '# A file\n',
    });
    const lookups = linkLookups(revision);
    const [home] = documentPages(revision.pages);
    const probes = new Set<string>();
    const links = pageLinks(
      home,
      0,
      [{ href: 'my%20file.md', relation: 'reference' }, { href: 'C#.md', relation: 'reference' }, { href: 'README.md', relation: 'reference' }, { href: '../../out.md', relation: 'reference' }],
      lookups,
      probes,
    );
    expect(links.map((l) => [l.kind, l.status])).toEqual([
      ['file', 'ok'],
      ['missing', 'broken'],
      ['page', 'ok'],
      ['missing', 'broken'],
    ]);
    expect([...probes]).toEqual(['my%20file.md', 'C', 'C#.md']);
  });
});
