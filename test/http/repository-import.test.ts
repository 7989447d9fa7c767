import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { QUEUE_DRIVERS } from '../helpers/queues.js';
import { runRepositoryImport } from '../../src/domain/imports/repositories.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { tinyPng } from '../helpers/content.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { closedPort, startFileServer, type FileServer } from '../helpers/file-server.js';

const exec = promisify(execFile);

const DOCS_YAML = `$schema: https://api.gitbook.com/openapi.yaml#/components/schemas/GitSyncSiteConfig
site:
  title: Acme Docs
  structure:
    - type: section-group
      key: product
      title: Product
      icon: box
      children:
        - type: section
          key: documentation
          title: Documentation
          path: documentation
          icon: book
          description: Guides for every day
          default: true
          children:
            - type: space
              key: docs-en
              title: English
              path: en
              default: true
              content:
                directory: ./docs/en
                language: en
            - type: space
              key: docs-fr
              title: Français
              path: fr
              content:
                directory: docs/fr
                language: fr
    - type: section
      key: api
      title: API reference
      path: api
      icon: code
      children:
        - type: space
          key: api
          title: API
          content:
            directory: /api
`;

/** What each project directory's pages are, as SUMMARY.md titles them. */
const EXPECTED: Record<string, { directory: string; titles: string[]; asset: string }> = {
  'docs-en': { directory: 'docs/en/', titles: ['Welcome', 'Install the tool', 'Configure it'], asset: '.gitbook/assets/logo.png' },
  'docs-fr': { directory: 'docs/fr/', titles: ['Bienvenue', 'Installer'], asset: '.gitbook/assets/logo-fr.png' },
  api: { directory: 'api/', titles: ['API overview', 'Endpoints'], asset: '.gitbook/assets/diagram.png' },
};

/**
 * The monorepo: three project directories (docs/en, docs/fr, api) with SUMMARY.md, README.md and assets; api has
 * its own .gitbook.yaml whose root is `./content/`; a docs.yaml at the root; code beside the docs; a history of
 * four commits, one of them a merge commit. Returns the bare repository's path and its commits.
 */
async function buildMonorepo(base: string): Promise<{ bare: string; head: string; commits: string[]; merges: string[] }> {
  const env = await isolatedGitEnv();
  const work = path.join(base, 'work');
  const git = (...args: string[]) => exec('git', args, { cwd: work, env }).then((r) => r.stdout.trim());
  const write = async (file: string, content: string | Buffer) => {
    await fs.mkdir(path.dirname(path.join(work, file)), { recursive: true });
    await fs.writeFile(path.join(work, file), content);
  };
  await fs.mkdir(work, { recursive: true });
  await git('init', '--quiet', '--initial-branch=main');
  await write('package.json', '{"name":"acme"}\n');
  await write('src/index.js', 'console.log("acme");\n');
  await write('docs.yaml', DOCS_YAML);
  await write('docs/en/README.md', 'Hello, this page has no title of its own: SUMMARY.md gives it.\n');
  await write('docs/en/SUMMARY.md', '# Table of contents\n\n* [Welcome](README.md)\n* [Install the tool](install.md)\n');
  await write('docs/en/install.md', 'Run the installer.\n\n![logo](.gitbook/assets/logo.png)\n');
  await write('docs/en/.gitbook/assets/logo.png', tinyPng(4, 4));
  await write('docs/fr/README.md', 'Bonjour.\n');
  await write('docs/fr/SUMMARY.md', '# Sommaire\n\n* [Bienvenue](README.md)\n* [Installer](installer.md)\n');
  await write('docs/fr/installer.md', 'Lancez le programme.\n');
  await write('docs/fr/.gitbook/assets/logo-fr.png', tinyPng(5, 3));
  await write('api/.gitbook.yaml', 'root: ./content/\n');
  await write('api/content/README.md', 'The API.\n');
  await write('api/content/SUMMARY.md', '# Summary\n\n## Reference\n\n* [API overview](README.md)\n* [Endpoints](endpoints.md)\n');
  await write('api/content/endpoints.md', 'GET /things\n');
  await write('api/content/.gitbook/assets/diagram.png', tinyPng(2, 2));
  await git('add', '--all');
  await git('commit', '--quiet', '-m', 'Docs and code');
  // A pull request merged with a merge commit: its branch and main each moved on from the first commit.
  await git('checkout', '--quiet', '-b', 'configure');
  await write('docs/en/configure.md', 'Set it up.\n');
  await write('docs/en/SUMMARY.md', '# Table of contents\n\n* [Welcome](README.md)\n* [Install the tool](install.md)\n* [Configure it](configure.md)\n');
  await git('add', '--all');
  await git('commit', '--quiet', '-m', 'Configure page');
  await git('checkout', '--quiet', 'main');
  await write('src/index.js', 'console.log("acme 2");\n');
  await git('add', '--all');
  await git('commit', '--quiet', '-m', 'Code change');
  await git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request #1 from acme/configure', 'configure');
  const bare = path.join(base, 'acme-docs.git');
  await exec('git', ['clone', '--quiet', '--bare', work, bare], { env });
  const head = await git('rev-parse', 'HEAD');
  const commits = (await git('rev-list', '--all')).split('\n').sort();
  const merges = (await git('rev-list', '--merges', 'HEAD')).split('\n').filter((line) => line.length > 0);
  return { bare, head, commits, merges };
}

