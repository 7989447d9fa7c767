/**
 * Histories of every shape git accepts, pushed over HTTP with the real git client and read through the API: a
 * "Merge pull request" history, a criss-cross, an octopus merge, and a long history with merges and renames whose
 * facts are computed in the background. No answer may be other than 200.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { writeLongHistory } from '../helpers/histories.js';

describe.each(DATABASE_KINDS)('histories of every shape, pushed and read (%s)', (kind) => {
  let t: TestApp;
  let base: string;
  let organizationId: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    base = await t.listen();
    const org = await t.organization();
    organizationId = org.id;
    token = org.admin.token;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newSpace(title: string): Promise<{ spaceId: string; checkout: Checkout }> {
    const spaceId = (await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title } })).body.id;
    return { spaceId, checkout: await Checkout.clone(spaceRemote(base, token, spaceId)) };
  }

  /** Every read of main's content, every page by id and by path, their links, and each given revision: all 200. */
  async function readEverything(spaceId: string, revisions: string[]): Promise<Array<{ id: string; path: string; title: string }>> {
    const get = async (url: string) => {
      const response = await t.request('GET', url, { token });
      expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(200);
      return response.body;
    };
    const content = await get(`/v1/spaces/${spaceId}/content`);
    const pages: Array<{ id: string; path: string; title: string; pages: unknown[] }> = [];
    const walk = (list: Array<{ id: string; path: string; title: string; type: string; pages: never[] }>) => {
      for (const page of list) {
        if (page.type === 'document') pages.push(page);
        walk(page.pages);
      }
    };
    walk((await get(`/v1/spaces/${spaceId}/content/pages`)).pages);
    expect(content.pages.length).toBeGreaterThan(0);
    for (const page of pages) {
      expect((await get(`/v1/spaces/${spaceId}/content/page/${page.id}`)).id).toBe(page.id);
      expect((await get(`/v1/spaces/${spaceId}/content/path/${page.path}`)).id).toBe(page.id);
      await get(`/v1/spaces/${spaceId}/content/page/${page.id}/links`);
    }
    await get(`/v1/spaces/${spaceId}/content/files`);
    for (const revision of revisions) expect((await get(`/v1/spaces/${spaceId}/revisions/${revision}`)).id).toBe(revision);
    return pages;
  }

  const allCommits = async (checkout: Checkout) => (await checkout.git('rev-list', '--all')).trim().split('\n');

  it('a "Merge pull request" history: M with parents A and B, B on A', async () => {
    const { spaceId, checkout } = await newSpace('Merge');
    await checkout.write('SUMMARY.md', '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n');
    await checkout.write('guide.md', '# Guide\n\nFirst words.\n');
    await checkout.commit('A');
    await checkout.git('checkout', '--quiet', '-b', 'feature');
    await checkout.write('guide.md', '# Guide\n\nFirst words, and more.\n');
    await checkout.write('SUMMARY.md', '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Feature](feature.md)\n');
    await checkout.write('feature.md', '# Feature\n');
    await checkout.commit('B');
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request #1 from writer/feature', 'feature');
    const merge = (await checkout.git('rev-parse', 'HEAD')).trim();
    await checkout.push();
    const space = await t.request('GET', `/v1/spaces/${spaceId}`, { token });
    expect(space.body.revision).toBe(merge);
    const pages = await readEverything(spaceId, await allCommits(checkout));
    expect(pages.map((p) => p.path)).toEqual(['readme', 'guide', 'feature']);
    expect(pages.slice(1).map((p) => p.title)).toEqual(['Guide', 'Feature']);
    await checkout.dispose();
  });

  it('a criss-cross history and an octopus merge', async () => {
    const { spaceId, checkout } = await newSpace('Shapes');
    await checkout.write('base.md', '# Base\n');
    await checkout.commit('base');
    await checkout.git('checkout', '--quiet', '-b', 'x');
    await checkout.write('x.md', '# X\n');
    await checkout.commit('x1');
    await checkout.git('checkout', '--quiet', '-b', 'y', 'main');
    await checkout.write('y.md', '# Y\n');
    await checkout.commit('y1');
    await checkout.git('merge', '--quiet', '--no-edit', 'x');
    await checkout.git('checkout', '--quiet', 'x');
    await checkout.git('merge', '--quiet', '--no-edit', 'y~1');
    await checkout.git('mv', 'base.md', 'renamed.md');
    await checkout.commit('x2');
    await checkout.git('checkout', '--quiet', 'y');
    await checkout.git('merge', '--quiet', '--no-edit', 'x');
    await checkout.git('checkout', '--quiet', 'main');
    for (const name of ['o1', 'o2', 'o3']) {
      await checkout.git('checkout', '--quiet', '-b', name, 'main');
      await checkout.write(`${name}.md`, `# ${name}\n`);
      await checkout.commit(name);
    }
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.git('merge', '--quiet', '--no-ff', '--no-edit', 'o1', 'o2', 'o3', 'y');
    expect((await checkout.git('log', '-1', '--format=%P')).trim().split(' ')).toHaveLength(5);
    await checkout.push();
    const pages = await readEverything(spaceId, await allCommits(checkout));
    expect(pages.map((p) => p.path).sort()).toEqual(['o1', 'o2', 'o3', 'readme', 'renamed', 'x', 'y']);
    await checkout.dispose();
  });

  it('a long history with merges and renames: readable at once, the same ids once its facts are final', async () => {
    const { spaceId, checkout } = await newSpace('Long');
    await checkout.dispose();
    const source = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-long-'));
    const env = await isolatedGitEnv();
    try {
      const { execFile } = await import('node:child_process');
      const git = (args: string[]) =>
        new Promise<string>((resolve, reject) => execFile('git', args, { env }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
      await git(['init', '--quiet', '--bare', source]);
      const tip = await writeLongHistory(source, { commits: 400, pages: 30, mergeEvery: 10 });
      await git(['--git-dir', source, 'push', '--quiet', '--force', spaceRemote(base, token, spaceId), `${tip}:refs/heads/main`]);
      const first = await readEverything(spaceId, [tip]);
      expect(first).toHaveLength(31);
      await t.container.ctx.history.prepare(spaceId, tip);
      expect(t.container.ctx.history.isFinal(spaceId, tip)).toBe(true);
      const final = await readEverything(spaceId, [tip]);
      expect(final.map((p) => p.path)).toEqual(first.map((p) => p.path));
      // Pages never moved had their final ids from the first read on.
      const stable = final.filter((p) => !p.path.startsWith('guide/moved-'));
      expect(stable.map((p) => p.id)).toEqual(first.filter((p) => !p.path.startsWith('guide/moved-')).map((p) => p.id));
      expect(new Set(final.map((p) => p.id)).size).toBe(final.length);
      // The ids the first read showed (provisional or not) still lead to their pages.
      for (const [i, page] of first.entries()) {
        const read = await t.request('GET', `/v1/spaces/${spaceId}/content/page/${page.id}`, { token });
        expect(read.status).toBe(200);
        expect(read.body.id).toBe(final[i].id);
      }
    } finally {
      await fs.rm(source, { recursive: true, force: true });
    }
  });
});
