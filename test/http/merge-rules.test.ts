import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

/**
 * Merge rules (a Quire extension): an organization's default and a space's own (getOrganizationMergeRules,
 * setOrganizationMergeRules, getSpaceMergeRules, setSpaceMergeRules), a change request's mergeability
 * (getChangeRequestMergeability) and mergeChangeRequest refusing what they block, over real pushes and real reviews.
 */
describe.each(DATABASE_KINDS)('merge rules (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let author: TestUser;
  let reviewer: TestUser;
  let second: TestUser;
  let reader: TestUser;

  const api = (method: string, url: string, user: TestUser, body?: unknown) => t.request(method, url, { token: user.token, body });
  const admin = () => org.admin;

  /** A space whose main holds `files`, pushed over git. */
  async function space(files: Record<string, string>): Promise<string> {
    const spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, admin(), { title: 'Ruled' })).body.id as string;
    const checkout = await Checkout.clone(spaceRemote(base, admin().token, spaceId));
    try {
      for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
      await checkout.commit('base');
      await checkout.push();
    } finally {
      await checkout.dispose();
    }
    return spaceId;
  }

  /** Opens a change request as the author and pushes `files` to its branch over git; its url. */
  async function changeRequest(spaceId: string, files: Record<string, string>): Promise<string> {
    const created = await api('POST', `/v1/spaces/${spaceId}/change-requests`, author, { subject: 'Change' });
    expect(created.status).toBe(201);
    const number = created.body.number as number;
    const checkout = await Checkout.clone(spaceRemote(base, author.token, spaceId));
    try {
      await checkout.git('checkout', '--quiet', '-b', `change-requests/${number}`, `origin/change-requests/${number}`);
      for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
      await checkout.commit(`change ${number}`);
      await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
    } finally {
      await checkout.dispose();
    }
    return `/v1/spaces/${spaceId}/change-requests/${number}`;
  }

  const merge = (url: string) => api('POST', `${url}/merge`, admin());
  const mergeability = (url: string) => api('GET', `${url}/merge-rules`, reader);
  const review = async (url: string, user: TestUser, status: 'approved' | 'changes-requested') => {
    const res = await api('POST', `${url}/reviews`, user, { status });
    expect(res.status).toBe(201);
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
    author = await t.member(org.id, 'edit');
    reviewer = await t.member(org.id, 'review');
    second = await t.member(org.id, 'review');
    reader = await t.member(org.id, 'read');
  });
  afterAll(async () => t?.close());

  it('answers the defaults until rules are set; a space inherits the organization default, overrides it, and inherits again', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    const defaults = { object: 'merge-rules', requiredApprovals: 0, noNewBrokenLinks: false, noContentProblems: false, source: 'default' };
    // A fresh organization's rules are the defaults (any member reads them).
    const other = await t.organization('Other');
    expect((await api('GET', `/v1/orgs/${other.id}/merge-rules`, other.admin)).body).toEqual(defaults);
    const otherSpace = (await api('POST', `/v1/orgs/${other.id}/spaces`, other.admin, { title: 'Plain' })).body.id;
    expect((await api('GET', `/v1/spaces/${otherSpace}/merge-rules`, other.admin)).body).toEqual(defaults);

    const set = await api('PUT', `/v1/orgs/${org.id}/merge-rules`, admin(), { requiredApprovals: 2, noNewBrokenLinks: true });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ object: 'merge-rules', requiredApprovals: 2, noNewBrokenLinks: true, noContentProblems: false, source: 'organization' });
    expect((await api('GET', `/v1/orgs/${org.id}/merge-rules`, reader)).body).toEqual(set.body);
    expect((await api('GET', `/v1/spaces/${spaceId}/merge-rules`, reader)).body).toEqual(set.body);

    const own = await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { requiredApprovals: 1 });
    expect(own.body).toEqual({ object: 'merge-rules', requiredApprovals: 1, noNewBrokenLinks: false, noContentProblems: false, source: 'space' });
    expect((await api('GET', `/v1/spaces/${spaceId}/merge-rules`, reader)).body).toEqual(own.body);
    // The organization's change shows in the spaces that inherit, not in the one with its own rules.
    await api('PUT', `/v1/orgs/${org.id}/merge-rules`, admin(), { requiredApprovals: 3 });
    expect((await api('GET', `/v1/spaces/${spaceId}/merge-rules`, reader)).body.requiredApprovals).toBe(1);

    const inherit = await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { inherit: true });
    expect(inherit.status).toBe(200);
    expect(inherit.body).toEqual({ object: 'merge-rules', requiredApprovals: 3, noNewBrokenLinks: false, noContentProblems: false, source: 'organization' });
    expect((await api('GET', `/v1/spaces/${spaceId}/merge-rules`, reader)).body).toEqual(inherit.body);
    // Back to no rules for the other tests: each of them sets its space's own.
    await api('PUT', `/v1/orgs/${org.id}/merge-rules`, admin(), {});
    expect((await api('GET', `/v1/orgs/${org.id}/merge-rules`, reader)).body).toMatchObject({ requiredApprovals: 0, source: 'organization' });
  });

  it('lets only admins set rules: a reader, an editor and a reviewer cannot; a non-member sees nothing', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    for (const user of [reader, author, reviewer]) {
      expect((await api('PUT', `/v1/orgs/${org.id}/merge-rules`, user, { requiredApprovals: 1 })).status).toBe(403);
      expect((await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, user, { requiredApprovals: 1 })).status).toBe(403);
      expect((await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, user, { inherit: true })).status).toBe(403);
    }
    expect((await api('GET', `/v1/spaces/${spaceId}/merge-rules`, reader)).body.requiredApprovals).toBe(0);
    const stranger = await t.organization('Strangers');
    expect((await api('GET', `/v1/orgs/${org.id}/merge-rules`, stranger.admin)).status).toBe(404);
    expect((await api('GET', `/v1/spaces/${spaceId}/merge-rules`, stranger.admin)).status).toBe(404);
    expect((await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, stranger.admin, { requiredApprovals: 1 })).status).toBe(404);
  });

  it('answers bad input with a 400 naming the field, and changes nothing', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    const bad: Array<[string, unknown, string]> = [
      [`/v1/spaces/${spaceId}/merge-rules`, { requiredApprovals: 11 }, 'requiredApprovals'],
      [`/v1/spaces/${spaceId}/merge-rules`, { requiredApprovals: -1 }, 'requiredApprovals'],
      [`/v1/spaces/${spaceId}/merge-rules`, { requiredApprovals: 1.5 }, 'requiredApprovals'],
      [`/v1/spaces/${spaceId}/merge-rules`, { noNewBrokenLinks: 'yes' }, 'noNewBrokenLinks'],
      [`/v1/spaces/${spaceId}/merge-rules`, { inherit: true, requiredApprovals: 1 }, 'requiredApprovals'],
      [`/v1/spaces/${spaceId}/merge-rules`, { requiredApprovals: 1, strict: true }, 'strict'],
      [`/v1/orgs/${org.id}/merge-rules`, { noContentProblems: 1 }, 'noContentProblems'],
      [`/v1/orgs/${org.id}/merge-rules`, { inherit: true }, 'inherit'],
    ];
    for (const [url, body, field] of bad) {
      const res = await api('PUT', url, admin(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(new RegExp(`^${field}\\b`));
    }
    const after = (await api('GET', `/v1/spaces/${spaceId}/merge-rules`, reader)).body;
    expect(after).toMatchObject({ requiredApprovals: 0, noNewBrokenLinks: false });
    expect(after.source).not.toBe('space');
  });

  it('blocks a merge until enough reviewers approve; an approval of an older revision still counts', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { requiredApprovals: 1 });
    const url = await changeRequest(spaceId, { 'a.md': '# A\n' });
    const main = (await api('GET', `/v1/spaces/${spaceId}`, admin())).body.revision;

    const before = await mergeability(url);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ object: 'change-request-mergeability', mergeable: false, rules: { requiredApprovals: 1, source: 'space' } });
    expect(before.body.blocking).toEqual([{ rule: 'requiredApprovals', message: expect.stringContaining('1 approval is required, 0 given'), data: { required: 1, given: 0 } }]);
    const refused = await merge(url);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/^requiredApprovals: 1 approval is required, 0 given/);
    // Nothing was written: main did not move, the change request is still open.
    expect((await api('GET', `/v1/spaces/${spaceId}`, admin())).body.revision).toBe(main);
    expect((await api('GET', url, admin())).body.status).toBe('open');

    await review(url, reviewer, 'approved');
    // A new push after the approval: the approval is outdated but still counts.
    const checkout = await Checkout.clone(spaceRemote(base, author.token, spaceId));
    const number = url.split('/').pop();
    await checkout.git('checkout', '--quiet', '-b', 'work', `origin/change-requests/${number}`);
    await checkout.write('b.md', '# B\n');
    await checkout.commit('more');
    await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
    await checkout.dispose();

    expect((await mergeability(url)).body).toMatchObject({ mergeable: true, blocking: [] });
    const merged = await merge(url);
    expect(merged.status).toBe(200);
    expect(merged.body.result).toBe('merge');
  });

  it('blocks a merge while a reviewer requests changes, whatever the approvals', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { requiredApprovals: 1 });
    const url = await changeRequest(spaceId, { 'a.md': '# A\n' });
    await review(url, reviewer, 'approved');
    await review(url, second, 'changes-requested');
    const blocked = await mergeability(url);
    expect(blocked.body.mergeable).toBe(false);
    expect(blocked.body.blocking).toEqual([{ rule: 'changesRequested', message: expect.stringContaining('requested changes'), data: { reviewers: [second.user.id] } }]);
    const refused = await merge(url);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/^changesRequested: /);
    // The reviewer's latest review is what counts.
    await review(url, second, 'approved');
    expect((await mergeability(url)).body.mergeable).toBe(true);
    expect((await merge(url)).status).toBe(200);
  });

  it('blocks a change request that adds a broken link, not one whose broken link main already had', async () => {
    const spaceId = await space({ 'README.md': '# Home\n\nSee [the old page](old.md).\n', 'guide.md': '# Guide\n' });
    await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { noNewBrokenLinks: true });
    // main's own broken link (old.md) does not block a change request that leaves it alone.
    const onMain = await api('GET', `/v1/spaces/${spaceId}/links?status=broken`, reader);
    expect(onMain.body.items.map((i: any) => i.targetReference.url)).toEqual(['old.md']);
    const clean = await changeRequest(spaceId, { 'extra.md': '# Extra\n\nSee the [guide](guide.md).\n' });
    expect((await mergeability(clean)).body).toMatchObject({ mergeable: true, blocking: [] });

    const broken = await changeRequest(spaceId, { 'guide.md': '# Guide\n\nSee [the missing page](missing.md).\n' });
    const blocked = await mergeability(broken);
    expect(blocked.body.mergeable).toBe(false);
    expect(blocked.body.blocking).toHaveLength(1);
    expect(blocked.body.blocking[0]).toMatchObject({ rule: 'noNewBrokenLinks', data: { count: 1 } });
    expect(blocked.body.blocking[0].data.links).toEqual([expect.stringContaining('missing.md')]);
    const refused = await merge(broken);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/^noNewBrokenLinks: the change request adds 1 broken link/);

    expect((await merge(clean)).status).toBe(200);
    // Without the rule the same change request merges.
    await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { inherit: true });
    const inherited = (await mergeability(broken)).body;
    expect(inherited).toMatchObject({ mergeable: true, rules: { noNewBrokenLinks: false } });
    expect(inherited.rules.source).not.toBe('space');
    expect((await merge(broken)).status).toBe(200);
  });

  it('blocks a change request whose head has content problems (what the push checks warn of)', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { noContentProblems: true });
    const clean = await changeRequest(spaceId, { 'a.md': '# A\n' });
    expect((await mergeability(clean)).body).toMatchObject({ mergeable: true, blocking: [] });
    // A cover naming no file of the content: the push takes it with a warning.
    const warned = await changeRequest(spaceId, { 'b.md': '---\ncover: missing.png\n---\n\n# B\n' });
    const blocked = await mergeability(warned);
    expect(blocked.body.mergeable).toBe(false);
    expect(blocked.body.blocking).toEqual([
      { rule: 'noContentProblems', message: "the change request's content has 1 problem: fix it before merging.", data: { count: 1, problems: [expect.stringMatching(/^b\.md:2: front matter `cover` names missing\.png/)] } },
    ]);
    const refused = await merge(warned);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/^noContentProblems: /);
    expect((await merge(clean)).status).toBe(200);
  });

  it('follows the organization default until the space sets its own', async () => {
    const spaceId = await space({ 'README.md': '# Home\n' });
    const url = await changeRequest(spaceId, { 'a.md': '# A\n' });
    await api('PUT', `/v1/orgs/${org.id}/merge-rules`, admin(), { requiredApprovals: 2 });
    try {
      expect((await mergeability(url)).body.blocking).toEqual([expect.objectContaining({ rule: 'requiredApprovals', data: { required: 2, given: 0 } })]);
      expect((await merge(url)).status).toBe(409);
      await api('PUT', `/v1/spaces/${spaceId}/merge-rules`, admin(), { requiredApprovals: 0 });
      expect((await mergeability(url)).body).toMatchObject({ mergeable: true, rules: { source: 'space' } });
      expect((await merge(url)).status).toBe(200);
    } finally {
      await api('PUT', `/v1/orgs/${org.id}/merge-rules`, admin(), {});
    }
  });
});
