import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { QUEUE_DRIVERS } from '../helpers/queues.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';
import { waitFor } from '../helpers/wait.js';

const SUMMARY = `# Table of contents

* [Welcome](README.md)
* [Guide](guide/README.md)
  * [Install](guide/install.md)
`;

/** Files of the space: README links out, to a page, to a missing page, to the app; install links to README and the image. */
function files(otherSpaceId: string, organizationId: string): Record<string, string | Buffer> {
  return {
    'SUMMARY.md': SUMMARY,
    'README.md': [
      '# Welcome',
      '',
      'Start with [the install](guide/install.md#steps), see ![the hero](.gitbook/assets/hero.png).',
      'Not there yet: [missing](guide/missing.md). Outside: [Example](https://example.com/docs).',
      `In the app: [other space](http://quire.test/app/s/${otherSpaceId}/intro) and [the org](http://quire.test/app/o/${organizationId}).`,
      '',
    ].join('\n'),
    'guide/README.md': '# Guide\n\nSee [install](install.md).\n',
    'guide/install.md': '# Install\n\nBack [home](../README.md). ![Hero](../.gitbook/assets/hero.png)\n\n{% include "../.gitbook/includes/footer.md" %}\n',
    '.gitbook/assets/hero.png': tinyPng(4, 3),
    '.gitbook/assets/unused.png': tinyPng(1, 1),
    '.gitbook/includes/footer.md': '---\ntitle: Footer\n---\nThe footer.\n',
  };
}

