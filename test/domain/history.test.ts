import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { factsOf, derivedId } from '../../src/domain/content/history.js';

describe('history facts: ids and timestamps that survive edits, renames and merges', () => {
  let t: TestApp;
  let spaceId: string;
  let checkout: Checkout;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'History' } })).body.id;
    checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  const facts = (oid: string) => factsOf(t.container.ctx, spaceId, oid);
  const longText = (seed: string) => Array.from({ length: 40 }, (_, i) => `Line ${i} of ${seed}, with enough words to compare.`).join('\n');

  it('gives the first commit ids derived from space, commit and path', async () => {
    const head = (await checkout.git('rev-parse', 'HEAD')).trim();
    const f = await facts(head);
    expect(Object.keys(f)).toEqual(['README.md']);
    expect(f['README.md'].i).toBe(derivedId(spaceId, head, 'README.md'));
    expect(f['README.md'].c).toBe(f['README.md'].u);
  });

  it('keeps id and createdAt through an edit, a rename, a rename with edits and a move; updatedAt follows changes', async () => {
    await checkout.write('guide/install.md', `# Install\n\n${longText('install')}\n`);
    await checkout.write('guide/other.md', '# Other\n');
    const c1 = await checkout.commitAndPush('add pages');
    const f1 = await facts(c1);
    const installId = f1['guide/install.md'].i;
    expect(installId).toBe(derivedId(spaceId, c1, 'guide/install.md'));

    // Make commit dates differ from c1's (git dates have one-second resolution).
    await new Promise((r) => setTimeout(r, 1100));
    await checkout.write('guide/other.md', '# Other\n\nEdited.\n');
    const c2 = await checkout.commitAndPush('edit other');
    const f2 = await facts(c2);
    expect(f2['guide/install.md']).toEqual(f1['guide/install.md']);
    expect(f2['guide/other.md'].i).toBe(f1['guide/other.md'].i);
    expect(f2['guide/other.md'].c).toBe(f1['guide/other.md'].c);
    expect(f2['guide/other.md'].u > f1['guide/other.md'].u).toBe(true);

    await checkout.write('setup/installation.md', await checkout.read('guide/install.md'));
    await checkout.remove('guide/install.md');
    const c3 = await checkout.commitAndPush('exact rename');
    expect((await facts(c3))['setup/installation.md'].i).toBe(installId);

    await checkout.git('mv', 'setup/installation.md', 'setup/install-cli.md');
    await checkout.write('setup/install-cli.md', `# Install the CLI\n\n${longText('install')}\nOne more line.\n`);
    const c4 = await checkout.commitAndPush('rename with edits');
    const f4 = await facts(c4);
    expect(f4['setup/install-cli.md'].i).toBe(installId);
    expect(f4['setup/install-cli.md'].c).toBe(f1['guide/install.md'].c);
    expect(Object.keys(f4)).not.toContain('setup/installation.md');
  });

  it('gives a copy a new id while the original keeps its own', async () => {
    const before = await facts((await checkout.git('rev-parse', 'HEAD')).trim());
    await checkout.write('setup/copy.md', await checkout.read('setup/install-cli.md'));
    const c = await checkout.commitAndPush('copy');
    const f = await facts(c);
    expect(f['setup/install-cli.md'].i).toBe(before['setup/install-cli.md'].i);
    expect(f['setup/copy.md'].i).toBe(derivedId(spaceId, c, 'setup/copy.md'));
  });

  it('keeps the ids of pages added on a branch after a merge', async () => {
    await checkout.git('checkout', '--quiet', '-b', 'change-requests/1');
    await checkout.write('feature.md', '# Feature\n');
    const onBranch = await checkout.commitAndPush('feature page');
    const branchId = (await facts(onBranch))['feature.md'].i;
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.write('main-only.md', '# Main\n');
    await checkout.commitAndPush('main page');
    await checkout.git('merge', '--quiet', '--no-edit', 'change-requests/1');
    const merge = (await checkout.git('rev-parse', 'HEAD')).trim();
    await checkout.push();
    const f = await facts(merge);
    expect(f['feature.md'].i).toBe(branchId);
    expect(f['main-only.md']).toBeDefined();
  });

  it('computes the same facts again once every cache is dropped (they are derived, not stored state)', async () => {
    await checkout.push('main:refs/heads/main');
    const head = (await checkout.git('rev-parse', 'HEAD')).trim();
    const first = await facts(head);
    await t.container.ctx.db.deleteFrom('revision_facts').execute();
    // A fresh container has an empty memory cache too.
    const { createContainer } = await import('../../src/container.js');
    const other = await createContainer(t.config);
    try {
      expect(await factsOf(other.ctx, spaceId, head)).toEqual(first);
    } finally {
      await other.close();
    }
  });
});