async function bundleOf(bare: string): Promise<Buffer> {
  const file = path.join(path.dirname(bare), 'repo.bundle');
  await exec('git', ['bundle', 'create', '--quiet', file, '--all'], { cwd: bare, env: await isolatedGitEnv() });
  return fs.readFile(file);
}

/** A zip of a checkout with its .git folder (files read back from the disk, as a person would zip them). */
async function zipOfCheckout(bare: string): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-zipped-'));
  await exec('git', ['clone', '--quiet', bare, path.join(dir, 'acme')], { env: await isolatedGitEnv() });
  const files: Record<string, Uint8Array> = {};
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = await fs.readFile(full);
  }
  await fs.rm(dir, { recursive: true, force: true });
  return Buffer.from(zipSync(files));
}

function titlesOf(pages: any[]): string[] {
  return pages.flatMap((page) => [...(page.type === 'group' ? [] : [page.title]), ...titlesOf(page.pages ?? [])]);
}

describe.each(DATABASE_KINDS)('repository import: monorepos (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let repo: Awaited<ReturnType<typeof buildMonorepo>>;
  let server: GitHttpServer;
  let files: FileServer;
  let api: string;

  beforeAll(async () => {
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'] });
    org = await t.organization();
    api = await t.listen();
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-monorepo-'));
    repo = await buildMonorepo(base);
    server = await startGitHttpServer(base);
    files = await startFileServer({ '/extra.md': { body: '# Extra page\n\nImported.\n', contentType: 'text/markdown' } });
  });
  afterAll(async () => {
    await server?.close();
    await files?.close();
    await t?.close();
    if (base) await fs.rm(base, { recursive: true, force: true });
  });

  async function spaceCount(): Promise<number> {
    const res = await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, query: { limit: 1000 } });
    return res.body.items.length;
  }

  /** The checks every import must pass: three spaces with their own pages, same commits, the site. */
  async function expectImported(body: any): Promise<void> {
    expect(repo.merges).toHaveLength(1);
    expect(body.revision).toBe(repo.head);
    expect(body.projects.map((p: any) => [p.key, p.projectDirectory, p.language ?? null])).toEqual([
      ['docs-en', 'docs/en/', 'en'],
      ['docs-fr', 'docs/fr/', 'fr'],
      ['api', 'api/', null],
    ]);
    for (const project of body.projects) {
      const expected = EXPECTED[project.key];
      expect(project.space.revision).toBe(repo.head);
      const pages = await t.request('GET', `/v1/spaces/${project.space.id}/content/pages`, { token: org.admin.token });
      expect(pages.status).toBe(200);
      expect(titlesOf(pages.body.pages)).toEqual(expected.titles);
      const listed = await t.request('GET', `/v1/spaces/${project.space.id}/content/files`, { token: org.admin.token, query: { metadata: true } });
      expect(listed.body.items.map((f: any) => f.name)).toEqual([path.basename(expected.asset)]);

      // Each space clones back with the source's commits, unchanged.
      const checkout = await Checkout.clone(spaceRemote(api, org.admin.token, project.space.id));
      expect((await checkout.git('rev-parse', 'HEAD')).trim()).toBe(repo.head);
      expect((await checkout.git('rev-list', '--all')).trim().split('\n').sort()).toEqual(repo.commits);
    }

    // The site of docs.yaml: a group holding the Documentation section (two language variants), the API section.
    expect(body.site.title).toBe('Acme Docs');
    const siteId = body.site.id;
    const sections = await t.request('GET', `/v1/orgs/${org.id}/sites/${siteId}/sections`, { token: org.admin.token });
    expect(sections.body.items.map((s: any) => [s.title, s.path, s.icon ?? null, s.default])).toEqual([
      ['Documentation', 'documentation', 'book', true],
      ['API reference', 'api', 'code', false],
    ]);
    expect(sections.body.items[0].description).toBe('Guides for every day');
    const groups = await t.request('GET', `/v1/orgs/${org.id}/sites/${siteId}/section-groups`, { token: org.admin.token });
    expect(groups.body.items.map((g: any) => [g.title, g.icon, g.sections.length])).toEqual([['Product', 'box', 1]]);
    const siteSpaces = await t.request('GET', `/v1/orgs/${org.id}/sites/${siteId}/site-spaces`, { token: org.admin.token });
    const spaceOf = new Map(body.projects.map((p: any) => [p.space.id, p.key]));
    expect(siteSpaces.body.items.map((s: any) => [spaceOf.get(s.space.id), s.path, s.default])).toEqual([
      ['docs-en', 'en', true],
      ['docs-fr', 'fr', false],
      ['api', 'api', true],
    ]);
  }

  it('imports an uploaded bundle: three spaces with their own pages and the commits of the source, and the site of docs.yaml', async () => {
    const res = await t.request('POST', `/v1/orgs/${org.id}/git/import/upload`, {
      token: org.admin.token,
      rawBody: await bundleOf(repo.bare),
      headers: { 'content-type': 'application/x-git-bundle' },
      unchecked: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await expectImported(res.body);
  });

  it('imports from a git URL served over smart HTTP, through the fetch guard, and from a zip of a checkout', async () => {
    const before = server.requests.length;
    const res = await t.request('POST', `/v1/orgs/${org.id}/git/import`, {
      token: org.admin.token,
      body: { url: `${server.url}/acme-docs.git` },
      unchecked: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(server.requests.slice(before).some((r) => r.endsWith('/git-upload-pack'))).toBe(true);
    await expectImported(res.body);

    const zipped = await t.request('POST', `/v1/orgs/${org.id}/git/import/upload`, {
      token: org.admin.token,
      rawBody: await zipOfCheckout(repo.bare),
      headers: { 'content-type': 'application/zip' },
      unchecked: true,
    });
    expect(zipped.status, JSON.stringify(zipped.body)).toBe(201);
    await expectImported(zipped.body);
  });

  it('keeps a push touching another project folder without showing it, and checks only its own folder', async () => {
    const res = await t.request('POST', `/v1/orgs/${org.id}/git/import/upload`, {
      token: org.admin.token,
      rawBody: await bundleOf(repo.bare),
      headers: { 'content-type': 'application/x-git-bundle' },
      unchecked: true,
    });
    const fr = res.body.projects.find((p: any) => p.key === 'docs-fr').space.id;
    const checkout = await Checkout.clone(spaceRemote(api, org.admin.token, fr));
    // Another project's folder, with front matter that would not parse in a space whose content it is.
    await checkout.write('docs/en/broken.md', '---\ntitle: [unclosed\n---\n# Broken\n');
    await checkout.write('api/content/new.md', '# New endpoint\n');
    const pushed = await checkout.commit('Touch other projects');
    await checkout.push();
    const space = await t.request('GET', `/v1/spaces/${fr}`, { token: org.admin.token });
    expect(space.body.revision).toBe(pushed);
    const pages = await t.request('GET', `/v1/spaces/${fr}/content/pages`, { token: org.admin.token });
    expect(titlesOf(pages.body.pages)).toEqual(['Bienvenue', 'Installer']);
    const clone = await Checkout.clone(spaceRemote(api, org.admin.token, fr));
    expect(await clone.read('api/content/new.md')).toBe('# New endpoint\n');

    // The same broken file in its own folder is refused, naming the full path.
    await checkout.write('docs/fr/broken.md', '---\ntitle: [unclosed\n---\n# Broken\n');
    await checkout.write('docs/fr/SUMMARY.md', '# Sommaire\n\n* [Bienvenue](README.md)\n* [Installer](installer.md)\n* [Broken](broken.md)\n');
    await checkout.commit('Break my own folder');
    await expect(checkout.push()).rejects.toThrow(/docs\/fr\/broken\.md/);

    // Quire's own writes (an import of content) go under the project directory.
    const imported = await t.request('POST', `/v1/spaces/${fr}/content/import`, {
      token: org.admin.token,
      body: { url: `${files.base}/extra.md`, source: 'markdown' },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const after = await t.request('GET', `/v1/spaces/${fr}/content/pages`, { token: org.admin.token });
    expect(titlesOf(after.body.pages)).toEqual(['Bienvenue', 'Installer', 'Extra page']);
    const written = await Checkout.clone(spaceRemote(api, org.admin.token, fr));
    const changed = (await written.git('diff', '--name-only', `${pushed}`, 'HEAD')).trim().split('\n');
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((file) => file.startsWith('docs/fr/'))).toBe(true);
  });

  it('imports into one space with the reference operation and repoProjectDirectory', async () => {
    const created = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'API only' } });
    const spaceId = created.body.id;
    const res = await t.request('POST', `/v1/spaces/${spaceId}/git/import`, {
      token: org.admin.token,
      body: { url: `${server.url}/acme-docs.git`, ref: 'refs/heads/main', repoProjectDirectory: './api' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const space = await t.request('GET', `/v1/spaces/${spaceId}`, { token: org.admin.token });
    expect(space.body.revision).toBe(repo.head);
    const pages = await t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.admin.token });
    expect(titlesOf(pages.body.pages)).toEqual(EXPECTED.api.titles);
    // Main now has the repository's commits: importing a repository that does not contain them needs force.
    const other = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Edited' } });
    const checkout = await Checkout.clone(spaceRemote(api, org.admin.token, other.body.id));
    await checkout.write('README.md', '# Edited by someone\n');
    await checkout.commitAndPush('Edit');
    const refused = await t.request('POST', `/v1/spaces/${other.body.id}/git/import`, {
      token: org.admin.token,
      body: { url: `${server.url}/acme-docs.git`, ref: 'refs/heads/main' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/^ref: .*force/);
  });

  it('refuses bad input with a 4xx naming the field, creating nothing', async () => {
    const count = await spaceCount();
    const bad = [
      [{ url: `http://127.0.0.1:${await closedPort()}/repo.git` }, /^url: /],
      [{ url: `${server.url}/missing.git` }, /^url: the repository at url cannot be imported/],
      [{ url: 'http://10.255.255.1/repo.git' }, /^url: .*private, loopback or link-local/],
      [{ url: 'file:///etc/repo.git' }, /^url: must be an http or https URL/],
      [{ url: `${server.url}/acme-docs.git`, ref: '--upload-pack=evil' }, /^ref: /],
    ] as const;
    for (const [body, message] of bad) {
      const res = await t.request('POST', `/v1/orgs/${org.id}/git/import`, { token: org.admin.token, body, unchecked: true });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    const notGit = await t.request('POST', `/v1/orgs/${org.id}/git/import/upload`, {
      token: org.admin.token,
      rawBody: Buffer.from('just some bytes'),
      headers: { 'content-type': 'application/octet-stream' },
      unchecked: true,
    });
    expect(notGit.status).toBe(400);
    expect(notGit.body.error.message).toMatch(/^body: /);
    const zipWithoutGit = await t.request('POST', `/v1/orgs/${org.id}/git/import/upload`, {
      token: org.admin.token,
      rawBody: Buffer.from(zipSync({ 'README.md': Buffer.from('# Hi\n') })),
      headers: { 'content-type': 'application/zip' },
      unchecked: true,
    });
    expect(zipWithoutGit.status).toBe(400);
    expect(zipWithoutGit.body.error.message).toMatch(/^body: .*no git repository/);

    // A docs.yaml that does not follow the format: 400 naming the file and the field.
    const env = await isolatedGitEnv();
    const work = path.join(base, 'bad-work');
    await exec('git', ['clone', '--quiet', repo.bare, work], { env });
    await fs.writeFile(path.join(work, 'docs.yaml'), DOCS_YAML.replace('directory: /api', 'directory: ../outside'));
    await exec('git', ['commit', '--quiet', '-am', 'Bad docs.yaml'], { cwd: work, env });
    await exec('git', ['clone', '--quiet', '--bare', work, path.join(base, 'bad.git')], { env });
    const badYaml = await t.request('POST', `/v1/orgs/${org.id}/git/import`, { token: org.admin.token, body: { url: `${server.url}/bad.git` }, unchecked: true });
    expect(badYaml.status).toBe(400);
    expect(badYaml.body.error.message).toMatch(/^url: docs\.yaml: site\.structure\[1\]\.children\[0\]\.content\.directory: /);
    expect(await spaceCount()).toBe(count);
    const sites = await t.request('GET', `/v1/orgs/${org.id}/sites`, { token: org.admin.token });
    expect(sites.status).toBe(200);
  });

  it('needs the right to create content in the organization', async () => {
    const reader = await t.member(org.id, 'read');
    const res = await t.request('POST', `/v1/orgs/${org.id}/git/import`, { token: reader.token, body: { url: `${server.url}/acme-docs.git` }, unchecked: true });
    expect(res.status).toBe(403);
  });
});

describe.each(QUEUE_DRIVERS)('the import-repository job under the %s driver (sqlite)', (queue) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let server: GitHttpServer;
  let repo: Awaited<ReturnType<typeof buildMonorepo>>;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { fetchAllow: ['127.0.0.1'] }, { queue });
    org = await t.organization();
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-monorepo-jobs-'));
    repo = await buildMonorepo(base);
    server = await startGitHttpServer(base);
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
    if (base) await fs.rm(base, { recursive: true, force: true });
  });

  it('imports through the job; running the job again for a done row creates nothing more, and the staging repository is gone', async () => {
    expect(t.container.ctx.jobs.driver).toBe(queue);
    const res = await t.request('POST', `/v1/orgs/${org.id}/git/import`, { token: org.admin.token, body: { url: `${server.url}/acme-docs.git` }, unchecked: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.projects).toHaveLength(3);
    const row = await t.container.ctx.db.selectFrom('repository_imports').selectAll().where('organization_id', '=', org.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('done');
    expect(await t.container.ctx.git.exists(row.id)).toBe(false);
    await runRepositoryImport(t.container.ctx, row.id);
    const spaces = await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token });
    expect(spaces.body.items).toHaveLength(3);
    expect(spaces.body.items.every((s: any) => s.revision === repo.head)).toBe(true);
  });
});
