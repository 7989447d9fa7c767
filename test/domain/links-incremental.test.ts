/**
 * The incremental link index: on a real history (renames to another folder, deleted pages other
 * pages link to, a page added where a broken link pointed, a table of contents reordered, images added and
 * removed, a page listed twice, a branch merged back, an id changed in front matter, a commit skipped), each
 * revision indexed from the one before stores exactly the rows a full index of it stores: its links, its pages
 * (page order, what their rows were made from) and what its paths resolve to. Once with the base's slot taken over,
 * once with the base kept (main points at it) and copied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';
import { ensureLinksIndexed, indexLinks } from '../../src/domain/content/link-index.js';
import { LINKS_VERSION } from '../../src/domain/content/refs.js';
import { pruneLinks } from '../../src/store/sql/links.js';

const SUMMARY = (items: string[]) => `# Table of contents\n\n${items.join('\n')}\n`;

const FIRST_SUMMARY = SUMMARY([
  '* [Home](README.md)',
  '* [Guide](guide/README.md)',
  '  * [Install](guide/install.md)',
  '  * [Config](guide/config.md)',
  '* [Reference](ref/api.md)',
  '  * [Old](ref/old.md)',
  '* [Notes](notes.md)',
]);

const FILES: Record<string, string | Buffer> = {
  'SUMMARY.md': FIRST_SUMMARY,
  'README.md': [
    '# Home',
    '',
    '[Install](guide/install.md#steps) [API](ref/api.md) [Old](ref/old.md) [New](ref/new.md) [Folder](ref/)',
    '![B](.gitbook/assets/b.png) [Spaced](notes%20draft.md) [Sharp](C#.md) [Out](https://example.com/)',
    '',
    '{% include ".gitbook/includes/footer.md" %}',
    '',
  ].join('\n'),
  'guide/README.md': '# Guide\n\nSee [install](install.md), [config](./config.md) and [the API](../ref/api.md).\n',
  'guide/install.md': '---\ncover: ../.gitbook/assets/a.png\n---\n# Install\n\n[Home](../README.md) ![A](../.gitbook/assets/a.png) [Old](../ref/old.md#top) [Self](#steps)\n',
  'guide/config.md': '# Config\n\nA [URL](https://example.com/config), [the API](../ref/api.md#auth) and [the guide](../guide/).\n',
  // Once moved, nothing changes it but the files its `%20` and `#` links try.
  'ref/api.md': '# API\n\n[Home](../README.md) [Config](../guide/config.md) [Notes](../notes.md) [Spaced](../notes%20draft.md) [Sharp](../C#.md)\n',
  'ref/old.md': '# Old\n\n[Gone](missing.md) [Home](/README.md)\n',
  // Its cover is missing until a later commit adds the image.
  'notes.md': '---\ncover: .gitbook/assets/b.png\n---\n# Notes\n\n[Home](README.md) [Old](ref/old.md)\n',
  '.gitbook/assets/a.png': tinyPng(2, 2),
  '.gitbook/includes/footer.md': '---\ntitle: Footer\n---\nThe footer, see [home](../../README.md).\n',
};

interface Dump {
  root: string;
  version: number;
  links: unknown[];
  pages: unknown[];
  answers: unknown[];
}

describe.each(DATABASE_KINDS)('incremental link index (%s)', (kind) => {
  let t: TestApp;
  let spaceId: string;
  let checkout: Checkout;
  /** The commits in the order they are indexed (parents first), by name. */
  const commits: Array<{ name: string; oid: string }> = [];

  const ctx = () => t.container.ctx;

  /** Every stored row of one indexed revision, without its slot, in a stable order. */
  async function dump(commit: string): Promise<Dump> {
    const { db } = ctx();
    const index = await db.selectFrom('link_index').selectAll().where('space_id', '=', spaceId).where('commit_oid', '=', commit).executeTakeFirstOrThrow();
    const links = await db
      .selectFrom('links')
      .select(['page_id', 'relation', 'target', 'target_kind', 'target_value', 'anchor', 'status'])
      .where('space_id', '=', spaceId)
      .where('slot', '=', index.slot)
      .orderBy('page_id')
      .orderBy('relation')
      .orderBy('target')
      .execute();
    const pages = await db
      .selectFrom('link_pages')
      .select(['page_id', 'page_order', 'git_path', 'signature', 'probes'])
      .where('space_id', '=', spaceId)
      .where('slot', '=', index.slot)
      .orderBy('page_order')
      .execute();
    const answers = await db.selectFrom('link_answers').select(['path', 'answer']).where('space_id', '=', spaceId).where('slot', '=', index.slot).orderBy('path').execute();
    return {
      root: index.root,
      version: Number(index.version),
      links: [...links].sort((a, b) => (`${a.page_id} ${a.relation} ${a.target}` < `${b.page_id} ${b.relation} ${b.target}` ? -1 : 1)),
      pages: pages.map((page) => ({ ...page, page_order: Number(page.page_order) })),
      answers: [...answers].sort((a, b) => (a.path < b.path ? -1 : 1)),
    };
  }

  async function indexed(): Promise<Map<string, string>> {
    const rows = await ctx().db.selectFrom('link_index').select(['commit_oid', 'slot']).where('space_id', '=', spaceId).execute();
    return new Map(rows.map((row) => [row.commit_oid, row.slot]));
  }

  /** A full index of the revision, read back, then removed again (the incremental chain does not see it). */
  async function fullIndex(commit: string): Promise<{ dump: Dump; rows: number }> {
    const keep = [...(await indexed()).keys()];
    const rows = await indexLinks(ctx(), spaceId, commit, { full: true });
    const stored = await dump(commit);
    await pruneLinks(ctx().db, spaceId, keep);
    return { dump: stored, rows };
  }

  const setMain = (oid: string) => checkout.push('--force', `${oid}:refs/heads/main`);

  async function commit(name: string, files: Record<string, string | Buffer | null>): Promise<string> {
    for (const [file, content] of Object.entries(files)) {
      if (content === null) await checkout.remove(file);
      else await checkout.write(file, content);
    }
    const oid = await checkout.commit(name);
    commits.push({ name, oid });
    return oid;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    const org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'History' } })).body.id;
    checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
    await checkout.git('checkout', '--quiet', '-B', 'main');

    await commit('first', FILES);
    // A page moved to another folder: links to its old path break, its own relative links resolve elsewhere.
    await checkout.git('mv', 'ref/api.md', 'guide/api.md');
    await commit('move the API page', {
      'SUMMARY.md': FIRST_SUMMARY.replace('(ref/api.md)', '(guide/api.md)'),
    });
    // A page other pages link to is deleted.
    const withoutOld = FIRST_SUMMARY.replace('(ref/api.md)', '(guide/api.md)').replace('  * [Old](ref/old.md)\n', '');
    await commit('delete the old page', { 'ref/old.md': null, 'SUMMARY.md': withoutOld });
    // A page added where a broken link pointed, early in the page order (later pages move); a folder gets a readme.
    const withNew = SUMMARY([
      '* [Home](README.md)',
      '* [Guide](guide/README.md)',
      '  * [New](ref/new.md)',
      '  * [Install](guide/install.md)',
      '  * [Config](guide/config.md)',
      '* [Reference](guide/api.md)',
      '  * [Ref](ref/README.md)',
      '* [Notes](notes.md)',
    ]);
    await commit('add the new page', {
      'ref/new.md': '# New\n\n[Home](../README.md) [Notes](../notes.md) [Old](old.md)\n',
      'ref/README.md': '# Ref\n',
      'SUMMARY.md': withNew,
    });

    // A branch: a page added and linked, the reusable content deleted.
    await checkout.git('checkout', '--quiet', '-b', 'feature');
    await commit('feature: a new page', {
      'guide/README.md': '# Guide\n\nSee [install](install.md), [config](./config.md), [the API](../ref/api.md) and [more](more.md).\n',
      'guide/more.md': '# More\n\n[Guide](./) [New](../ref/new.md)\n',
      'SUMMARY.md': withNew.replace('* [Notes](notes.md)', '* [Notes](notes.md)\n* [More](guide/more.md)'),
    });
    await commit('feature: no footer', { '.gitbook/includes/footer.md': null });
    await checkout.git('checkout', '--quiet', 'main');

    // The table of contents reordered.
    const reordered = SUMMARY([
      '* [Notes](notes.md)',
      '* [Home](README.md)',
      '* [Reference](guide/api.md)',
      '  * [Ref](ref/README.md)',
      '* [Guide](guide/README.md)',
      '  * [Install](guide/install.md)',
      '  * [Config](guide/config.md)',
      '  * [New](ref/new.md)',
    ]);
    await commit('reorder', { 'SUMMARY.md': reordered });
    // Images added and removed (a cover among them); files at paths that `%20` and `#` links tried.
    await commit('files', {
      '.gitbook/assets/a.png': null,
      '.gitbook/assets/b.png': tinyPng(3, 3),
      'notes draft.md': '# Draft, not in the table of contents\n',
      'C#.md': '# Sharp\n',
    });
    // A page listed twice (the second listing is a link page), and its body changed.
    const twice = reordered.replace('* [Home](README.md)', '* [Home](README.md)\n* [Config again](guide/config.md)');
    await commit('listed twice', {
      'SUMMARY.md': twice,
      'guide/config.md': '# Config\n\nA [URL](https://example.com/config), [the API](api.md#auth) and [the guide](./).\n',
    });
    // The branch merged back (both changed SUMMARY.md: resolved by hand).
    await checkout.git('merge', '--no-ff', '--no-commit', 'feature').catch(() => undefined);
    await commit('merge feature', { 'SUMMARY.md': twice.replace('  * [New](ref/new.md)', '  * [New](ref/new.md)\n  * [More](guide/more.md)') });
    // An id set in front matter: the same path, another page id.
    await commit('notes get an id', { 'notes.md': '---\nid: notesFixedId\ncover: .gitbook/assets/b.png\n---\n# Notes\n\n[Home](README.md) [Old](ref/old.md)\n' });
    // Two commits at once: the first is never indexed, the second starts from the one before both.
    await checkout.write('README.md', `${FILES['README.md']}\nOne more [link](guide/more.md).\n`);
    await checkout.commit('skipped');
    await commit('after the skipped one', { 'guide/install.md': '# Install\n\n[Home](../README.md) [Draft](../notes%20draft.md)\n' });
    await checkout.push('--force', 'feature:refs/heads/feature');
    await setMain(commits.at(-1)!.oid);
  }, 120_000);

  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  /** The broken targets of one page of a dump (by file), and how many of its targets are files. */
  function brokenOf(stored: Dump, gitPath: string): { missing: string[]; files: number } {
    const page = (stored.pages as Array<{ page_id: string; git_path: string }>).find((p) => p.git_path === gitPath)!;
    const rows = (stored.links as Array<{ page_id: string; target_kind: string; target_value: string }>).filter((row) => row.page_id === page.page_id);
    return {
      missing: rows.filter((row) => row.target_kind === 'missing').map((row) => row.target_value).sort(),
      files: rows.filter((row) => row.target_kind === 'file').length,
    };
  }

  it('stores, revision after revision, what a full index stores, taking over the slot of the revision before', async () => {
    let incremental = 0;
    const fulls = new Map<string, Dump>();
    for (const { name, oid } of commits) {
      const full = await fullIndex(oid);
      fulls.set(name, full.dump);
      const before = await indexed();
      const written = await indexLinks(ctx(), spaceId, oid);
      expect(await dump(oid), name).toEqual(full.dump);
      const after = await indexed();
      if (before.size > 0) {
        // Main points past every revision of the chain: the base is read by nobody, its slot changes hands.
        expect(after.size, name).toBe(before.size);
        expect([...before.values()], name).toContain(after.get(oid));
        expect(written, name).toBeLessThan(full.rows);
        incremental += 1;
      }
    }
    expect(incremental).toBe(commits.length - 1);
    // The history does what it is meant to: links broken, then satisfied by what later commits add.
    expect(brokenOf(fulls.get('first')!, 'README.md')).toEqual({ missing: ['.gitbook/assets/b.png', 'C', 'notes%20draft.md', 'ref', 'ref/new.md'], files: 0 });
    expect(brokenOf(fulls.get('delete the old page')!, 'README.md').missing).toEqual(['.gitbook/assets/b.png', 'C', 'notes%20draft.md', 'ref', 'ref/api.md', 'ref/new.md', 'ref/old.md']);
    expect(brokenOf(fulls.get('add the new page')!, 'README.md').missing).toEqual(['.gitbook/assets/b.png', 'C', 'notes%20draft.md', 'ref/api.md', 'ref/old.md']);
    expect(brokenOf(fulls.get('files')!, 'README.md')).toEqual({ missing: ['ref/api.md', 'ref/old.md'], files: 3 });
    expect(brokenOf(fulls.get('first')!, 'ref/api.md').missing).toEqual(['C', 'notes%20draft.md']);
    expect(brokenOf(fulls.get('files')!, 'guide/api.md')).toEqual({ missing: [], files: 2 });
    expect(brokenOf(fulls.get('files')!, 'notes.md').files).toBe(1);
    expect(brokenOf(fulls.get('files')!, 'guide/install.md')).toEqual({ missing: ['.gitbook/assets/a.png', 'ref/old.md'], files: 0 });
  }, 120_000);

  it('stores the same when the base is kept (main points at it) and copied', async () => {
    await pruneLinks(ctx().db, spaceId, []);
    let copies = 0;
    for (const { name, oid } of commits) {
      const full = await fullIndex(oid);
      const before = await indexed();
      await indexLinks(ctx(), spaceId, oid);
      expect(await dump(oid), name).toEqual(full.dump);
      const after = await indexed();
      if (before.size > 0 && after.size === before.size + 1) copies += 1;
      // The next revision starts from this one, which main then points at.
      await setMain(oid);
    }
    // Most bases are first parents, which main points at; the others are taken over.
    expect(copies).toBeGreaterThanOrEqual(commits.length - 3);
    await setMain(commits.at(-1)!.oid);
  }, 120_000);

  it('resolves concurrent indexings of one revision and of two revisions from one base to the rows of a full index', async () => {
    const [a, b, c] = commits.slice(-3).map((entry) => entry.oid);
    const expected = await Promise.all([b, c].map(async (oid) => (await fullIndex(oid)).dump));
    await pruneLinks(ctx().db, spaceId, []);
    await indexLinks(ctx(), spaceId, a, { full: true });
    // Both start from `a` (nobody reads it): one takes its slot over, the other loses and starts again (from the
    // winner, whose slot it may take over in turn: each is checked as soon as it is indexed again).
    await Promise.all([indexLinks(ctx(), spaceId, b), indexLinks(ctx(), spaceId, c)]);
    for (const [i, oid] of [b, c].entries()) {
      const stored = await indexed();
      if (stored.has(oid)) expect(await dump(oid)).toEqual(expected[i]);
      await ensureLinksIndexed(ctx(), spaceId, oid);
      expect(await dump(oid)).toEqual(expected[i]);
    }
    // The same revision twice at once (as two processes would): the rows of one index.
    await pruneLinks(ctx().db, spaceId, [b]);
    await Promise.all([indexLinks(ctx(), spaceId, c), indexLinks(ctx(), spaceId, c), ensureLinksIndexed(ctx(), spaceId, c)]);
    expect(await dump(c)).toEqual(expected[1]);
    expect((await indexed()).size).toBe(1);
    expect((await ctx().db.selectFrom('link_index').select('version').where('commit_oid', '=', c).executeTakeFirstOrThrow()).version).toBe(LINKS_VERSION);
  }, 120_000);
});
