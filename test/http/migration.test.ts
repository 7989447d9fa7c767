import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote, isolatedGitEnv } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';

const exec = promisify(execFile);

/** The layout docs repositories synced by the common hosted platform have (docs/git-format.md "The tree"). */
function seenLayout(): Record<string, string | Buffer> {
  return {
    '.gitbook.yaml': 'root: ./docs/\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n\nredirects:\n  old/page: guides/install.md\n',
    'docs/README.md': '---\ndescription: >-\n  Everything about the product.\nlayout:\n  title:\n    visible: true\n---\n\n# Introduction\n\nWelcome: {% include "../.gitbook/includes/footer.md" %}\n',
    'docs/SUMMARY.md': '# Table of contents\n\n* [Introduction](README.md)\n* [Guides](guides/README.md)\n  * [Install](guides/install.md)\n  * [Configure](<guides/configure options.md>)\n\n## Reference\n\n* [API](reference/api.md)\n* [Changelog](https://example.com/changelog)\n',
    'docs/guides/README.md': '# Guides\n',
    'docs/guides/install.md': '---\nicon: download\ncover: ../.gitbook/assets/cover (1).png\ncoverY: 0\nunknownKey: keep me\n---\n\n# Install\n\n![](../.gitbook/assets/cover (1).png)\n',
    'docs/guides/configure options.md': '# Configure\r\n\r\nWindows line endings stay as they are.\r\n',
    'docs/reference/api.md': '# API\n\nUses {{ space.vars.version }}.\n',
    'docs/.gitbook/assets/cover (1).png': tinyPng(4, 3),
    'docs/.gitbook/includes/footer.md': '---\ntitle: Footer\n---\n\nMade with care.\n',
    'docs/.gitbook/vars.yaml': 'version: "2.0"\n',
    'LICENSE': 'MIT\n',
  };
}

async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const out = (await exec('git', ['ls-files', '-z'], { cwd: dir })).stdout.split('\0').filter(Boolean);
  const files = new Map<string, Buffer>();
  for (const file of out) files.set(file, await fs.readFile(path.join(dir, file)));
  return files;
}

describe('migration: an existing docs repository pushed into a space, cloned back', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    org = await t.organization();
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  const remote = (spaceId: string) => spaceRemote(base, org.admin.token, spaceId);

  async function importRepository(files: Record<string, string | Buffer>): Promise<{ spaceId: string; source: string; head: string }> {
    const env = await isolatedGitEnv();
    const source = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-migrate-'));
    await exec('git', ['init', '--quiet', '--initial-branch=main', source], { env });
    for (const [file, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(source, file)), { recursive: true });
      await fs.writeFile(path.join(source, file), content);
    }
    await exec('git', ['-c', 'core.autocrlf=false', 'add', '--all'], { cwd: source, env });
    await exec('git', ['commit', '--quiet', '-m', 'Docs from elsewhere'], { cwd: source, env });
    const head = (await exec('git', ['rev-parse', 'HEAD'], { cwd: source, env })).stdout.trim();
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Migrated' } })).body.id;
    // The space starts with its own first commit: the imported history replaces it.
    await exec('git', ['push', '--quiet', '--force', remote(spaceId), 'main:main'], { cwd: source, env });
    return { spaceId, source, head };
  }

  it('fills a space from the seen layout (root, SUMMARY.md, assets, includes, vars)', async () => {
    const { spaceId, head } = await importRepository(seenLayout());
    const revision = (await t.request('GET', `/v1/spaces/${spaceId}/content`, { token: org.admin.token })).body;
    expect(revision.id).toBe(head);
    expect(revision.pages.map((p: any) => [p.type, p.title])).toEqual([
      ['document', 'Introduction'],
      ['document', 'Guides'],
      ['group', 'Reference'],
    ]);
    const guides = revision.pages[1];
    expect(guides.pages.map((p: any) => p.title)).toEqual(['Install', 'Configure']);
    expect(guides.pages[0].git.path).toBe('docs/guides/install.md');
    const cover = revision.files.find((f: any) => f.name === 'cover (1).png');
    expect(cover).toMatchObject({ contentType: 'image/png', dimensions: { width: 4, height: 3 } });
    expect(guides.pages[0].cover.ref.file).toBe(cover.id);
    expect(revision.reusableContents.map((r: any) => r.title)).toEqual(['Footer']);
    expect(revision.variables).toEqual({ version: '2.0' });
    expect(revision.pages[2].pages.map((p: any) => [p.type, p.title])).toEqual([
      ['document', 'API'],
      ['link', 'Changelog'],
    ]);
  });

  it('gives back the same bytes, and the same tree, when cloned', async () => {
    const { spaceId, source } = await importRepository(seenLayout());
    const clone = await Checkout.clone(remote(spaceId));
    const original = await filesOf(source);
    const cloned = await filesOf(clone.dir);
    expect([...cloned.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original) expect(cloned.get(file)!.equals(bytes), file).toBe(true);
    expect((await clone.git('rev-parse', 'HEAD^{tree}')).trim()).toBe((await exec('git', ['rev-parse', 'HEAD^{tree}'], { cwd: source })).stdout.trim());
    await clone.dispose();
  });

  it('fills a space from plain folders of markdown without SUMMARY.md', async () => {
    const { spaceId } = await importRepository({
      'README.md': '# Home\n',
      'tutorials/README.md': '# Tutorials\n',
      'tutorials/first-steps.md': '# First steps\n',
      'faq.md': '# FAQ\n',
    });
    const pages = (await t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.admin.token })).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Home', 'FAQ', 'Tutorials']);
    expect(pages[2].pages.map((p: any) => [p.title, p.path])).toEqual([['First steps', 'tutorials/first-steps']]);
  });
});
