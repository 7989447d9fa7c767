/**
 * What a change request and a revision change, over real HTTP and real pushes: getChangeRequestChanges,
 * getRevisionSemanticChanges (every answer checked against the reference by the test app), and the page block diff
 * (a Quire extension). A change request's branch adds, edits, renames, reorders, moves and deletes pages, and adds,
 * edits and deletes files; main moves on meanwhile; the change request is merged and its merge commit read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, localEventLoop } from '../helpers/event-loop.js';
import { assertMatchesReference } from '../helpers/contract.js';

const SUMMARY = (items: string[]) => ['# Table of contents', '', ...items, '', '## Reference', '', '* [Status](https://status.example.com)', ''].join('\n');

/** A change as a line: its type and what it is about. */
function line(change: any): string {
  const what = change.page?.title ?? change.file?.name ?? change.reusableContent?.title ?? '';
  const attributes = change.attributes ? ` [${Object.keys(change.attributes).join(',')}]` : '';
  const parent = change.parent ? ` (${change.parent.before?.title ?? 'top'} -> ${change.parent.after?.title ?? 'top'})` : '';
  return `${change.type} ${what}${attributes}${parent}`.trim();
}

describe.each(DATABASE_KINDS)('semantic changes (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let spaceId: string;
  let cr: { id: string; number: number };
  let first: string;
  let mainEdit: string;
  let pagesBefore: Array<{ id: string; title: string; path: string }>;

  const get = (url: string, query?: Record<string, string | number | boolean>, token = org.admin.token) => t.request('GET', url, { token, query });
  const crUrl = () => `/v1/spaces/${spaceId}/change-requests/${cr.number}`;

  function flatten(pages: any[]): Array<{ id: string; title: string; path: string }> {
    return pages.flatMap((page) => [{ id: page.id, title: page.title, path: page.path }, ...flatten(page.pages ?? [])]);
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Changes' } })).body.id;
    first = (await get(`/v1/spaces/${spaceId}`)).body.revision;

    const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
    await checkout.write(
      'SUMMARY.md',
      SUMMARY([
        '* [Welcome](README.md)',
        '* [Guide](guide/README.md)',
        '  * [Install](guide/install.md)',
        '  * [Configure](guide/configure.md)',
        '  * [Deploy](guide/deploy.md)',
        '* [Old](old.md)',
        '* [API](api.md)',
      ]),
    );
    await checkout.write('README.md', '# Welcome\n\nHello.\n');
    await checkout.write('guide/README.md', '# Guide\n\nThe guide.\n');
    await checkout.write('guide/install.md', '# Install\n\nRun it.\n\nThen relax.\n');
    await checkout.write('guide/configure.md', '# Configure\n\nSet it up with the flux settings of your choice.\n');
    await checkout.write('guide/deploy.md', '# Deploy\n\nShip it.\n');
    await checkout.write('old.md', '# Old\n\nGone soon.\n');
    await checkout.write('api.md', '# API\n\nEndpoints.\n');
    await checkout.write('.gitbook/assets/logo.png', tinyPng(4, 3));
    await checkout.write('.gitbook/assets/gone.png', tinyPng(2, 2));
    await checkout.write('.gitbook/includes/note.md', '---\ntitle: Note\n---\n\nA note.\n');
    await checkout.write('.gitbook/vars.yaml', 'version: "1.0"\n');
    await checkout.commitAndPush('content');
    pagesBefore = flatten((await get(`/v1/spaces/${spaceId}/content/pages`)).body.pages);

    cr = (await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Rework the guide' } })).body;
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', 'cr', `origin/change-requests/${cr.number}`);
    await checkout.write(
      'SUMMARY.md',
      SUMMARY([
        '* [Welcome](README.md)',
        '* [Guide](guide/README.md)',
        '  * [New](guide/new.md)',
        '  * [Install](guide/install.md)',
        '  * [Deploy](guide/deploy.md)',
        '  * [Configuration](guide/configuration.md)',
        '  * [API](api.md)',
      ]),
    );
    await checkout.write('guide/new.md', '# New\n\nFresh.\n');
    await checkout.write('guide/install.md', '# Install\n\nRun it twice.\n\nThen relax.\n\nOr [configure](configuration.md) it.\n');
    await checkout.git('mv', 'guide/configure.md', 'guide/configuration.md');
    await checkout.remove('old.md');
    await checkout.write('.gitbook/assets/logo.png', tinyPng(300, 200));
    await checkout.remove('.gitbook/assets/gone.png');
    await checkout.write('.gitbook/assets/new.png', tinyPng(1, 1));
    await checkout.write('.gitbook/includes/note.md', '---\ntitle: Note\n---\n\nA longer note.\n');
    await checkout.write('.gitbook/vars.yaml', 'version: "2.0"\n');
    await checkout.commit('rework');
    await checkout.push(`HEAD:refs/heads/change-requests/${cr.number}`);

    // Main moves on meanwhile, in a page the change request leaves alone.
    await checkout.git('checkout', '--quiet', '-B', 'main', 'origin/main');
    await checkout.write('README.md', '# Welcome\n\nHello again.\n');
    mainEdit = await checkout.commit('main moves');
    await checkout.push('HEAD:refs/heads/main');
    await checkout.dispose();
  });
  afterAll(async () => t?.close());

  const EXPECTED = [
    'page_created New',
    'page_edited Install [document]',
    // Deploy came before Configure: of the two kept siblings, it left the old order.
    'page_moved Deploy (Guide -> Guide)',
    'page_edited Configuration [title,slug]',
    'page_moved API (top -> Guide)',
    'page_deleted Old',
  ];

  it("answers a change request's changes from where it left main, in the reference's shapes (getChangeRequestChanges)", async () => {
    const all = await get(`${crUrl()}/changes`, { limit: 100 });
    expect(all.status).toBe(200);
    expect(all.body.more).toBe(0);
    expect(all.body.mergedFrom).toBeUndefined();
    const lines = all.body.changes.map(line);
    // Main's own edit of Welcome is not the change request's.
    expect(lines.filter((l: string) => l.startsWith('page_'))).toEqual(EXPECTED);
    expect(lines.filter((l: string) => !l.startsWith('page_')).sort()).toEqual(
      [
        'file_created new.png',
        'file_deleted gone.png',
        'file_edited logo.png [downloadURL,size,dimensions]',
        'reusable_content_edited Note [document]',
        'variables_edited',
      ].sort(),
    );

    const byTitle = (title: string) => pagesBefore.find((page) => page.title === title)!;
    const changes = all.body.changes as any[];
    const renamed = changes.find((change) => change.type === 'page_edited' && change.page.title === 'Configuration');
    // git's rename detection keeps the page's id; its title and slug changed.
    expect(renamed).toEqual({
      type: 'page_edited',
      page: { id: byTitle('Configure').id, type: 'document', title: 'Configuration', path: 'guide/configuration' },
      attributes: { title: { before: 'Configure', after: 'Configuration' }, slug: { before: 'configure', after: 'configuration' } },
    });
    const install = changes.find((change) => change.type === 'page_edited' && change.page.title === 'Install');
    const installNow = (await get(`${crUrl()}/content/page/${byTitle('Install').id}`)).body;
    const installThen = (await get(`/v1/spaces/${spaceId}/content/page/${byTitle('Install').id}`)).body;
    expect(install.attributes.document).toEqual({ before: installThen.documentId, after: installNow.documentId });
    const moved = changes.find((change) => change.type === 'page_moved' && change.page.title === 'API');
    expect(moved.parent).toEqual({ after: { id: byTitle('Guide').id, type: 'document', title: 'Guide', path: 'guide' } });
    expect(changes.find((change) => change.type === 'page_deleted')).toEqual({
      type: 'page_deleted',
      page: { id: byTitle('Old').id, type: 'document', title: 'Old', path: 'old' },
    });
    const logo = changes.find((change) => change.type === 'file_edited');
    expect(logo.file).toMatchObject({ name: 'logo.png', contentType: 'image/png' });
    expect(logo.attributes.dimensions).toEqual({ before: { width: 4, height: 3 }, after: { width: 300, height: 200 } });
    expect(logo.attributes.downloadURL.after).toBe(logo.file.downloadURL);
    expect(changes.find((change) => change.type === 'variables_edited').variables).toEqual({ version: { before: '1.0', after: '2.0' } });
    // A deleted file's download still answers: its blob is in the repository (the test app GETs every URL handed out).
    expect(changes.find((change) => change.type === 'file_deleted').file.downloadURL).toMatch(/\/files\/[0-9a-f]{40}\/gone\.png$/);
  });

  it('bounds the answer with `limit` (default 10) and counts the rest as `more`', async () => {
    const all = (await get(`${crUrl()}/changes`, { limit: 100 })).body.changes;
    expect(all.length).toBe(11);
    const byDefault = await get(`${crUrl()}/changes`);
    expect(byDefault.body.changes).toEqual(all.slice(0, 10));
    expect(byDefault.body.more).toBe(1);
    const two = await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/changes`, { limit: 2.9 });
    expect(two.body).toEqual({ changes: all.slice(0, 2), more: 9 });
    expect((await get(`${crUrl()}/changes`, { limit: 0 })).body).toEqual({ changes: [], more: 11 });
  });

  it('compares one page block by block, rendered as the published site renders it (a Quire extension)', async () => {
    const install = pagesBefore.find((page) => page.title === 'Install')!;
    const configuration = pagesBefore.find((page) => page.title === 'Configure')!;
    const crHead = (await get(crUrl())).body.revision;
    const diff = await get(`${crUrl()}/changes/pages/${install.id}`);
    expect(diff.status).toBe(200);
    expect(diff.body.page).toEqual({ id: install.id, title: 'Install', path: 'guide/install' });
    expect(diff.body.head).toBe(crHead);
    expect(diff.body.base).toMatch(/^[0-9a-f]{40}$/);
    expect(diff.body.markdown).toEqual({ before: 'Run it.\n\nThen relax.\n', after: 'Run it twice.\n\nThen relax.\n\nOr [configure](configuration.md) it.\n' });
    expect(diff.body.blocks).toEqual([
      { change: 'changed', before: '<p>Run it.</p>', after: '<p>Run it twice.</p>' },
      { change: 'unchanged', before: '<p>Then relax.</p>', after: '<p>Then relax.</p>' },
      // Links lead where the API shows the page (its app URL).
      { change: 'added', after: `<p>Or <a href="http://quire.test/app/s/${spaceId}/guide/configuration">configure</a> it.</p>` },
    ]);
    expect(configuration.id).toBeDefined();
    // The markdown one click away, line by line.
    const lines = await get(`${crUrl()}/changes/pages/${install.id}`, { format: 'markdown' });
    expect(lines.status).toBe(200);
    expect(lines.body).toMatchObject({ page: diff.body.page, base: diff.body.base, head: crHead, blocks: [], markdown: diff.body.markdown });
    expect(lines.body.hunks).toEqual([
      {
        beforeStart: 1,
        beforeLines: 3,
        afterStart: 1,
        afterLines: 5,
        lines: [
          { change: 'removed', text: 'Run it.' },
          { change: 'added', text: 'Run it twice.' },
          { change: 'unchanged', text: '' },
          { change: 'unchanged', text: 'Then relax.' },
          { change: 'added', text: '' },
          { change: 'added', text: 'Or [configure](configuration.md) it.' },
        ],
      },
    ]);
    expect((await get(`${crUrl()}/changes/pages/${install.id}`, { format: 'blocks' })).body).toEqual(diff.body);
    const badFormat = await get(`${crUrl()}/changes/pages/${install.id}`, { format: 'html' });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.message).toMatch(/^format: /);

    const created = (await get(`${crUrl()}/content/pages`)).body.pages.flatMap((page: any) => [page, ...(page.pages ?? [])]).find((page: any) => page.title === 'New');
    const added = await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/changes/pages/${created.id}`);
    expect(added.body).toEqual({ page: { id: created.id, title: 'New', path: 'guide/new' }, head: crHead, blocks: [{ change: 'added', after: '<p>Fresh.</p>' }], markdown: { after: 'Fresh.\n' } });
    const old = pagesBefore.find((page) => page.title === 'Old')!;
    expect((await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/changes/pages/${created.id}`, { format: 'markdown' })).body.hunks).toEqual([
      { beforeStart: 1, beforeLines: 0, afterStart: 1, afterLines: 1, lines: [{ change: 'added', text: 'Fresh.' }] },
    ]);
    const removed = await get(`${crUrl()}/changes/pages/${old.id}`);
    expect(removed.body.head).toBeUndefined();
    expect(removed.body.blocks).toEqual([{ change: 'removed', before: '<p>Gone soon.</p>' }]);
    expect(removed.body.markdown).toEqual({ before: 'Gone soon.\n' });
    // A group has no document: no blocks.
    const group = (await get(`${crUrl()}/content/pages`)).body.pages.find((page: any) => page.type === 'group');
    expect((await get(`${crUrl()}/changes/pages/${group.id}`)).body).toMatchObject({ blocks: [], markdown: {} });
    const unknown = await get(`${crUrl()}/changes/pages/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/^pageId: /);
  });

  it("answers a revision's changes against its first parent, and the first commit's against nothing (getRevisionSemanticChanges)", async () => {
    const edit = await get(`/v1/spaces/${spaceId}/revisions/${mainEdit}/changes`, { metadata: false, computed: false });
    expect(edit.status).toBe(200);
    expect(edit.body.changes.map(line)).toEqual(['page_edited Welcome [document]']);
    expect(edit.body.mergedFrom).toBeUndefined();
    const initial = await get(`/v1/spaces/${spaceId}/revisions/${first}/changes`);
    expect(initial.body.changes.map(line)).toEqual(['page_created Changes']);
    expect(initial.body.more).toBe(0);
  });

  it('reads the merge commit of a change request with the change request as `mergedFrom`; the merged change request reads as before', async () => {
    const before = (await get(`${crUrl()}/changes`, { limit: 100 })).body;
    const merged = await t.request('POST', `${crUrl()}/merge`, { token: org.admin.token });
    expect(merged.body.result).toBe('merge');
    const revision = await get(`/v1/spaces/${spaceId}/revisions/${merged.body.revision}/changes`, { limit: 100 });
    expect(revision.status).toBe(200);
    expect(revision.body.mergedFrom).toMatchObject({ object: 'change-request', id: cr.id, number: cr.number, status: 'merged', revisionMerged: merged.body.revision });
    expect(revision.body.mergedFrom).toEqual((await get(crUrl())).body);
    expect(revision.body.changes).toEqual(before.changes);
    // Compared with main before its merge: still its own changes.
    expect((await get(`${crUrl()}/changes`, { limit: 100 })).body).toEqual(before);
    expect((await get(`${crUrl()}/changes/pages/${pagesBefore.find((page) => page.title === 'Install')!.id}`)).body.blocks.map((block: any) => block.change)).toEqual([
      'changed',
      'unchanged',
      'added',
    ]);
  });

  it('refuses bad input naming the field; 404 for unknown revisions, change requests and strangers; read permission suffices', async () => {
    for (const limit of ['-1', '1001', 'many']) {
      for (const url of [`${crUrl()}/changes`, `/v1/spaces/${spaceId}/revisions/${mainEdit}/changes`]) {
        const res = await get(url, { limit });
        expect(res.status, `${url} limit=${limit}`).toBe(400);
        expect(res.body.error.message).toMatch(/^limit: /);
      }
    }
    for (const revision of ['0'.repeat(40), 'nope', 'HEAD']) {
      const res = await get(`/v1/spaces/${spaceId}/revisions/${revision}/changes`);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toMatch(/^revisionId: /);
    }
    expect((await get(`/v1/spaces/${spaceId}/change-requests/999/changes`)).status).toBe(404);
    expect((await get(`/v1/spaces/${spaceId}/change-requests/999/changes/pages/x`)).status).toBe(404);

    const reader = await t.member(org.id, 'read');
    expect((await get(`${crUrl()}/changes`, undefined, reader.token)).status).toBe(200);
    expect((await get(`/v1/spaces/${spaceId}/revisions/${mainEdit}/changes`, undefined, reader.token)).status).toBe(200);
    const stranger = await t.user();
    for (const url of [`${crUrl()}/changes`, `/v1/spaces/${spaceId}/revisions/${mainEdit}/changes`, `${crUrl()}/changes/pages/x`]) {
      expect((await get(url, undefined, stranger.token)).status).toBe(404);
      expect((await t.request('GET', url)).status).toBe(401);
    }
  });
});

