import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { writeLongHistory } from '../helpers/histories.js';
import { advanceFacts, derivedId, pathId, type Facts } from '../../src/domain/content/path-facts.js';
import { createContainer } from '../../src/container.js';
import { findPage, loadRevision } from '../../src/domain/content/revisions.js';

describe('history facts: ids and timestamps that survive edits, renames and merges', () => {
  let t: TestApp;
  let organizationId: string;
  let adminToken: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    organizationId = org.id;
    adminToken = org.admin.token;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newSpace(): Promise<{ spaceId: string; checkout: Checkout }> {
    const spaceId = (await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: adminToken, body: { title: 'History' } })).body.id;
    return { spaceId, checkout: await Checkout.clone(t.container.git.repositoryPath(spaceId)) };
  }

  const factsOf = (spaceId: string, oid: string) => t.container.ctx.history.factsOf(spaceId, oid);

  /** The facts computed from nothing: no stored facts, a fresh container (its memory empty). */
  async function fromScratch(spaceId: string, oid: string): Promise<Facts> {
    await forgetStoredFacts(spaceId);
    const other = await createContainer(t.config);
    try {
      return await other.ctx.history.factsOf(spaceId, oid);
    } finally {
      await other.close();
    }
  }

  /** Deletes a space's stored facts, after this container's write-behind saves: none can land after the delete. */
  async function forgetStoredFacts(spaceId: string): Promise<void> {
    await t.container.ctx.history.saveNow();
    await t.container.ctx.db.deleteFrom('revision_facts').where('space_id', '=', spaceId).execute();
  }

  const longText = (seed: string) => Array.from({ length: 40 }, (_, i) => `Line ${i} of ${seed}, with enough words to compare.`).join('\n');
  const head = async (c: Checkout) => (await c.git('rev-parse', 'HEAD')).trim();
  const tick = () => new Promise((r) => setTimeout(r, 1100));

  it('stores a wanted commit\'s facts a moment after they are known, and at once when the process closes', async () => {
    const { spaceId, checkout } = await newSpace();
    await checkout.write('guide/a.md', '# A\n');
    const tip = await checkout.commitAndPush('a page');
    const storedTip = async (db: typeof t.container.ctx.db) =>
      (await db.selectFrom('revision_facts').select('commit_oid').where('space_id', '=', spaceId).where('commit_oid', '=', tip).execute()).length;
    await forgetStoredFacts(spaceId);
    const other = await createContainer(t.config);
    try {
      const facts = await other.ctx.history.factsOf(spaceId, tip);
      expect([...facts.keys()].sort()).toEqual(['README.md', 'guide/a.md']);
      // Known in memory, not written yet: the write waits for the push's follow-up work.
      expect(await storedTip(other.ctx.db)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await storedTip(other.ctx.db)).toBe(1);
      await other.ctx.db.deleteFrom('revision_facts').where('space_id', '=', spaceId).execute();
    } finally {
      await other.close();
    }
    const third = await createContainer(t.config);
    try {
      await third.ctx.history.factsOf(spaceId, tip);
      expect(await storedTip(third.ctx.db)).toBe(0);
    } finally {
      await third.close();
    }
    expect(await storedTip(t.container.ctx.db)).toBe(1);
    await checkout.dispose();
  });

  it('gives a path seen for the first time an id from the space and the path', async () => {
    const { spaceId, checkout } = await newSpace();
    const f = await factsOf(spaceId, await head(checkout));
    expect([...f.keys()]).toEqual(['README.md']);
    expect(f.get('README.md')!.i).toBe(pathId(spaceId, 'README.md'));
    expect(f.get('README.md')!.c).toBe(f.get('README.md')!.u);
    await checkout.dispose();
  });

  it('keeps id and createdAt through an edit, a rename, a rename with edits and a move; updatedAt follows changes', async () => {
    const { spaceId, checkout } = await newSpace();
    await checkout.write('guide/install.md', `# Install\n\n${longText('install')}\n`);
    await checkout.write('guide/other.md', '# Other\n');
    const c1 = await checkout.commitAndPush('add pages');
    const f1 = await factsOf(spaceId, c1);
    const installId = f1.get('guide/install.md')!.i;
    expect(installId).toBe(pathId(spaceId, 'guide/install.md'));

    // Make commit dates differ from c1's (git dates have one-second resolution).
    await tick();
    await checkout.write('guide/other.md', '# Other\n\nEdited.\n');
    const c2 = await checkout.commitAndPush('edit other');
    const f2 = await factsOf(spaceId, c2);
    expect(f2.get('guide/install.md')!).toEqual(f1.get('guide/install.md')!);
    expect(f2.get('guide/other.md')!.i).toBe(f1.get('guide/other.md')!.i);
    expect(f2.get('guide/other.md')!.c).toBe(f1.get('guide/other.md')!.c);
    expect(f2.get('guide/other.md')!.u > f1.get('guide/other.md')!.u).toBe(true);

    await checkout.write('setup/installation.md', await checkout.read('guide/install.md'));
    await checkout.remove('guide/install.md');
    const c3 = await checkout.commitAndPush('exact rename');
    expect((await factsOf(spaceId, c3)).get('setup/installation.md')!.i).toBe(installId);

    await checkout.git('mv', 'setup/installation.md', 'setup/install-cli.md');
    await checkout.write('setup/install-cli.md', `# Install the CLI\n\n${longText('install')}\nOne more line.\n`);
    const c4 = await checkout.commitAndPush('rename with edits');
    const f4 = await factsOf(spaceId, c4);
    expect(f4.get('setup/install-cli.md')!.i).toBe(installId);
    expect(f4.get('setup/install-cli.md')!.c).toBe(f1.get('guide/install.md')!.c);
    expect([...f4.keys()]).not.toContain('setup/installation.md');

    // A new page where a moved page used to be does not take the moved page's id.
    await checkout.write('guide/install.md', '# A new install page\n');
    const c5 = await checkout.commitAndPush('new page at the old path');
    const f5 = await factsOf(spaceId, c5);
    expect(f5.get('setup/install-cli.md')!.i).toBe(installId);
    expect(f5.get('guide/install.md')!.i).toBe(derivedId(spaceId, c5, 'guide/install.md'));

    // A copy gets a new id while the original keeps its own.
    await checkout.write('setup/copy.md', await checkout.read('setup/install-cli.md'));
    const c6 = await checkout.commitAndPush('copy');
    const f6 = await factsOf(spaceId, c6);
    expect(f6.get('setup/install-cli.md')!.i).toBe(installId);
    expect(f6.get('setup/copy.md')!.i).toBe(pathId(spaceId, 'setup/copy.md'));
    expect(await fromScratch(spaceId, c6)).toEqual(f6);
    await checkout.dispose();
  });

  it('reads a "Merge pull request" history (M with parents A and B, B on A) whose facts were never computed', async () => {
    const { spaceId, checkout } = await newSpace();
    await checkout.write('a.md', `# A\n\n${longText('a')}\n`);
    const a = await checkout.commit('A');
    await checkout.git('checkout', '--quiet', '-b', 'feature');
    await checkout.git('mv', 'a.md', 'renamed-on-branch.md');
    await checkout.write('feature.md', '# Feature\n');
    await checkout.commit('B');
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.write('main.md', '# Main\n');
    await checkout.commit('main moves on');
    await checkout.git('merge', '--quiet', '--no-ff', '--no-edit', 'feature');
    const m = await head(checkout);
    await checkout.push();
    const f = await factsOf(spaceId, m);
    expect([...f.keys()].sort()).toEqual(['README.md', 'feature.md', 'main.md', 'renamed-on-branch.md']);
    expect(f.get('renamed-on-branch.md')!.i).toBe(pathId(spaceId, 'a.md'));
    expect(f.get('feature.md')!.i).toBe(pathId(spaceId, 'feature.md'));
    const aFacts = await factsOf(spaceId, a);
    expect(f.get('renamed-on-branch.md')!.c).toBe(aFacts.get('a.md')!.c);
    expect(await fromScratch(spaceId, m)).toEqual(f);
    await checkout.dispose();
  });

  it('reads criss-cross and octopus merges, and agrees with the commit-by-commit computation', async () => {
    const { spaceId, checkout } = await newSpace();
    const incremental: Array<[string, Facts]> = [];
    const step = async (message: string) => {
      const oid = await checkout.commit(message);
      await checkout.push('+HEAD:refs/heads/scratch');
      incremental.push([oid, await factsOf(spaceId, oid)]);
      return oid;
    };
    await checkout.write('base.md', `# Base\n\n${longText('base')}\n`);
    await step('base');
    // Criss-cross: x and y each merge the other's first commit, then each other again.
    await checkout.git('checkout', '--quiet', '-b', 'x');
    await checkout.write('x.md', '# X\n');
    await step('x1');
    await checkout.git('checkout', '--quiet', '-b', 'y', 'main');
    await checkout.write('y.md', '# Y\n');
    await step('y1');
    await checkout.git('merge', '--quiet', '--no-edit', 'x');
    await checkout.push('+HEAD:refs/heads/scratch');
    incremental.push([await head(checkout), await factsOf(spaceId, await head(checkout))]);
    await checkout.git('checkout', '--quiet', 'x');
    await checkout.git('merge', '--quiet', '--no-edit', 'y~1');
    await checkout.write('x.md', '# X\n\nEdited on x.\n');
    await step('x2');
    await checkout.git('checkout', '--quiet', 'y');
    await checkout.git('mv', 'base.md', 'renamed-base.md');
    await step('y2');
    await checkout.git('merge', '--quiet', '--no-edit', 'x');
    await checkout.push('+HEAD:refs/heads/scratch');
    const crissCross = await head(checkout);
    incremental.push([crissCross, await factsOf(spaceId, crissCross)]);
    // Octopus: three branches from main merged at once.
    await checkout.git('checkout', '--quiet', 'main');
    for (const name of ['o1', 'o2', 'o3']) {
      await checkout.git('checkout', '--quiet', '-b', name, 'main');
      await checkout.write(`${name}.md`, `# ${name}\n`);
      await step(name);
    }
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.git('merge', '--quiet', '--no-ff', '--no-edit', 'o1', 'o2', 'o3', 'y');
    const octopus = await head(checkout);
    await checkout.push('+HEAD:refs/heads/scratch');
    expect((await checkout.git('log', '-1', '--format=%P')).trim().split(' ')).toHaveLength(5);
    incremental.push([octopus, await factsOf(spaceId, octopus)]);

    const last = incremental[incremental.length - 1][1];
    expect([...last.keys()].sort()).toEqual(['README.md', 'o1.md', 'o2.md', 'o3.md', 'renamed-base.md', 'x.md', 'y.md']);
    expect(last.get('renamed-base.md')!.i).toBe(pathId(spaceId, 'base.md'));
    // From nothing, in one walk over every shape at once: the same facts for every commit.
    await forgetStoredFacts(spaceId);
    const other = await createContainer(t.config);
    try {
      expect(await other.ctx.history.factsOf(spaceId, octopus)).toEqual(last);
      for (const [oid, facts] of incremental) expect(await other.ctx.history.factsOf(spaceId, oid)).toEqual(facts);
    } finally {
      await other.close();
    }
    await checkout.dispose();
  });

  it('answers a read of a long history at once with provisional facts, then the final ones from the background', async () => {
    const { spaceId } = await newSpace();
    const tip = await writeLongHistory(t.container.git.repositoryPath(spaceId), { commits: 600, pages: 40, mergeEvery: 10 });
    const history = t.container.ctx.history;
    const read = await history.forRead(spaceId, tip);
    expect(read.final).toBe(false);
    // Pages never renamed already have their final ids; every path has facts.
    expect(read.facts.get('SUMMARY.md')!.i).toBe(pathId(spaceId, 'SUMMARY.md'));
    await history.prepare(spaceId, tip);
    expect(history.isFinal(spaceId, tip)).toBe(true);
    const final = await history.forRead(spaceId, tip);
    expect(final.final).toBe(true);
    expect([...final.facts.keys()].sort()).toEqual([...read.facts.keys()].sort());
    // Moved pages keep the id of the path they were created at; no two paths share an id.
    const ids = Object.values(final.facts).map((f) => f.i);
    expect(new Set(ids).size).toBe(ids.length);
    const created = new Set(Array.from({ length: 40 }, (_, i) => pathId(spaceId, `guide/page-${i}.md`)));
    const moved = [...final.facts.keys()].filter((p) => p.startsWith('guide/moved-'));
    expect(moved.length).toBeGreaterThan(10);
    for (const path of moved) expect(created.has(final.facts.get(path)!.i)).toBe(true);
    // The provisional facts had the moved pages under ids of their current paths: the final ones differ there only.
    for (const path of [...final.facts.keys()].filter((p) => !p.startsWith('guide/moved-'))) expect(read.facts.get(path)!.i).toBe(final.facts.get(path)!.i);
    // A client that listed pages provisionally still finds each one by the id it was shown.
    const finalContent = await loadRevision(t.container.ctx, spaceId, tip);
    const pages = [...finalContent.pagesById.values()].filter((p) => 'gitPath' in p);
    const shownBefore = pages.filter((p) => read.facts.get((p as { gitPath: string }).gitPath)!.i !== p.id);
    expect(shownBefore.length).toBeGreaterThan(0);
    for (const page of shownBefore) expect(findPage(finalContent, read.facts.get((page as { gitPath: string }).gitPath)!.i).id).toBe(page.id);
    // Checkpoints were stored on the way, so an old commit is computed from a near one.
    const stored = await t.container.ctx.db.selectFrom('revision_facts').select('commit_oid').where('space_id', '=', spaceId).execute();
    expect(stored.filter((r) => r.commit_oid !== tip).length).toBeGreaterThanOrEqual(2);
    expect(await fromScratch(spaceId, tip)).toEqual(final.facts);
  });
});

describe('advanceFacts', () => {
  it('lets other work run while it gives ids to the paths of a very large first commit, and gives each its own', async () => {
    const changes = Array.from({ length: 200_000 }, (_, i) => ({ status: 'A' as const, path: `folder-${i % 100}/page-${i}.md`, oid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', mode: '100644' }));
    let ranMeanwhile = false;
    let done = false;
    setImmediate(() => {
      ranMeanwhile = !done;
    });
    const facts = await advanceFacts('space', { oid: 'c'.repeat(40), committedAt: '2026-01-01T00:00:00.000Z' }, [], changes, new Map());
    done = true;
    expect(ranMeanwhile).toBe(true);
    expect(facts.size).toBe(200_000);
    expect(new Set([...facts.values()].map((fact) => fact.i)).size).toBe(200_000);
    expect(facts.get('folder-7/page-7.md')?.i).toBe(pathId('space', 'folder-7/page-7.md'));
  });
});