describe.each(DATABASE_KINDS)('links and backlinks (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let otherSpaceId: string;
  let base: string;
  let pages: Record<string, any>;
  let fileIds: Record<string, string>;

  const get = (url: string, token: string | null = org.admin.token, query?: Record<string, string | number>) => t.request('GET', url, { token, query });
  const remote = (id: string) => spaceRemote(base, org.admin.token, id);
  /** A target in short: the URL, or `kind:title` (`file:name`). */
  const targetOf = (item: any): string => {
    const target = item.targetReference;
    const names: Record<string, () => string> = {
      url: () => target.url,
      page: () => `page:${target.page.title}`,
      file: () => `file:${target.file.name}`,
      space: () => `space:${target.space.title}`,
      'reusable-content': () => `reusable-content:${target.reusableContent.title}`,
    };
    return names[target.kind]();
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Handbook' } })).body.id;
    otherSpaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Other' } })).body.id;
    const checkout = await Checkout.clone(remote(spaceId));
    for (const [file, content] of Object.entries(files(otherSpaceId, org.id))) await checkout.write(file, content);
    await checkout.commitAndPush('content with links');
    await checkout.dispose();
    const tree = (await get(`/v1/spaces/${spaceId}/content/pages`)).body.pages;
    pages = { welcome: tree[0], guide: tree[1], install: tree[1].pages[0] };
    const listed = (await get(`/v1/spaces/${spaceId}/content/files`)).body.items;
    fileIds = Object.fromEntries(listed.map((f: any) => [f.name, f.id]));
  });
  afterAll(async () => t?.close());

  it('lists every link of the space by target, with status, relation, full target and locations, and stats (listSpaceLinks)', async () => {
    const res = await get(`/v1/spaces/${spaceId}/links`);
    expect(res.status).toBe(200);
    const byTarget = Object.fromEntries(res.body.items.map((item: any) => [targetOf(item), item]));
    expect(Object.keys(byTarget).sort()).toEqual(
      [
        'page:Install',
        'file:hero.png',
        'guide/missing.md',
        'https://example.com/docs',
        'space:Other',
        `http://quire.test/app/o/${org.id}`,
        'page:Welcome',
        'reusable-content:Footer',
      ].sort(),
    );
    // Install is linked twice: from Welcome (#steps) and from Guide (no anchor), two targets.
    const installs = res.body.items.filter((item: any) => targetOf(item) === 'page:Install');
    expect(installs).toHaveLength(2);
    expect(res.body.items.filter((i: any) => targetOf(i) === 'page:Install').map((i: any) => i.targetReference.internalLocation)).toContainEqual({ type: 'anchor', anchor: 'steps' });

    const broken = byTarget['guide/missing.md'];
    expect(broken).toMatchObject({ status: 'broken', relation: 'reference' });
    expect(broken.locationReferences.map((l: any) => [l.kind, l.page.id])).toEqual([['page', pages.welcome.id]]);
    expect(byTarget['https://example.com/docs'].status).toBe('ok');
    expect(byTarget['space:Other']).toMatchObject({ status: 'in-app', targetReference: { kind: 'space', space: { id: otherSpaceId }, organization: { id: org.id } } });
    expect(byTarget[`http://quire.test/app/o/${org.id}`].status).toBe('in-app');
    expect(byTarget['reusable-content:Footer'].relation).toBe('dependsOn');

    const hero = byTarget['file:hero.png'];
    expect(hero.status).toBe('ok');
    expect(hero.targetReference).toMatchObject({ kind: 'file', organization: { object: 'organization', id: org.id }, space: { object: 'space', id: spaceId }, file: { id: fileIds['hero.png'] } });
    expect(hero.locationReferences.map((l: any) => l.page.title)).toEqual(['Welcome', 'Install']);
    expect(hero.locationReferences[0]).toMatchObject({ kind: 'page', organization: { id: org.id }, space: { id: spaceId } });

    expect(res.body.stats).toEqual({ total: 9, broken: { total: 1, changeRequest: 0 } });
    expect(res.body.count).toBe(9);
  });

  it('filters by status, keeps stats of the whole list, and pages with a cursor (listSpaceLinks)', async () => {
    const broken = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { status: 'broken' });
    expect(broken.body.items.map(targetOf)).toEqual(['guide/missing.md']);
    expect(broken.body.stats).toEqual({ total: 9, broken: { total: 1, changeRequest: 0 } });
    const inApp = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { status: 'in-app' });
    expect(inApp.body.items.map((i: any) => i.status)).toEqual(['in-app', 'in-app']);
    const ok = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { status: 'ok' });
    expect(ok.body.items).toHaveLength(6);
    expect(ok.body.items.every((i: any) => i.status === 'ok')).toBe(true);

    const first = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { limit: 4 });
    expect(first.body.items).toHaveLength(4);
    const second = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { limit: 4, page: first.body.next.page });
    const third = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { limit: 4, page: second.body.next.page });
    expect(third.body.next).toBeUndefined();
    const all = [...first.body.items, ...second.body.items, ...third.body.items].map((i: any) => JSON.stringify(i.targetReference));
    expect(new Set(all).size).toBe(9);
    // A token of the unfiltered list does not page the filtered one.
    const foreign = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { limit: 4, page: first.body.next.page, status: 'ok' });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/^page: /);
  });

  it("lists one page's links with its own stats and the status filter (listPageLinksInSpace)", async () => {
    const res = await get(`/v1/spaces/${spaceId}/content/page/${pages.welcome.id}/links`);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(6);
    expect(res.body.stats).toEqual({ total: 6, broken: { total: 1, changeRequest: 0 } });
    for (const item of res.body.items) expect(item.locationReferences.map((l: any) => l.page.id)).toEqual([pages.welcome.id]);
    const broken = await get(`/v1/spaces/${spaceId}/content/page/${pages.welcome.id}/links`, org.admin.token, { status: 'broken' });
    expect(broken.body.items.map(targetOf)).toEqual(['guide/missing.md']);
    const install = await get(`/v1/spaces/${spaceId}/content/page/${pages.install.id}/links`);
    expect(install.body.items.map(targetOf).sort()).toEqual(['file:hero.png', 'page:Welcome', 'reusable-content:Footer']);
    expect(install.body.stats).toEqual({ total: 3, broken: { total: 0, changeRequest: 0 } });
  });

  it('lists the pages that link to a file, in page order (listSpaceFileBacklinks)', async () => {
    const res = await get(`/v1/spaces/${spaceId}/content/files/${fileIds['hero.png']}/backlinks`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((l: any) => [l.kind, l.page.title])).toEqual([
      ['page', 'Welcome'],
      ['page', 'Install'],
    ]);
    expect(res.body.items[0]).toMatchObject({ organization: { id: org.id }, space: { id: spaceId } });
    const paged = await get(`/v1/spaces/${spaceId}/content/files/${fileIds['hero.png']}/backlinks`, org.admin.token, { limit: 1 });
    expect(paged.body.items.map((l: any) => l.page.title)).toEqual(['Welcome']);
    const rest = await get(`/v1/spaces/${spaceId}/content/files/${fileIds['hero.png']}/backlinks`, org.admin.token, { limit: 1, page: paged.body.next.page });
    expect(rest.body.items.map((l: any) => l.page.title)).toEqual(['Install']);
    expect(rest.body.next).toBeUndefined();
    expect((await get(`/v1/spaces/${spaceId}/content/files/${fileIds['unused.png']}/backlinks`)).body).toEqual({ items: [], count: 0 });
  });

  it('reads the links of a change request whose page adds a link (listPageLinksInChangeRequest, listChangeRequestFileBacklinks), from its branch head', async () => {
    const number = (await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'More links' } })).body.number;
    const checkout = await Checkout.clone(remote(spaceId));
    await checkout.git('checkout', '--quiet', '-b', `change-requests/${number}`, `origin/change-requests/${number}`);
    await checkout.write('guide/README.md', '# Guide\n\nSee [install](install.md), [the hero](../.gitbook/assets/hero.png) and [a typo](instal.md).\n');
    await checkout.commit('more links');
    await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
    await checkout.dispose();

    const cr = `/v1/spaces/${spaceId}/change-requests/${number}`;
    const res = await get(`${cr}/content/page/${pages.guide.id}/links`);
    expect(res.status).toBe(200);
    expect(res.body.items.map(targetOf).sort()).toEqual(['file:hero.png', 'guide/instal.md', 'page:Install']);
    expect(res.body.stats).toEqual({ total: 3, broken: { total: 1, changeRequest: 1 } });
    const added = res.body.items.find((i: any) => targetOf(i) === 'guide/instal.md');
    expect(added.status).toBe('broken');
    expect(added.locationReferences[0].versionContext).toMatchObject({ type: 'changeRequest', changeRequest: { number } });
    // No status filter on the change-request variant: `status` is ignored.
    expect((await get(`${cr}/content/page/${pages.guide.id}/links`, org.admin.token, { status: 'ok' })).body.items).toHaveLength(3);
    // Main is unchanged.
    expect((await get(`/v1/spaces/${spaceId}/content/page/${pages.guide.id}/links`)).body.items.map(targetOf)).toEqual(['page:Install']);

    const backlinks = await get(`${cr}/content/files/${fileIds['hero.png']}/backlinks`);
    expect(backlinks.body.items.map((l: any) => l.page.title)).toEqual(['Welcome', 'Guide', 'Install']);
    expect((await get(`/v1/spaces/${spaceId}/content/files/${fileIds['hero.png']}/backlinks`)).body.items).toHaveLength(2);
  });

  it('indexes a revision the index lacks when it is read, and stores it', async () => {
    const commit = (await get(`/v1/spaces/${spaceId}`)).body.revision;
    await t.container.ctx.db.deleteFrom('links').where('space_id', '=', spaceId).execute();
    await t.container.ctx.db.deleteFrom('link_index').where('space_id', '=', spaceId).execute();
    const res = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { status: 'broken' });
    expect(res.body.items.map(targetOf)).toEqual(['guide/missing.md']);
    const stored = await t.container.ctx.db.selectFrom('link_index').select('commit_oid').where('space_id', '=', spaceId).execute();
    expect(stored.map((r) => r.commit_oid)).toEqual([commit]);
  });

  describe('who may read them', () => {
    let reader: TestUser;
    let stranger: TestUser;

    beforeAll(async () => {
      reader = await t.member(org.id, null);
      await t.grant(org.id, { space: spaceId }, { user: reader.user.id }, 'read');
      stranger = await t.user();
    });

    it('answers a reader of the space; an app link to a space they cannot see stays a URL', async () => {
      const res = await get(`/v1/spaces/${spaceId}/links`, reader.token, { status: 'in-app' });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => i.targetReference)).toEqual([
        { kind: 'url', url: `http://quire.test/app/o/${org.id}` },
        { kind: 'url', url: `http://quire.test/app/s/${otherSpaceId}/intro` },
      ]);
    });

    it('answers 404 to callers who cannot see the space and for unknown pages and files, 401 without a token', async () => {
      for (const url of [
        `/v1/spaces/${spaceId}/links`,
        `/v1/spaces/${spaceId}/content/page/${pages.welcome.id}/links`,
        `/v1/spaces/${spaceId}/content/files/${fileIds['hero.png']}/backlinks`,
        `/v1/spaces/${spaceId}/change-requests/1/content/page/${pages.welcome.id}/links`,
        `/v1/spaces/${spaceId}/change-requests/1/content/files/${fileIds['hero.png']}/backlinks`,
      ]) {
        expect((await get(url, stranger.token)).status, url).toBe(404);
        expect((await get(url, null)).status, url).toBe(401);
      }
      const page = await get(`/v1/spaces/${spaceId}/content/page/nope/links`);
      expect(page.status).toBe(404);
      expect(page.body.error.message).toMatch(/^pageId: /);
      const file = await get(`/v1/spaces/${spaceId}/content/files/nope/backlinks`);
      expect(file.status).toBe(404);
      expect(file.body.error.message).toMatch(/^fileId: /);
      expect((await get(`/v1/spaces/${spaceId}/change-requests/99/content/page/${pages.welcome.id}/links`)).status).toBe(404);
    });

    it('refuses a bad status filter or limit with 400 naming the parameter', async () => {
      const status = await get(`/v1/spaces/${spaceId}/links`, org.admin.token, { status: 'dead' });
      expect(status.status).toBe(400);
      expect(status.body.error.message).toBe('status: must be one of: ok, broken, in-app');
      const limit = await get(`/v1/spaces/${spaceId}/content/page/${pages.welcome.id}/links`, org.admin.token, { limit: 1001 });
      expect(limit.status).toBe(400);
      expect(limit.body.error.message).toMatch(/^limit: /);
    });
  });
});