// The database plays no part in what is measured here: SQLite only.
describe('semantic changes of a big change request', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    org = await t.organization();
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  const PAGES = 2000;
  const PARAGRAPHS = 2000;
  const item = (i: number) => `  * [Page ${i}](part/p${i}.md)`;
  /** About 800 KB: 10,000 paragraphs, the one in the middle saying `middle`. */
  const huge = (middle: string) => Array.from({ length: 10_000 }, (_, i) => (i === 5000 ? `In ${middle}.` : `Line ${i} of a long page, with *some* emphasis and \`code\`.`)).join('\n\n');
  const paragraphs = (edit: (i: number) => boolean) => Array.from({ length: PARAGRAPHS }, (_, i) => `Paragraph ${i}${edit(i) ? ', edited' : ''} of a [link](part/p${i % PAGES}.md).`).join('\n\n');

  it('never holds the event loop while 2,000 pages, a 2,000-block page and a 10,000-block page are compared', { timeout: 240_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const token = org.admin.token;
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Big' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(base, token, spaceId));
    const indexes = Array.from({ length: PAGES }, (_, i) => i);
    const summary = (order: number[]) => ['* [Big](big.md)', '* [Huge](huge.md)', '* [Part](part/README.md)', ...order.map(item), ''].join('\n');
    await checkout.write('SUMMARY.md', summary(indexes));
    await checkout.write('part/README.md', '# Part\n');
    for (const i of indexes) await checkout.write(`part/p${i}.md`, `# Page ${i}\n\nText ${i}.\n`);
    await checkout.write('big.md', `# Big\n\n${paragraphs(() => false)}\n`);
    await checkout.write('huge.md', `# Huge\n\n${huge('the middle')}\n`);
    await checkout.commitAndPush('many pages');
    const cr = (await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: {} })).body;
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', 'cr', `origin/change-requests/${cr.number}`);
    // The last 100 pages go first (moved), 500 are edited, 100 deleted, 100 created; every other block of the big page changes.
    const order = [...indexes.slice(-100), ...indexes.slice(0, -100)].filter((i) => i < 1000 || i >= 1100);
    await checkout.write('SUMMARY.md', summary([...order, ...Array.from({ length: 100 }, (_, i) => PAGES + i)]));
    for (let i = 0; i < 500; i++) await checkout.write(`part/p${i}.md`, `# Page ${i}\n\nText ${i}, edited.\n`);
    for (let i = 1000; i < 1100; i++) await checkout.remove(`part/p${i}.md`);
    for (let i = PAGES; i < PAGES + 100; i++) await checkout.write(`part/p${i}.md`, `# Page ${i}\n\nNew.\n`);
    await checkout.write('big.md', `# Big\n\n${paragraphs((i) => i % 2 === 1)}\n`);
    await checkout.write('huge.md', `# Huge\n\n${huge('the edited middle')}\n`);
    await checkout.commit('many changes');
    await checkout.push(`HEAD:refs/heads/change-requests/${cr.number}`);
    await checkout.dispose();

    const get = (url: string, query?: Record<string, number>) => t.request('GET', url, { token, query });
    const crUrl = `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
    const listed = (await get(`${crUrl}/content/pages`)).body.pages;
    const [bigId, hugeId] = ['Big', 'Huge'].map((title) => listed.find((page: any) => page.title === title).id);
    const head = (await get(crUrl)).body.revision;
    const urls = {
      changes: `${crUrl}/changes?limit=1000`,
      revision: `/v1/spaces/${spaceId}/revisions/${head}/changes?limit=1000`,
      diff: `${crUrl}/changes/pages/${bigId}`,
      hugeDiff: `${crUrl}/changes/pages/${hugeId}`,
      bigLines: `${crUrl}/changes/pages/${bigId}?format=markdown`,
    };
    // Over real HTTP, the answers kept as text: what is measured is the server's work, not the test's checks of it.
    const { result: texts, report } = await localEventLoop.measure(async () => {
      const texts: Record<string, string> = {};
      for (const [name, url] of Object.entries(urls)) {
        const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status, url).toBe(200);
        texts[name] = await res.text();
      }
      return texts;
    });
    const result = Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, JSON.parse(text)])) as Record<keyof typeof urls, any>;
    assertMatchesReference('GET', urls.changes, 200, result.changes);
    assertMatchesReference('GET', urls.revision, 200, result.revision);
    const count = (type: string) => result.changes.changes.filter((change: any) => change.type === type).length;
    // 500 edited pages and the big one; 100 moved (the only ones out of their old order); 100 of each of the others.
    expect([count('page_edited'), count('page_moved'), count('page_created'), count('page_deleted')]).toEqual([502, 100, 100, 100]);
    expect(result.changes.more).toBe(0);
    expect(result.revision).toEqual(result.changes);
    const kinds = result.diff.blocks.map((block: any) => block.change);
    expect(kinds).toHaveLength(PARAGRAPHS);
    // The odd paragraphs were edited; of the even ones, the 50 linking to the deleted pages (1000-1099) now show a
    // broken link: rendered differently, changed too.
    const changed = (i: number) => i % 2 === 1 || (i >= 1000 && i < 1100);
    expect(kinds).toEqual(Array.from({ length: PARAGRAPHS }, (_, i) => (changed(i) ? 'changed' : 'unchanged')));
    expect(result.diff.blocks[1000].after).toContain('class="broken-link"');
    expect(result.diff.blocks[1].after).toMatch(/^<p>Paragraph 1, edited of a <a href="http:\/\/quire\.test\/app\/s\/[^"]+\/part\/p1">link<\/a>\.<\/p>$/);
    // The huge page: the blocks around its one change are the same, found in linear time.
    const hugeKinds = result.hugeDiff.blocks.map((block: any) => block.change);
    expect(hugeKinds).toHaveLength(10_000);
    expect(hugeKinds.filter((change: string) => change !== 'unchanged')).toEqual(['changed']);
    expect(result.hugeDiff.blocks[5000]).toEqual({ change: 'changed', before: '<p>In the middle.</p>', after: '<p>In the edited middle.</p>' });
    // The big page's markdown line by line: what differs spans 3,997 lines (paragraphs 1 to 1,999 and the blank lines
    // between), past the bound on the lines aligned: one hunk, all of it removed, then all of it added.
    expect(result.bigLines.blocks).toEqual([]);
    expect(result.bigLines.hunks).toHaveLength(1);
    const bigLines = result.bigLines.hunks[0].lines.map((line: any) => line.change);
    expect(bigLines.filter((change: string) => change === 'removed')).toHaveLength(3997);
    expect(bigLines.indexOf('added')).toBe(bigLines.lastIndexOf('removed') + 1);
    assertMatchesReference('GET', urls.bigLines, 200, result.bigLines);
    process.stdout.write(`semantic changes of 2,000 pages: event loop held p99 ${report.held.p99Ms.toFixed(0)} ms, at most ${report.held.maxMs.toFixed(0)} ms\n`);
    expectEventLoopFree(report, 'semantic changes of 2,000 pages');
  });
});
