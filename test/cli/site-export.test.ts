/**
 * `quire site export SITE_ID DIR`: the whole public site as static files (pages as PATH/index.html and PATH.md, the
 * files pages show, a search index with its page), written by the command itself; sites not public are refused
 * with exit 1 and nothing written.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

describe('quire site export (sqlite)', () => {
  let dataDir: string;
  let out: string;
  let server: ServerProcess;
  let env: Record<string, string>;
  let token: string;
  let org: string;

  const api = async (method: string, url: string, body?: unknown) =>
    (await fetch(`${server.url}${url}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json();

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-export-'));
    out = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-export-out-'));
    env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
    const boot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'ops@example.com', '--org', 'Docs'], env);
    ({ token } = JSON.parse(boot.stdout));
    org = JSON.parse(boot.stdout).organization.id;
    server = await startServer(env);
  });
  afterAll(async () => {
    await server?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(out, { recursive: true, force: true });
  });

  it('writes every page, its markdown, the files and the search index; refuses a site that is not public', async () => {
    const space = await api('POST', `/v1/orgs/${org}/spaces`, { title: 'Guide' });
    const checkout = await Checkout.clone(spaceRemote(server.url, token, space.id));
    await checkout.write('README.md', '# Welcome\n\nSee [install](setup/install.md) and ![logo](.gitbook/assets/logo.png).\n');
    const install = '# Install\n\nRun the installer.\n\n{% if visitor.claims.beta %}\nBeta builds.\n{% else %}\nStable builds.\n{% endif %}\n';
    await checkout.write('setup/install.md', install);
    await checkout.write('.gitbook/assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]));
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Install](setup/install.md)\n');
    await checkout.commitAndPush('Guide');
    await checkout.dispose();
    const hidden = await api('POST', `/v1/orgs/${org}/sites`, { title: 'Internal', spaces: [space.id] });
    const refused = await runQuire(['site', 'export', hidden.id, path.join(out, 'refused')], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not published for everyone');
    await expect(fs.access(path.join(out, 'refused'))).rejects.toThrow();

    const site = await api('POST', `/v1/orgs/${org}/sites`, { title: 'Public docs', visibility: 'public', spaces: [space.id] });
    const run = await runQuire(['site', 'export', site.id, out], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ dir: out, pages: 2, files: 1 });
    const home = await fs.readFile(path.join(out, 'index.html'), 'utf8');
    expect(home).toContain('<h1>Welcome</h1>');
    expect(home).toContain('href="/setup/install"');
    const src = /<img src="([^"]+)"/.exec(home)![1];
    expect(await fs.readFile(path.join(out, ...src.split('/').filter(Boolean).map(decodeURIComponent)))).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]));
    const installHtml = await fs.readFile(path.join(out, 'setup', 'install', 'index.html'), 'utf8');
    expect(installHtml).toContain('Run the installer.');
    // Adaptive content as for a visitor without claims: the `else` branch only.
    expect(installHtml).toContain('Stable builds.');
    expect(installHtml).not.toContain('Beta builds.');
    expect(await fs.readFile(path.join(out, 'setup', 'install.md'), 'utf8')).toBe('# Install\n\nRun the installer.\n\nStable builds.\n');
    const index = JSON.parse(await fs.readFile(path.join(out, 'search-index.json'), 'utf8'));
    expect(index[1].text).toContain('Stable builds.');
    expect(index[1].text).not.toContain('Beta builds.');
    expect(index.map((p: { title: string; url: string }) => [p.title, p.url])).toEqual([
      ['Welcome', '/'],
      ['Install', '/setup/install'],
    ]);
    expect(await fs.readFile(path.join(out, '~search', 'index.html'), 'utf8')).toContain("fetch('/search-index.json')");
  });
});
