/**
 * `quire migrate` between two real Quire processes with their own data dirs: a populated organization of the source
 * (members, a team, nested collections, spaces with a history holding a merge, pages and files, an open change
 * request, comments with replies and reactions, a site with sections and a share link, an OpenAPI specification,
 * translation settings) is found whole in the target through its API, while the target serves. Running it again
 * copies nothing; a change at the source is all a third run copies. The source answers 500 for one space, which is
 * skipped with its reason. Without git at the source (blocked by the proxy), content comes through the API. Bad
 * sources fail with exit 1 and leave nothing behind.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { NO_GIT, startFaultyProxy, type FaultyProxy } from '../helpers/faulty-proxy.js';

const SPEC = JSON.stringify({ openapi: '3.0.3', info: { title: 'Pets', version: '1' }, paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } } } });
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3, 254, 255]);

type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

function apiOf(server: ServerProcess, token: string): Api {
  return async (method, url, body) => {
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

async function ok(api: Api, method: string, url: string, body?: unknown): Promise<any> {
  const answer = await api(method, url, body);
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Every page of a tree, depth first. */
function flatten(pages: any[]): any[] {
  return pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('quire migrate between two Quire servers (sqlite)', () => {
  const dirs: string[] = [];
  let sourceEnv: Record<string, string>;
  let targetEnv: Record<string, string>;
  let source: ServerProcess;
  let target: ServerProcess;
  let proxy: FaultyProxy;
  /** The source without git: its public URL, so that the file download URLs it hands out lead through it. */
  let noGit: FaultyProxy;
  let src: Api;
  let dst: Api;
  let sourceToken: string;
  let targetOrgs: () => Promise<string[]>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dirs.push(await fs.mkdtemp(path.join(os.tmpdir(), 'quire-migrate-')));
    const common = { DATABASE_URL: '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_CACHE_TTL_MS: '0' };
    noGit = await startFaultyProxy(
      () => source.url,
      (url) => NO_GIT(url) ?? (url.startsWith(`/v1/spaces/${ids.broken}`) ? 500 : undefined),
    );
    sourceEnv = { ...common, QUIRE_DATA_DIR: dirs[0], QUIRE_PUBLIC_URL: noGit.url };
    targetEnv = { ...common, QUIRE_DATA_DIR: dirs[1] };
    // The same person runs both: the migration acts as the user with the source token's e-mail.
    const sourceBoot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'alice@example.com', '--name', 'Alice', '--org', 'Acme'], sourceEnv);
    expect(sourceBoot.code, sourceBoot.stderr).toBe(0);
    const targetBoot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'alice@example.com', '--name', 'Alice', '--org', 'Ops'], targetEnv);
    expect(targetBoot.code, targetBoot.stderr).toBe(0);
    const acme = JSON.parse(sourceBoot.stdout).organization.id as string;
    ids.acme = acme;
    ids.ops = JSON.parse(targetBoot.stdout).organization.id;
    sourceToken = JSON.parse(sourceBoot.stdout).token;
    const bob = await runQuire(['admin', 'create-user', '--email', 'bob@example.com', '--name', 'Bob', '--org', acme, '--role', 'edit'], sourceEnv);
    expect(bob.code, bob.stderr).toBe(0);
    const bobToken = JSON.parse(bob.stdout).token as string;
    ids.bob = JSON.parse(bob.stdout).user.id;

    [source, target] = await Promise.all([startServer(sourceEnv), startServer(targetEnv)]);
    src = apiOf(source, sourceToken);
    dst = apiOf(target, JSON.parse(targetBoot.stdout).token);
    const bobApi = apiOf(source, bobToken);
    targetOrgs = async () => (await ok(dst, 'GET', '/v1/orgs')).items.map((o: { title: string }) => o.title).sort();

    await ok(src, 'PUT', `/v1/orgs/${acme}/teams`, { title: 'Writers', members: [ids.bob] });
    const guides = await ok(src, 'POST', `/v1/orgs/${acme}/collections`, { title: 'Guides' });
    await ok(src, 'PATCH', `/v1/collections/${guides.id}`, { description: 'How we work' });
    const internal = await ok(src, 'POST', `/v1/orgs/${acme}/collections`, { title: 'Internal', parent: guides.id });
    ids.internal = internal.id;
    const handbook = await ok(src, 'POST', `/v1/orgs/${acme}/spaces`, { title: 'Handbook', parent: internal.id });
    const apiSpace = await ok(src, 'POST', `/v1/orgs/${acme}/spaces`, { title: 'API' });
    const broken = await ok(src, 'POST', `/v1/orgs/${acme}/spaces`, { title: 'Broken' });
    Object.assign(ids, { handbook: handbook.id, api: apiSpace.id, broken: broken.id });
    await ok(src, 'PATCH', `/v1/spaces/${handbook.id}`, { emoji: '1f4d8' });

    // A history with a merge, nested pages, GitBook blocks and a binary file.
    const checkout = await Checkout.clone(spaceRemote(source.url, sourceToken, handbook.id));
    await checkout.write('README.md', '# Welcome\n\nStart here.\n');
    await checkout.write('guide/README.md', '---\ndescription: The guide\n---\n\n# Guide\n\n{% hint style="info" %}\nRead **this** first.\n{% endhint %}\n\n![Logo](../.gitbook/assets/logo.png)\n');
    await checkout.write('guide/install.md', '# Install\n\n```bash\nnpm install\n```\n');
    await checkout.write('.gitbook/assets/logo.png', LOGO);
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n');
    await checkout.commitAndPush('Pages');
    await checkout.git('checkout', '-q', '-b', 'side');
    await checkout.write('guide/install.md', '# Install\n\n```bash\nnpm install\n```\n\nThen run it.\n');
    await checkout.commit('Side change');
    await checkout.git('checkout', '-q', 'main');
    await checkout.write('README.md', '# Welcome\n\nStart here, and read the guide.\n');
    await checkout.commit('Main change');
    await checkout.git('merge', '-q', '--no-edit', 'side');
    await checkout.push('main');
    const cr = await ok(src, 'POST', `/v1/spaces/${handbook.id}/change-requests`, { subject: 'Explain upgrades' });
    await checkout.git('fetch', '-q', 'origin');
    await checkout.git('checkout', '-q', '-b', 'cr', `origin/change-requests/${cr.number}`);
    await checkout.write('guide/upgrade.md', '# Upgrade\n\nRun the new version.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n  * [Upgrade](guide/upgrade.md)\n');
    await checkout.commit('Upgrade page');
    await checkout.push(`HEAD:refs/heads/change-requests/${cr.number}`);
    await checkout.dispose();
    ids.cr = cr.id;

    const pages = flatten((await ok(src, 'GET', `/v1/spaces/${handbook.id}/content/pages`)).pages);
    const guide = pages.find((p) => p.title === 'Guide');
    const comment = await ok(src, 'POST', `/v1/spaces/${handbook.id}/comments`, { page: guide.id, body: { markdown: 'Is the **hint** right?' } });
    await ok(bobApi, 'POST', `/v1/spaces/${handbook.id}/comments/${comment.id}/replies`, { body: { markdown: 'Yes.' } });
    await ok(bobApi, 'PUT', `/v1/spaces/${handbook.id}/comments/${comment.id}`, { addedReactions: ['👍'] });
    const resolved = await ok(bobApi, 'POST', `/v1/spaces/${handbook.id}/comments`, { body: { markdown: 'Typo fixed' } });
    await ok(src, 'PUT', `/v1/spaces/${handbook.id}/comments/${resolved.id}`, { resolved: true });
    await ok(src, 'POST', `/v1/spaces/${handbook.id}/change-requests/${cr.id}/comments`, { body: { markdown: 'Ready for review' } });

    const site = await ok(src, 'POST', `/v1/orgs/${acme}/sites`, { title: 'Acme docs' });
    await ok(src, 'POST', `/v1/orgs/${acme}/sites/${site.id}/sections`, { spaceId: handbook.id, title: 'Handbook' });
    await ok(src, 'POST', `/v1/orgs/${acme}/sites/${site.id}/sections`, { spaceId: apiSpace.id, title: 'API reference' });
    await ok(src, 'POST', `/v1/orgs/${acme}/sites/${site.id}/share-links`, { name: 'Partners' });
    await ok(src, 'POST', `/v1/orgs/${acme}/openapi`, { slug: 'pets', source: { text: SPEC } });
    await ok(src, 'POST', `/v1/orgs/${acme}/translations`, { title: 'French' });

    proxy = await startFaultyProxy(() => source.url, (url) => (url.startsWith(`/v1/spaces/${broken.id}`) ? 500 : undefined));
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await noGit?.close();
    await Promise.all([source?.stop(), target?.stop()]);
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  });

  async function migrateFrom(from: string, extra: string[] = [], token = sourceToken) {
    return runQuire(['migrate', '--from', from, ...extra], { ...targetEnv, QUIRE_MIGRATE_TOKEN: token });
  }

  /** The organization here made from Acme. */
  async function acmeHere(): Promise<string> {
    const orgs = (await ok(dst, 'GET', '/v1/orgs')).items as Array<{ id: string; title: string }>;
    return orgs.find((o) => o.title === 'Acme')!.id;
  }

  /** A space here by title, in `org`. */
  async function spaceHere(org: string, title: string): Promise<any> {
    return (await ok(dst, 'GET', `/v1/orgs/${org}/spaces`)).items.find((s: { title: string }) => s.title === title);
  }

  /** Pages (id, title, path, markdown) and files (name, bytes) of a space through an API. */
  async function contentOf(api: Api, server: ServerProcess, token: string, spaceId: string) {
    const pages = flatten((await ok(api, 'GET', `/v1/spaces/${spaceId}/content/pages`)).pages).map((p) => ({ id: p.id, title: p.title, path: p.path, type: p.type, markdown: p.markdown, description: p.description }));
    const files = [];
    for (const file of (await ok(api, 'GET', `/v1/spaces/${spaceId}/content/files`)).items) {
      const bytes = Buffer.from(await (await fetch(file.downloadURL.replace(/^https?:\/\/[^/]+/, server.url), { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());
      files.push({ id: file.id, name: file.name, bytes: bytes.toString('base64') });
    }
    return { pages, files };
  }

  it('copies the whole organization while the target serves, and skips the space the source fails for', async () => {
    const run = await migrateFrom(proxy.url);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.skipped).toEqual([expect.objectContaining({ kind: 'space', id: ids.broken, reason: expect.stringContaining('500') })]);
    expect(report.copied).toMatchObject({ organizations: 1, members: 1, users: 1, teams: 1, collections: 2, spaces: 2, changeRequests: 1, comments: 3, replies: 1, sites: 1, shareLinks: 1, openapiSpecs: 1, translationSettings: 1 });

    expect(await targetOrgs()).toEqual(['Acme', 'Ops']);
    const acme = await acmeHere();
    const members = (await ok(dst, 'GET', `/v1/orgs/${acme}/members`)).items;
    expect(members.map((m: any) => [m.user.email, m.role]).sort()).toEqual([['alice@example.com', 'admin'], ['bob@example.com', 'edit']]);
    const teams = (await ok(dst, 'GET', `/v1/orgs/${acme}/teams`)).items;
    expect(teams.map((t: any) => [t.title, t.members])).toEqual([['Writers', 1]]);

    const collections = (await ok(dst, 'GET', `/v1/orgs/${acme}/collections`)).items;
    const guides = collections.find((c: any) => c.title === 'Guides');
    expect(guides.description).toBe('How we work');
    const internal = collections.find((c: any) => c.title === 'Internal');
    expect(internal.parent).toBe(guides.id);

    const spaces = (await ok(dst, 'GET', `/v1/orgs/${acme}/spaces`)).items;
    expect(spaces.map((s: any) => s.title).sort()).toEqual(['API', 'Handbook']);
    const handbook = spaces.find((s: any) => s.title === 'Handbook');
    expect(handbook.parent).toBe(internal.id);
    expect(handbook.emoji).toBe('1f4d8');
    const sourceHandbook = await ok(src, 'GET', `/v1/spaces/${ids.handbook}`);
    // Through git: the same commits, so the same revision (the history with its merge came along).
    expect(handbook.revision).toBe(sourceHandbook.revision);
    const targetBoot = JSON.parse((await runQuire(['admin', 'create-token', '--user', members.find((m: any) => m.user.email === 'alice@example.com').user.id], targetEnv)).stdout).token;
    expect(await contentOf(dst, target, targetBoot, handbook.id)).toEqual(await contentOf(src, source, sourceToken, ids.handbook));

    const crs = (await ok(dst, 'GET', `/v1/spaces/${handbook.id}/change-requests`)).items;
    const sourceCr = await ok(src, 'GET', `/v1/spaces/${ids.handbook}/change-requests/${ids.cr}`);
    expect(crs.map((c: any) => [c.number, c.subject, c.status, c.revision, c.createdBy.email])).toEqual([[sourceCr.number, 'Explain upgrades', 'open', sourceCr.revision, 'alice@example.com']]);
    const crPages = flatten((await ok(dst, 'GET', `/v1/spaces/${handbook.id}/change-requests/${crs[0].id}/content/pages`)).pages);
    expect(crPages.map((p) => p.title)).toContain('Upgrade');

    const comments = (await ok(dst, 'GET', `/v1/spaces/${handbook.id}/comments?format=markdown`)).items;
    const sourceComments = (await ok(src, 'GET', `/v1/spaces/${ids.handbook}/comments?format=markdown`)).items;
    const shape = (c: any) => ({ body: c.body, by: c.postedBy.email, postedAt: c.postedAt, status: c.status, replies: c.replies, page: c.target?.page?.id ?? null, reactions: (c.reactions ?? []).map((r: any) => [r.emoji, r.count]) });
    expect(comments.map(shape)).toEqual(sourceComments.map(shape));
    const hinted = comments.find((c: any) => c.body.markdown.includes('hint'));
    const replies = (await ok(dst, 'GET', `/v1/spaces/${handbook.id}/comments/${hinted.id}/replies?format=markdown`)).items;
    expect(replies.map((r: any) => [r.body.markdown, r.postedBy.email])).toEqual([['Yes.', 'bob@example.com']]);
    const crComments = (await ok(dst, 'GET', `/v1/spaces/${handbook.id}/change-requests/${crs[0].id}/comments?format=markdown`)).items;
    expect(crComments.map((c: any) => c.body.markdown)).toEqual(['Ready for review']);

    const sites = (await ok(dst, 'GET', `/v1/orgs/${acme}/sites`)).items;
    expect(sites.map((s: any) => s.title)).toEqual(['Acme docs']);
    const sections = (await ok(dst, 'GET', `/v1/orgs/${acme}/sites/${sites[0].id}/sections`)).items;
    expect(sections.map((s: any) => [s.title, s.siteSpaces?.[0]?.space?.title ?? null])).toEqual([
      ['Handbook', 'Handbook'],
      ['API reference', 'API'],
    ]);
    expect((await ok(dst, 'GET', `/v1/orgs/${acme}/sites/${sites[0].id}/share-links`)).items.map((l: any) => l.name)).toEqual(['Partners']);
    const spec = await waitFor('the OpenAPI specification', async () => {
      const answer = await dst('GET', `/v1/orgs/${acme}/openapi/pets/versions/latest/content`);
      return answer.status === 200 ? answer.body : undefined;
    }).catch(async (error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await dst('GET', `/v1/orgs/${acme}/openapi/pets`)).body)}`);
    });
    expect(Object.values(spec.filesystem)).toEqual([JSON.parse(SPEC)]);
    expect((await ok(dst, 'GET', `/v1/orgs/${acme}/translations`)).items.map((t: any) => t.title)).toEqual(['French']);
  }, 120_000);

  it('copies nothing the second time, and only what changed the third', async () => {
    const again = await migrateFrom(proxy.url);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ copied: {}, skipped: [expect.objectContaining({ kind: 'space', id: ids.broken })] });

    const checkout = await Checkout.clone(spaceRemote(source.url, sourceToken, ids.handbook));
    await checkout.write('guide/install.md', '# Install\n\n```bash\nnpm install quire\n```\n');
    await checkout.commitAndPush('Name the package');
    await checkout.dispose();
    await ok(src, 'POST', `/v1/spaces/${ids.handbook}/comments`, { body: { markdown: 'Second thoughts' } });

    const third = await migrateFrom(proxy.url);
    expect(third.code, third.stderr).toBe(0);
    expect(JSON.parse(third.stdout).copied, third.stdout).toEqual({ spaces: 1, comments: 1 });
    const handbook = await spaceHere(await acmeHere(), 'Handbook');
    expect(handbook.revision).toBe((await ok(src, 'GET', `/v1/spaces/${ids.handbook}`)).revision);
    const install = flatten((await ok(dst, 'GET', `/v1/spaces/${handbook.id}/content/pages`)).pages).find((p) => p.title === 'Install');
    expect(install.markdown).toContain('npm install quire');
  }, 120_000);

  it('copies content through the API when the source serves no git, keeping page and file ids and bytes', async () => {
    {
      const run = await migrateFrom(noGit.url, ['--org', ids.acme, '--into', ids.ops]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).copied, run.stdout).toMatchObject({ spaces: 2, changeRequests: 1 });
      const handbook = await spaceHere(ids.ops, 'Handbook');
      const targetToken = JSON.parse((await runQuire(['admin', 'create-token', '--user', (await ok(dst, 'GET', '/v1/user')).id], targetEnv)).stdout).token;
      const here = await contentOf(dst, target, targetToken, handbook.id);
      const there = await contentOf(src, source, sourceToken, ids.handbook);
      expect(here).toEqual(there);
      const crs = (await ok(dst, 'GET', `/v1/spaces/${handbook.id}/change-requests`)).items;
      const crPages = flatten((await ok(dst, 'GET', `/v1/spaces/${handbook.id}/change-requests/${crs[0].id}/content/pages`)).pages);
      expect(crPages.find((p) => p.title === 'Upgrade')?.markdown).toBe('Run the new version.\n');

      // A change at the source: one commit on top of what the migration wrote.
      const before = handbook.revision as string;
      const source1 = await Checkout.clone(spaceRemote(source.url, sourceToken, ids.handbook));
      await source1.write('README.md', '# Welcome\n\nStart here, read the guide, then ask.\n');
      await source1.commitAndPush('Ask');
      await source1.dispose();
      const again = await migrateFrom(noGit.url, ['--org', ids.acme, '--into', ids.ops]);
      expect(JSON.parse(again.stdout), again.stdout).toEqual({ copied: { spaces: 1 }, skipped: [expect.objectContaining({ id: ids.broken })] });
      const moved = await spaceHere(ids.ops, 'Handbook');
      const checkout = await Checkout.clone(spaceRemote(target.url, targetToken, moved.id));
      expect(await checkout.git('rev-parse', 'HEAD^')).toBe(`${before}\n`);
      expect(await checkout.read('readme.md')).toContain('then ask');

      // Edited here, and changed at the source again: refused with a reason, the edit kept.
      await checkout.write('readme.md', '# Welcome\n\nEdited in Quire.\n');
      await checkout.commitAndPush('Local edit');
      await checkout.dispose();
      const source2 = await Checkout.clone(spaceRemote(source.url, sourceToken, ids.handbook));
      await source2.write('README.md', '# Welcome\n\nChanged at the source.\n');
      await source2.commitAndPush('Remote edit');
      await source2.dispose();
      const refused = await migrateFrom(noGit.url, ['--org', ids.acme, '--into', ids.ops]);
      expect(refused.code, refused.stderr).toBe(0);
      expect(JSON.parse(refused.stdout).skipped).toContainEqual({ kind: 'space', id: ids.handbook, reason: expect.stringContaining('changed here since the last migration') });
      const welcome = flatten((await ok(dst, 'GET', `/v1/spaces/${moved.id}/content/pages`)).pages).find((p) => p.title === 'Welcome');
      expect(welcome.markdown).toBe('Edited in Quire.\n');
    }
  }, 120_000);

  it('fails with exit 1 and writes nothing for an unreachable source, a bad token, or a server that is not this API', async () => {
    const before = await targetOrgs();
    const closed = await startFaultyProxy(() => source.url, () => undefined);
    const unreachable = closed.url;
    await closed.close();
    const notThisApi = await startFaultyProxy(() => source.url, () => 404);
    try {
      const cases: Array<[string, string, RegExp]> = [
        [unreachable, sourceToken, /could not fetch|ECONNREFUSED/],
        [source.url, 'not-a-token', /401/],
        [notThisApi.url, sourceToken, /404.*server of this API/],
      ];
      for (const [from, token, message] of cases) {
        const run = await migrateFrom(from, [], token);
        expect(run.code, run.stdout).toBe(1);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).toContain('nothing was copied');
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(run.stdout).toBe('');
      }
      const refusedOrg = await migrateFrom(source.url, ['--org', 'no_such_org']);
      expect(refusedOrg.code).toBe(1);
      expect(refusedOrg.stderr).toContain('--org no_such_org');
      expect(await targetOrgs()).toEqual(before);
    } finally {
      await notThisApi.close();
    }
  }, 120_000);
});
