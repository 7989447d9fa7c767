/**
 * A repository in the forms the hosted platform's Git Sync writes, built here (none copied from a real one), pushed
 * with a real git client through the real server and read back through the API, on both databases: what the
 * hosted platform tolerates is accepted (the push prints warnings), pages show SUMMARY.md's titles, a file listed
 * twice is a link page, and no read answers 4xx or 5xx.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';

const exec = promisify(execFile);

const GITBOOK_YAML = 'root: ./\n\n\u200Bstructure:\n  readme: README.md\n  summary: SUMMARY.md\u200B\n\nredirects:\n  old/install: guides/install.md\n  old/start/: ./guides\n  status-page: https://status.example.com\n  gone: removed.md\n';

const SUMMARY = [
  '# Table of Contents', // 1
  '', // 2
  '## Get started <a href="#get-started" id="get-started"></a>', // 3
  '', // 4
  '* [Welcome](README.md)', // 5
  '  * [Guides](guides/README.md)', // 6
  '    * [Install the CLI](guides/install.md "Install")', // 7
  '    * [Install on Linux](guides/install.md#linux)', // 8
  '  * [MiniMax Music \\[legacy\\]](models/minimax-music-\\[legacy].md)', // 9
  '  * [Spaces in names](<guides/my page.md>)', // 10
  '* [Status](https://status.example.com)', // 11
  '* [Not there](missing.md)', // 12
  'A line that is not an item.', // 13
  '', // 14
  '## Reference', // 15
  '', // 16
  '* [快速开始](快速开始.md)', // 17
  '* ```yaml', // 18
  '  type: builtin:openapi', // 19
  '  props:', // 20
  '    models: true', // 21
  '  dependencies:', // 22
  '    spec:', // 23
  '      ref:', // 24
  '        kind: openapi', // 25
  '        spec: petstore', // 26
  '  ```', // 27
  '',
].join('\n');

describe.each(DATABASE_KINDS)('a Git Sync repository pushed as it is (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let checkout: Checkout;
  let head: string;
  let pushOutput: string;

  const get = (url: string) => t.request('GET', url, { token: org.admin.token });
  const flat = (pages: any[], out: any[] = []): any[] => {
    for (const page of pages) {
      out.push(page);
      flat(page.pages ?? [], out);
    }
    return out;
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Synced' } })).body.id;
    const base = await t.listen();
    checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
    await checkout.write('.gitbook.yaml', GITBOOK_YAML);
    await checkout.write('SUMMARY.md', SUMMARY);
    await checkout.write('README.md', '---\ncover: .gitbook/assets/missing-cover.png\nunknownKey: kept\n---\n\n# Welcome\n\nSee [install](guides/install.md#linux), ![shot](<.gitbook/assets/Screen Shot 2023.png>) and ![c](.gitbook/assets/C%23%20(1).png).\n');
    await checkout.write('guides/README.md', '# Guides\n\n[Dangling](nowhere.md)\n');
    await checkout.write('guides/install.md', '# Install the CLI\n\nRun it.\n');
    await checkout.write('guides/my page.md', '# An older title\n\nBody.\n');
    await checkout.write('models/minimax-music-[legacy].md', '# MiniMax Music [legacy]\n');
    await checkout.write('快速开始.md', '# 快速开始\n\n## 安装\n');
    await checkout.write('unlisted.md', '# Not in SUMMARY.md\n');
    await checkout.write('.gitbook/assets/Screen Shot 2023.png', tinyPng(2, 2));
    await checkout.write('.gitbook/assets/C# (1).png', tinyPng(3, 3));
    await checkout.write('.gitbook/assets/notes.md', '# Notes among the assets\n');
    await checkout.write('.gitbook/assets/image', 'no extension');
    head = await checkout.commit('Synced from the hosted platform');
    const pushed = await exec('git', ['push', 'origin', 'HEAD:refs/heads/main'], { cwd: checkout.dir, env: checkout.env });
    pushOutput = pushed.stderr;
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('accepts the push and prints what is worth knowing as warnings', async () => {
    expect((await get(`/v1/spaces/${spaceId}`)).body.revision).toBe(head);
    expect(pushOutput).toContain('remote: warning: SUMMARY.md:8: guides/install.md is already listed on line 7: shown as a link to that page');
    expect(pushOutput).toContain('remote: warning: SUMMARY.md:12: the listed file missing.md does not exist');
    expect(pushOutput).toContain('remote: warning: SUMMARY.md:13: not an item of the table of contents');
    expect(pushOutput).toContain('remote: warning: README.md:2: front matter `cover` names .gitbook/assets/missing-cover.png');
    expect(pushOutput).toContain('remote: warning: .gitbook.yaml:11: a redirect leads to no page of the table of contents: gone -> removed.md');
    expect(pushOutput).not.toContain('refused');
  });

  it('shows the pages the way the hosted platform does: SUMMARY.md titles, a link page for the second listing, a computed page', async () => {
    const res = await get(`/v1/spaces/${spaceId}/content`);
    expect(res.status).toBe(200);
    const pages = flat(res.body.pages);
    expect(pages.map((p) => [p.type, p.title])).toEqual([
      ['group', 'Get started'],
      ['document', 'Welcome'],
      ['document', 'Guides'],
      ['document', 'Install the CLI'],
      ['link', 'Install on Linux'],
      ['document', 'MiniMax Music [legacy]'],
      ['document', 'Spaces in names'],
      ['link', 'Status'],
      ['group', 'Reference'],
      ['document', '快速开始'],
      ['computed', 'petstore'],
    ]);
    const install = pages.find((p) => p.title === 'Install the CLI');
    expect(install.markdown).toBe('Run it.\n');
    expect(pages.find((p) => p.title === 'Install on Linux').target).toEqual({ kind: 'anchor', page: install.id, anchor: 'linux' });
    expect(pages.find((p) => p.title === 'Spaces in names').markdown).toBe('# An older title\n\nBody.\n');
    expect(pages.find((p) => p.type === 'computed').computed).toEqual({
      type: 'builtin:openapi',
      props: { models: true },
      dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore' } } },
    });
    const names = res.body.files.map((f: any) => f.name).sort();
    expect(names).toEqual(['C# (1).png', 'Screen Shot 2023.png', 'image', 'notes.md', 'unlisted.md']);
  });

  it('reads every page by id and by path, with valid URIs for every script', async () => {
    const pages = flat((await get(`/v1/spaces/${spaceId}/content`)).body.pages);
    for (const page of pages) {
      const byId = await get(`/v1/spaces/${spaceId}/content/page/${page.id}`);
      expect(byId.status, `${page.title}: ${JSON.stringify(byId.body)}`).toBe(200);
      if (page.type !== 'document') continue;
      const byPath = await get(`/v1/spaces/${spaceId}/content/path/${page.path.split('/').map(encodeURIComponent).join('/')}`);
      expect(byPath.status, page.path).toBe(200);
      expect(byPath.body.id).toBe(page.id);
      expect(page.urls.app).toMatch(/^[\x21-\x7e]+$/);
      expect(decodeURI(new URL(page.urls.app).pathname)).toBe(`/app/s/${spaceId}/${page.path}`);
    }
    expect(pages.find((p) => p.title === '快速开始').urls.app).toContain('/%E5%BF%AB%E9%80%9F%E5%BC%80%E5%A7%8B');
    const files = await get(`/v1/spaces/${spaceId}/content/files`);
    expect(files.status).toBe(200);
    for (const file of files.body.items) expect((await get(`/v1/spaces/${spaceId}/content/files/${file.id}`)).status).toBe(200);
    expect((await get(`/v1/spaces/${spaceId}/links`)).status).toBe(200);
  });

  it('follows .gitbook.yaml redirects on the page-by-path read', async () => {
    const pages = flat((await get(`/v1/spaces/${spaceId}/content`)).body.pages);
    const redirected = await get(`/v1/spaces/${spaceId}/content/path/old/install`);
    expect(redirected.status).toBe(200);
    expect(redirected.body).toMatchObject({ title: 'Install the CLI', path: 'guides/install' });
    expect((await get(`/v1/spaces/${spaceId}/content/path/old/start`)).body.id).toBe(pages.find((p) => p.title === 'Guides').id);
    const toUrl = await get(`/v1/spaces/${spaceId}/content/path/status-page`);
    expect(toUrl.status).toBe(404);
    expect(toUrl.body.error.message).toContain('https://status.example.com');
    expect((await get(`/v1/spaces/${spaceId}/content/path/gone`)).status).toBe(404);
  });

  it('reads a commit that holds real errors (pushed around the hook): 200 with what could be built', async () => {
    await checkout.write('guides/install.md', '---\ntitle: [unclosed\n---\n# Install the CLI\n\nRun it.\n');
    await checkout.write('.gitbook/vars.yaml', 'a: [b\n');
    const broken = await checkout.commit('Written by another tool');
    await exec('git', ['push', '--quiet', '--receive-pack=git -c core.hooksPath=/dev/null receive-pack', t.container.git.repositoryPath(spaceId), `${broken}:refs/heads/main`], {
      cwd: checkout.dir,
      env: checkout.env,
    });
    const res = await get(`/v1/spaces/${spaceId}/revisions/${broken}`);
    expect(res.status).toBe(200);
    const install = flat(res.body.pages).find((p) => p.title === 'Install the CLI');
    expect(install.markdown).toContain('Run it.');
    expect((await get(`/v1/spaces/${spaceId}/revisions/${broken}`)).status).toBe(200);
  });
});
