/**
 * A commit that edits pages is built from its parent's revision when the cache keeps it (reviseTree: else a
 * one-page push into a 10,000-page space analyzes the whole tree again): the pages it did not change are the
 * parent's own objects, and the API reads what a build from scratch shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';
import { loadRevision, RevisionCache, type IndexedRevision } from '../../src/domain/content/revisions.js';

const PAGES = 30;
const pagePath = (i: number) => `section-${Math.floor(i / 10)}/page-${i}.md`;

function files(): Record<string, string | Buffer> {
  const summary = ['# Table of contents', '', '* [Home](README.md)'];
  const tree: Record<string, string | Buffer> = {
    '.gitbook.yaml': 'redirects:\n  old/first: section-0/page-0.md\n  old/away: https://example.com/\n',
    'README.md': '# Home\n\nWelcome.\n',
    '.gitbook/assets/cover.png': tinyPng(4, 3),
    '.gitbook/includes/footer.md': '---\nid: footer\n---\n\nThe footer.\n',
    '.gitbook/vars.yaml': 'product: Quire\n',
  };
  for (let i = 0; i < PAGES; i++) {
    if (i % 10 === 0) summary.push('', `## Section ${i / 10}`, '');
    const front = i === 3 ? '---\nid: fixed-three\ncover: ../.gitbook/assets/cover.png\n---\n\n' : '';
    tree[pagePath(i)] = `${front}# Page ${i}\n\nText of page ${i}, see [the next](page-${i + 1}.md).\n`;
    summary.push(`* [Page ${i}](${pagePath(i)})`);
    if (i === 5) summary.push(`  * [Page 3 again](${pagePath(3)}#usage)`, '  * [Elsewhere](https://example.com/elsewhere)');
  }
  tree['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return tree;
}

describe('a revision built from its parent', () => {
  let t: TestApp;
  let token: string;
  let spaceId: string;
  let checkout: Checkout;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    token = org.admin.token;
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Incremental' } })).body.id as string;
    checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  /** Commits and pushes straight into the repository (no hooks): the read cache must forget main's old commit. */
  const push = async (message: string) => {
    const oid = await checkout.commitAndPush(message);
    t.container.ctx.cache.invalidate();
    return oid;
  };

  const get = async (url: string) => {
    const { status, body } = await t.request('GET', `/v1/spaces/${spaceId}${url}`, { token });
    expect(status).toBe(200);
    return body;
  };

  /** What the API shows of the space's content: the revision, its pages, every page and its files. */
  async function readAll(): Promise<unknown[]> {
    const answers: unknown[] = [await get('/content'), await get('/content/pages'), await get('/content/files')];
    const walk = async (pages: Array<{ id: string; pages?: unknown[] }>) => {
      for (const page of pages) {
        answers.push(await get(`/content/page/${page.id}`));
        await walk((page.pages ?? []) as typeof pages);
      }
    };
    await walk((await get('/content/pages')).pages);
    return answers;
  }

  function documentsOf(content: IndexedRevision): Map<string, unknown> {
    return new Map([...content.pagesById.values()].filter((page) => 'gitPath' in page).map((page) => [(page as { gitPath: string }).gitPath, page]));
  }

  it('shares the unchanged pages with the parent and reads as a cold build does', async () => {
    for (const [path, content] of Object.entries(files())) await checkout.write(path, content);
    const first = await push('pages');
    await t.container.ctx.jobs.idle();
    await readAll();

    await checkout.write(pagePath(7), '# Page seven, edited\n\nNew text, see [home](../README.md).\n');
    await checkout.write(pagePath(3), '---\nid: fixed-three\ncover: ../.gitbook/assets/cover.png\n---\n\n# Page 3, edited\n');
    const second = await push('edit two pages');
    await t.container.ctx.jobs.idle();
    const warm = await readAll();

    const ctx = t.container.ctx;
    const parent = documentsOf(await loadRevision(ctx, spaceId, first));
    const child = documentsOf(await loadRevision(ctx, spaceId, second));
    expect(child.size).toBe(PAGES + 1);
    for (const [gitPath, page] of child) {
      if (gitPath === pagePath(7) || gitPath === pagePath(3)) expect(page).not.toBe(parent.get(gitPath));
      else expect(page).toBe(parent.get(gitPath));
    }
    expect(JSON.stringify(warm)).toContain('Page seven, edited');

    // A cold build of the same commit: nothing kept from the parent.
    const kept = ctx.revisions;
    ctx.revisions = new RevisionCache();
    try {
      const cold = await readAll();
      expect(cold).toEqual(warm);
      expect(documentsOf(await loadRevision(ctx, spaceId, second)).get(pagePath(1))).not.toBe(parent.get(pagePath(1)));
    } finally {
      ctx.revisions = kept;
    }
  });

  it('builds a commit that adds a page from scratch', async () => {
    const ctx = t.container.ctx;
    const before = await checkout.git('rev-parse', 'HEAD');
    await readAll();
    await checkout.write('section-0/extra.md', '# Extra\n');
    const third = await push('add a page not in the table of contents');
    const parent = documentsOf(await loadRevision(ctx, spaceId, before.trim()));
    const child = documentsOf(await loadRevision(ctx, spaceId, third));
    expect(child.get(pagePath(1))).not.toBe(parent.get(pagePath(1)));
    expect(child.get(pagePath(1))).toEqual(parent.get(pagePath(1)));
  });
});
