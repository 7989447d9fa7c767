/**
 * A page compared block by block (src/content/block-diff.ts): the alignment of two lists of blocks, and the blocks of
 * a real page rendered by the published sites' renderer (src/content/page-html.ts), links answered from a revision.
 */
import { describe, expect, it } from 'vitest';
import { diffBlocks, pageBlockDiff, versionBlocks, type PageVersion } from '../../src/content/block-diff.js';
import { pageHtml } from '../../src/content/page-html.js';
import { resolvePageLinks, sitePageLinks, type LinkAnswers } from '../../src/content/site-links.js';
import { documentPages, extractLinks, linkLookups } from '../../src/content/links.js';
import { analyzeTree } from '../../src/content/revision.js';
import { memoryFacts, memoryTree, TEST_COMMIT, tinyPng } from '../helpers/content.js';

const kinds = (blocks: Array<{ change: string }>) => blocks.map((block) => block.change);

describe('diffBlocks', () => {
  it('keeps equal blocks, pairs removed and added runs as changed, and leaves the rest removed or added', () => {
    expect(diffBlocks(['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual(['a', 'b', 'c'].map((x) => ({ change: 'unchanged', before: x, after: x })));
    expect(diffBlocks(['a', 'c'], ['a', 'b', 'c'])).toEqual([
      { change: 'unchanged', before: 'a', after: 'a' },
      { change: 'added', after: 'b' },
      { change: 'unchanged', before: 'c', after: 'c' },
    ]);
    expect(diffBlocks(['a', 'b', 'c'], ['a', 'c'])).toEqual([
      { change: 'unchanged', before: 'a', after: 'a' },
      { change: 'removed', before: 'b' },
      { change: 'unchanged', before: 'c', after: 'c' },
    ]);
    expect(diffBlocks(['a', 'b', 'c'], ['a', 'B', 'c'])).toEqual([
      { change: 'unchanged', before: 'a', after: 'a' },
      { change: 'changed', before: 'b', after: 'B' },
      { change: 'unchanged', before: 'c', after: 'c' },
    ]);
    // Two removed beside one added: the first pair is a change, the other removed.
    expect(diffBlocks(['x', 'p', 'q', 'y'], ['x', 'P', 'y'])).toEqual([
      { change: 'unchanged', before: 'x', after: 'x' },
      { change: 'changed', before: 'p', after: 'P' },
      { change: 'removed', before: 'q' },
      { change: 'unchanged', before: 'y', after: 'y' },
    ]);
    expect(kinds(diffBlocks([], ['a', 'b']))).toEqual(['added', 'added']);
    expect(kinds(diffBlocks(['a', 'b'], []))).toEqual(['removed', 'removed']);
    expect(diffBlocks([], [])).toEqual([]);
  });

  it('aligns a middle that differs at both ends: the longest common run stays, the moves around it are removed and added', () => {
    const before = ['h', 'a', 'b', 'c', 'd', 'e', 't'];
    const after = ['h', 'x', 'b', 'c', 'a', 'e', 'y', 't'];
    const diff = diffBlocks(before, after);
    // Every block of each side is there once, in order.
    expect(diff.filter((block) => block.before !== undefined).map((block) => block.before)).toEqual(before);
    expect(diff.filter((block) => block.after !== undefined).map((block) => block.after)).toEqual(after);
    // b, c and e are the longest common subsequence of the middles (with h and t around them).
    expect(diff.filter((block) => block.change === 'unchanged').map((block) => block.before)).toEqual(['h', 'b', 'c', 'e', 't']);
  });

  it('compares a middle longer than the bound as one changed block, keeping the equal start and end', () => {
    const before = ['start', 'a1', 'a2', 'a3', 'a4', 'end'];
    const after = ['start', 'b1', 'a2', 'b3', 'end'];
    expect(diffBlocks(before, after, 3)).toEqual([
      { change: 'unchanged', before: 'start', after: 'start' },
      { change: 'changed', before: 'a1a2a3a4', after: 'b1a2b3' },
      { change: 'unchanged', before: 'end', after: 'end' },
    ]);
    // Within the bound, the same lists are aligned block by block.
    expect(kinds(diffBlocks(before, after, 4))).toEqual(['unchanged', 'changed', 'unchanged', 'changed', 'removed', 'unchanged']);
  });

  it('aligns 2,000 blocks a side that all differ, and a 20,000-block page with one change in it', () => {
    const before = Array.from({ length: 2000 }, (_, i) => `<p>a${i}</p>`);
    const after = Array.from({ length: 2000 }, (_, i) => `<p>b${i}</p>`);
    expect(diffBlocks(before, after).every((block) => block.change === 'changed')).toBe(true);
    const long = Array.from({ length: 20_000 }, (_, i) => `<p>${i}</p>`);
    const edited = [...long];
    edited[10_000] = '<p>edited</p>';
    const diff = diffBlocks(long, edited);
    expect(diff).toHaveLength(20_000);
    expect(diff.filter((block) => block.change !== 'unchanged')).toEqual([{ change: 'changed', before: '<p>10000</p>', after: '<p>edited</p>' }]);
  });
});

describe('pageBlockDiff', () => {
  /** The page at `path` of the tree as a version: its links answered from its revision, as the domain answers them. */
  async function version(files: Record<string, string | Buffer>, path: string): Promise<PageVersion & { answers: LinkAnswers }> {
    const { revision } = await analyzeTree(memoryTree(files), TEST_COMMIT, memoryFacts());
    const pages = new Map(documentPages(revision.pages).map((p) => [p.id, p]));
    const fileById = new Map(revision.files.map((f) => [f.id, f]));
    const page = [...pages.values()].find((p) => p.gitPath === path)!;
    const answers = sitePageLinks(
      {
        lookups: linkLookups(revision),
        pageUrl: (id) => pages.get(id) && `https://app.test/${pages.get(id)!.path}`,
        pageTitle: (id) => pages.get(id)?.title,
        fileUrl: (id) => fileById.get(id) && `https://files.test/${fileById.get(id)!.name}`,
        reusableMarkdown: (id) => revision.reusableContents.find((r) => r.id === id)?.markdown,
      },
      page,
    );
    const links = await resolvePageLinks(page.markdown, answers, async (bodies) => bodies.map(extractLinks));
    return { markdown: page.markdown, links, variables: { page: page.variables ?? {}, space: revision.variables }, answers };
  }

  const tree = (body: string) => ({
    'SUMMARY.md': '* [Guide](guide.md)\n* [Setup](setup.md)\n',
    'guide.md': `# Guide\n\n${body}`,
    'setup.md': '# Setup\n\nSet up.\n',
    '.gitbook/assets/shot.png': tinyPng(2, 2),
    '.gitbook/vars.yaml': 'version: "3.1"\n',
  });

  it("renders each version's top-level blocks as the published site does, links answered from its revision", async () => {
    const body = [
      '## Start',
      'See [setup](setup.md) and ![shot](.gitbook/assets/shot.png) for {{ space.vars.version }}.',
      '{% hint style="warning" %}\nMind the <script>alert(1)</script> gap.\n{% endhint %}',
      '- one\n- two',
      '```js\nlet x = 1;\n```',
    ].join('\n\n');
    const v = await version(tree(`${body}\n`), 'guide.md');
    const blocks = versionBlocks(v);
    expect(blocks).toHaveLength(5);
    expect(blocks[0]).toBe('<h2 id="start">Start</h2>');
    expect(blocks[1]).toContain('href="https://app.test/setup"');
    expect(blocks[1]).toContain('src="https://files.test/shot.png"');
    expect(blocks[1]).toContain('for 3.1.');
    expect(blocks[2]).toMatch(/^<div class="hint hint-warning" role="note">/);
    expect(blocks.join('')).not.toContain('<script');
    expect(blocks[3]).toMatch(/^<ul>/);
    expect(blocks[4]).toContain('code-block');
    // The blocks are the page the site shows, cut at its top level (its links answered directly, not beforehand).
    const site = pageHtml(v.markdown, { ...v.answers, variables: v.variables });
    expect(site.html).toBe(blocks.join('\n'));
  });

  it('compares two versions of a page, and a page only one side has', async () => {
    const before = await version(tree('## Start\n\nFirst.\n\nSecond.\n\nThird.\n'), 'guide.md');
    const after = await version(tree('## Start\n\nFirst.\n\nSecond, edited.\n\nNew.\n\nThird.\n'), 'guide.md');
    const diff = pageBlockDiff({ before, after });
    expect(diff).toEqual([
      { change: 'unchanged', before: '<h2 id="start">Start</h2>', after: '<h2 id="start">Start</h2>' },
      { change: 'unchanged', before: '<p>First.</p>', after: '<p>First.</p>' },
      { change: 'changed', before: '<p>Second.</p>', after: '<p>Second, edited.</p>' },
      { change: 'added', after: '<p>New.</p>' },
      { change: 'unchanged', before: '<p>Third.</p>', after: '<p>Third.</p>' },
    ]);
    expect(kinds(pageBlockDiff({ after }))).toEqual(['added', 'added', 'added', 'added', 'added']);
    expect(kinds(pageBlockDiff({ before }))).toEqual(['removed', 'removed', 'removed', 'removed']);
  });
});