describe.each(QUEUE_DRIVERS)('the index-links job after a push (%s queue)', (queue) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let checkout: Checkout;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {}, { queue });
    org = await t.organization();
    const base = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Jobs' } })).body.id;
    checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  const indexed = async () =>
    (await t.container.ctx.db.selectFrom('link_index').select('commit_oid').where('space_id', '=', spaceId).execute()).map((r) => r.commit_oid);

  /**
   * Waits until `commit` is indexed (and, with `pruned`, that commit's rows are gone: the job prunes after indexing).
   * Polls the index, not the API, which would index on its own.
   */
  const waitForIndex = (commit: string, pruned?: string): Promise<string[]> =>
    waitFor(indexed, {
      until: (commits) => commits.includes(commit) && !(pruned && commits.includes(pruned)),
      what: `index-links to index ${commit}${pruned ? ` and prune ${pruned}` : ''}`,
    });

  it('indexes each pushed revision of main, which the API then reads, and prunes the revision before', async () => {
    await checkout.write('README.md', '# Jobs\n\nA [broken](nowhere.md) link.\n');
    const first = await checkout.commitAndPush('first');
    await waitForIndex(first);
    const before = await t.request('GET', `/v1/spaces/${spaceId}/links`, { token: org.admin.token });
    expect(before.body.items.map((i: any) => [i.status, i.targetReference.url])).toEqual([['broken', 'nowhere.md']]);

    await checkout.write('README.md', '# Jobs\n\nA [fixed](https://example.com/) link.\n');
    const second = await checkout.commitAndPush('second');
    const commits = await waitForIndex(second, first);
    expect(commits).toContain(second);
    expect(commits).not.toContain(first);
    const after = await t.request('GET', `/v1/spaces/${spaceId}/links`, { token: org.admin.token });
    expect(after.body.items.map((i: any) => [i.status, i.targetReference.url])).toEqual([['ok', 'https://example.com/']]);
    expect(after.body.stats).toEqual({ total: 1, broken: { total: 0, changeRequest: 0 } });
  });
});
