import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';

const SUMMARY = `# Table of contents

* [Welcome](README.md)
* [Getting started](getting-started/README.md)
  * [Install](getting-started/install.md "Install the CLI")
* [Status page](https://status.example.com)

## Reference

* [API reference](api-reference.md)
`;

const INSTALL = `---
description: Install the CLI and authenticate.
icon: rocket
emoji: "🚀"
cover: ../.gitbook/assets/hero.png
coverY: -40
hidden: true
noIndex: true
vars:
  cli_version: 3.2.1
layout:
  cover:
    visible: true
    size: full
  title:
    visible: true
  description:
    visible: false
  tableOfContents:
    visible: true
  outline:
    visible: false
  pagination:
    visible: true
custom: kept
---

# Install

Run version {{ page.vars.cli_version }} of {{ space.vars.product }}.
`;

// The end-to-end path of the content issue: a real git client clones a space over HTTP, pushes pages, and the
// API shows them.
describe.each(DATABASE_KINDS)('content pushed with git over HTTP, read through the API (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let checkout: Checkout;
  let head: string;

  const push = (message: string) => checkout.commitAndPush(message);
  const get = (url: string, options: Parameters<TestApp['request']>[2] = {}) => t.request('GET', url, { token: org.admin.token, ...options });
  const byTitle = (pages: any[], title: string): any => pages.find((p) => p.title === title);

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Handbook' } })).body.id;
    const base = await t.listen();
    checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('reads the first commit of a new space: one README page titled like the space', async () => {
    const res = await get(`/v1/spaces/${spaceId}/content`);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('revision');
    const space = (await get(`/v1/spaces/${spaceId}`)).body;
    expect(res.body.id).toBe(space.revision);
    expect(res.body.pages).toHaveLength(1);
    expect(res.body.pages[0]).toMatchObject({ title: 'Handbook', type: 'document', kind: 'sheet', markdown: '' });
  });

  it('shows a pushed structure: nesting, groups, link pages, front matter, files and variables', async () => {
    await checkout.write('README.md', '---\ndescription: Start here\n---\n# Welcome\n\nHello from {{ space.vars.product }}.\n');
    await checkout.write('SUMMARY.md', SUMMARY);
    await checkout.write('getting-started/README.md', '# Getting started\n\nIntro.\n');
    await checkout.write('getting-started/install.md', INSTALL);
    await checkout.write('api-reference.md', '# API reference\n\nEndpoints.\n');
    await checkout.write('.gitbook/assets/hero.png', tinyPng(3, 2));
    await checkout.write('.gitbook/vars.yaml', 'product: Quire\n');
    head = await push('structure');

    const res = await get(`/v1/spaces/${spaceId}/content`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(head);
    expect(res.body.git).toMatchObject({ oid: head, message: 'structure', createdByGitBook: false });
    expect(res.body.variables).toEqual({ product: 'Quire' });
    const titles = res.body.pages.map((p: any) => [p.type, p.title]);
    expect(titles).toEqual([
      ['document', 'Welcome'],
      ['document', 'Getting started'],
      ['link', 'Status page'],
      ['group', 'Reference'],
    ]);
    const started = byTitle(res.body.pages, 'Getting started');
    expect(started.path).toBe('getting-started');
    expect(started.pages.map((p: any) => p.title)).toEqual(['Install']);
    const install = started.pages[0];
    expect(install).toMatchObject({
      slug: 'install',
      path: 'getting-started/install',
      description: 'Install the CLI and authenticate.',
      icon: 'rocket',
      emoji: '🚀',
      hidden: true,
      noIndex: true,
      variables: { cli_version: '3.2.1' },
      layout: { cover: true, coverSize: 'full', title: true, description: false, tableOfContents: true, outline: false, pagination: true },
      git: { path: 'getting-started/install.md' },
    });
    expect(install.markdown).toBe('Run version {{ page.vars.cli_version }} of {{ space.vars.product }}.\n');
    const file = res.body.files.find((f: any) => f.name === 'hero.png');
    expect(file).toMatchObject({ contentType: 'image/png', size: tinyPng(3, 2).length, dimensions: { width: 3, height: 2 } });
    expect(install.cover).toEqual({ ref: { kind: 'file', file: file.id }, yPos: -40 });
    const link = byTitle(res.body.pages, 'Status page');
    expect(link).toMatchObject({ kind: 'link', target: { kind: 'url', url: 'https://status.example.com' } });
    const group = byTitle(res.body.pages, 'Reference');
    expect(group.pages.map((p: any) => p.title)).toEqual(['API reference']);
  });

  it('reads one page by id and by path, in markdown or document form, evaluated or not, with or without git metadata', async () => {
    const pages = (await get(`/v1/spaces/${spaceId}/content/pages`)).body.pages;
    const install = byTitle(pages, 'Getting started').pages[0];
    const one = await get(`/v1/spaces/${spaceId}/content/page/${install.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(install);
    const evaluated = await get(`/v1/spaces/${spaceId}/content/page/${install.id}`, { query: { evaluated: true } });
    expect(evaluated.body.markdown).toBe('Run version 3.2.1 of Quire.\n');
    const bare = await get(`/v1/spaces/${spaceId}/content/page/${install.id}`, { query: { metadata: false } });
    expect(bare.body.git).toBeUndefined();
    const doc = await get(`/v1/spaces/${spaceId}/content/page/${install.id}`, { query: { format: 'document' } });
    expect(doc.body.markdown).toBeUndefined();
    expect(doc.body.document.object).toBe('document');
    const byPath = await get(`/v1/spaces/${spaceId}/content/path/getting-started/install`);
    expect(byPath.body.id).toBe(install.id);
    const revision = await get(`/v1/spaces/${spaceId}/content`, { query: { metadata: false } });
    expect(revision.body.git).toBeUndefined();
  });

  it('lists files with paging, reads one, and serves its bytes with the right type and nosniff', async () => {
    const list = await get(`/v1/spaces/${spaceId}/content/files`, { query: { limit: 1 } });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    const file = list.body.items[0];
    expect((await get(`/v1/spaces/${spaceId}/content/files/${file.id}`)).body).toEqual(file);
    const download = await t.app.inject({ method: 'GET', url: new URL(file.downloadURL).pathname, headers: { authorization: `Bearer ${org.admin.token}` } });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['x-content-type-options']).toBe('nosniff');
    expect(download.rawPayload.equals(tinyPng(3, 2))).toBe(true);
    const stranger = await t.user();
    const refused = await t.app.inject({ method: 'GET', url: new URL(file.downloadURL).pathname, headers: { authorization: `Bearer ${stranger.token}` } });
    expect(refused.statusCode).toBe(404);
  });

  it('keeps page and file ids when they are renamed and moved, and shows the new paths', async () => {
    const before = (await get(`/v1/spaces/${spaceId}/content`)).body;
    const install = byTitle(before.pages, 'Getting started').pages[0];
    const api = byTitle(before.pages, 'Reference').pages[0];
    const hero = before.files.find((f: any) => f.name === 'hero.png');
    await checkout.write('setup/installation.md', await checkout.read('getting-started/install.md'));
    await checkout.remove('getting-started/install.md');
    await checkout.write('reference/api.md', (await checkout.read('api-reference.md')) + '\nMore endpoints.\n');
    await checkout.remove('api-reference.md');
    await checkout.write('.gitbook/assets/banner.png', tinyPng(3, 2));
    await checkout.remove('.gitbook/assets/hero.png');
    const summary = SUMMARY.replace('getting-started/install.md', 'setup/installation.md').replace('api-reference.md', 'reference/api.md');
    await checkout.write('SUMMARY.md', summary);
    await checkout.write('setup/installation.md', (await checkout.read('setup/installation.md')).replace('../.gitbook/assets/hero.png', '../.gitbook/assets/banner.png'));
    await push('move things');
    const after = (await get(`/v1/spaces/${spaceId}/content`)).body;
    const moved = byTitle(after.pages, 'Getting started').pages[0];
    expect(moved.id).toBe(install.id);
    expect(moved.path).toBe('setup/installation');
    const movedApi = byTitle(after.pages, 'Reference').pages[0];
    expect(movedApi.id).toBe(api.id);
    expect(movedApi.path).toBe('reference/api');
    expect(after.files.find((f: any) => f.name === 'banner.png').id).toBe(hero.id);
  });

  it('refuses what the caller may not see and bad parameters', async () => {
    const page = (await get(`/v1/spaces/${spaceId}/content/pages`)).body.pages[0];
    const stranger = await t.user();
    for (const url of [`/v1/spaces/${spaceId}/content`, `/v1/spaces/${spaceId}/content/pages`, `/v1/spaces/${spaceId}/content/page/${page.id}`, `/v1/spaces/${spaceId}/content/files`]) {
      expect((await t.request('GET', url, { token: stranger.token })).status, url).toBe(404);
      expect((await t.request('GET', url)).status, url).toBe(401);
    }
    const guest = await t.member(org.id, null);
    expect((await t.request('GET', `/v1/spaces/${spaceId}/content`, { token: guest.token })).status).toBe(404);
    const reader = await t.member(org.id, 'read');
    expect((await t.request('GET', `/v1/spaces/${spaceId}/content`, { token: reader.token })).status).toBe(200);
    expect((await get(`/v1/spaces/${spaceId}/content/page/nope`)).status).toBe(404);
    expect((await get(`/v1/spaces/${spaceId}/content/files/nope`)).status).toBe(404);
    expect((await get(`/v1/spaces/${spaceId}/content/path/no/such/page`)).status).toBe(404);
    const badFormat = await get(`/v1/spaces/${spaceId}/content/page/${page.id}`, { query: { format: 'html' } });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.message).toMatch(/^format: must be one of/);
    const badBool = await get(`/v1/spaces/${spaceId}/content`, { query: { metadata: 'maybe' } });
    expect(badBool.status).toBe(400);
    expect(badBool.body.error.message).toMatch(/^metadata: /);
    expect((await get(`/v1/spaces/${spaceId}/content/files`, { query: { limit: 5000 } })).status).toBe(400);
  });
});
