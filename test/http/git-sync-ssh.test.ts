/**
 * Git Sync over SSH with a deploy key, over the API, against a real git host on loopback: Debian's sshd serving bare
 * repositories (test/helpers/ssh-git-server.ts). The same commits on both sides after every run (`git log` of the
 * host's branch and of the space's main give the same oids), an import and an export as first syncs, the host's key
 * trusted on first use and a changed one stopping the sync with nothing moved until the space is connected again, a
 * key the host does not take said plainly, bad connections refused naming the field, and the deploy key never seen
 * again: not in an answer, a log line or a file of the data dir. On both databases.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { sshKeyPair, startSshGitServer, type SshGitServer } from '../helpers/ssh-git-server.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { hostRepositoryAt, logOf, spaceLogOf } from '../helpers/git-sync.js';
import { findGitSyncConnection } from '../../src/store/sql/git-sync.js';

const exec = promisify(execFile);

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe.each(DATABASE_KINDS)('Git Sync over SSH with a deploy key (SSH, %s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let api: string;
  let env: NodeJS.ProcessEnv;
  let keys: string;
  let deploy: Awaited<ReturnType<typeof sshKeyPair>>;
  let hostRoot: string;
  let host: SshGitServer;
  const logs: string[] = [];
  /** Every answer of the API in this suite, to look for the key in. */
  const answers: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'], logLevel: 'debug' }, { logLines: logs });
    org = await t.organization();
    api = await t.listen();
    env = await isolatedGitEnv();
    keys = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-ssh-keys-'));
    deploy = await sshKeyPair(keys, 'deploy');
    hostRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-ssh-host-'));
    host = await startSshGitServer([deploy.publicKey]);
  });
  afterAll(async () => {
    await host?.close();
    await t?.close();
    for (const dir of [keys, hostRoot]) if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const admin = () => org.admin.token;
  const repository = (name: string) => path.join(hostRoot, `${name}.git`);
  const hostLog = (name: string) => logOf(repository(name), 'main', env);
  const spaceLog = (spaceId: string) => spaceLogOf(api, admin(), spaceId, env);
  async function newSpace(title: string): Promise<string> {
    const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: admin(), body: { title } });
    return res.body.id;
  }
  /** A repository on the host, and a user's clone of it with `pages` pages pushed. */
  const hostRepository = (name: string, pages: string[]) => hostRepositoryAt(repository(name), pages, env);
  const connect = async (spaceId: string, body: Record<string, unknown>) => {
    const res = await t.request('PUT', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), body: { auth: { sshPrivateKey: deploy.privateKey }, ...body }, unchecked: true });
    answers.push(JSON.stringify(res.body));
    return res;
  };
  const run = async (spaceId: string) => {
    const res = await t.request('POST', `/v1/spaces/${spaceId}/git/sync/run`, { token: admin(), unchecked: true });
    answers.push(JSON.stringify(res.body));
    expect(res.status).toBe(200);
    return res.body;
  };
  const row = async (spaceId: string) => (await findGitSyncConnection(t.container.ctx.db, spaceId))!;

  it('imports over SSH, then a push to Quire reaches the host and a push to the host reaches Quire, the same commits', async () => {
    const user = await hostRepository('handbook', ['install', 'usage']);
    const spaceId = await newSpace('Handbook');
    const connected = await connect(spaceId, { url: host.url(repository('handbook')), firstSync: 'import' });
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ integration: 'quire', url: `https://127.0.0.1${repository('handbook').replace(/\.git$/, '')}`, ref: 'refs/heads/main', status: 'syncing' });
    expect(await row(spaceId)).toMatchObject({ url: host.url(repository('handbook')), auth_kind: 'ssh-key', host_key: null });

    const first = await run(spaceId);
    expect(first).toMatchObject({ status: 'synced', localCommit: (await hostLog('handbook'))[0], remoteCommit: (await hostLog('handbook'))[0] });
    expect(await spaceLog(spaceId)).toEqual(await hostLog('handbook'));
    // Trusted on first use: the key the host showed is the connection's now.
    expect((await row(spaceId)).host_key).toBe(host.hostKey);
    const shown = await t.request('GET', `/v1/spaces/${spaceId}`, { token: admin() });
    answers.push(JSON.stringify(shown.body));
    expect(shown.body.gitSync).toMatchObject({ integration: 'quire', status: 'synced' });

    // A push to Quire reaches the host as the same commit.
    const writer = await Checkout.clone(spaceRemote(api, admin(), spaceId), env);
    await writer.write('usage.md', '# usage\n\nEdited in Quire.\n');
    const ours = await writer.commitAndPush('Edit usage in Quire');
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: ours });
    expect((await hostLog('handbook'))[0]).toBe(ours);
    expect(await hostLog('handbook')).toEqual(await spaceLog(spaceId));

    // A push to the host reaches the space as the same commit.
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('install.md', '# install\n\nEdited on the host.\n');
    const theirs = await user.commitAndPush('Edit install on the host');
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: theirs, remoteCommit: theirs });
    expect(await spaceLog(spaceId)).toEqual(await hostLog('handbook'));
    const install = await t.request('GET', `/v1/spaces/${spaceId}/content/path/install`, { token: admin(), query: { format: 'markdown' } });
    expect(JSON.stringify(install.body)).toContain('Edited on the host.');
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('exports the space\'s history over SSH on the first sync', async () => {
    await hostRepository('exported', []);
    const spaceId = await newSpace('Exported');
    // The scp-like form, kept in the ssh:// one.
    expect((await connect(spaceId, { url: `root@127.0.0.1:${repository('exported')}`, firstSync: 'export' })).status).toBe(200);
    expect((await row(spaceId)).url).toBe(`ssh://root@127.0.0.1${repository('exported')}`);
    // sshd listens on its own port, not 22: the same repository by its ssh:// URL.
    expect((await connect(spaceId, { url: host.url(repository('exported')), firstSync: 'export' })).status).toBe(200);
    expect(await run(spaceId)).toMatchObject({ status: 'synced' });
    expect(await hostLog('exported')).toEqual(await spaceLog(spaceId));
  }, 60_000);

  it('stops with nothing moved when the host key changed, until the space is connected again', async () => {
    const user = await hostRepository('rekeyed', ['page']);
    const spaceId = await newSpace('Rekeyed');
    expect((await connect(spaceId, { url: host.url(repository('rekeyed')), firstSync: 'import' })).status).toBe(200);
    expect(await run(spaceId)).toMatchObject({ status: 'synced' });
    const trusted = (await row(spaceId)).host_key;
    expect(trusted).toBe(host.hostKey);

    // The host comes back with another key; both sides move meanwhile.
    await host.restart({ newHostKey: true });
    expect(host.hostKey).not.toBe(trusted);
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('page.md', '# page\n\nEdited on the host.\n');
    const theirs = await user.commitAndPush('Edit on the host');
    const writer = await Checkout.clone(spaceRemote(api, admin(), spaceId), env);
    await writer.write('README.md', '# Handbook\n\nEdited in Quire.\n');
    const ours = await writer.commitAndPush('Edit in Quire');

    const stopped = await run(spaceId);
    expect(stopped).toMatchObject({ status: 'error', error: expect.stringMatching(/host key of 127\.0\.0\.1 changed.*connect again/) });
    expect((await spaceLog(spaceId))[0]).toBe(ours);
    expect((await hostLog('rekeyed'))[0]).toBe(theirs);
    expect((await row(spaceId)).host_key).toBe(trusted);
    await expect(exec('git', ['--git-dir', t.container.git.repositoryPath(spaceId), 'cat-file', '-e', theirs], { env })).rejects.toThrow();

    // Connecting again forgets the key, and its first run trusts the one the host shows now (importing the host's
    // history, as this connection asks: the space's former main is kept under a ref).
    expect((await connect(spaceId, { url: host.url(repository('rekeyed')), firstSync: 'import' })).status).toBe(200);
    expect((await row(spaceId)).host_key).toBeNull();
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: theirs });
    expect((await row(spaceId)).host_key).toBe(host.hostKey);
    expect(await spaceLog(spaceId)).toEqual(await hostLog('rekeyed'));
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('says when the host does not take the deploy key, never showing it, and changes nothing', async () => {
    await hostRepository('guarded', ['page']);
    const spaceId = await newSpace('Guarded');
    const before = await spaceLog(spaceId);
    const stranger = await sshKeyPair(keys, 'stranger');
    expect((await connect(spaceId, { url: host.url(repository('guarded')), firstSync: 'import', auth: { sshPrivateKey: stranger.privateKey } })).status).toBe(200);
    const state = await run(spaceId);
    expect(state).toMatchObject({ status: 'error', error: expect.stringMatching(/refused the credentials .*Permission denied \(publickey\).*deploy key/) });
    expect(JSON.stringify(state)).not.toContain(stranger.privateKey.split('\n')[2]);
    expect(await spaceLog(spaceId)).toEqual(before);
  }, 60_000);

  it('refuses bad SSH connections with a 400 naming the field', async () => {
    const spaceId = await newSpace('Checked');
    const url = host.url(repository('handbook'));
    const locked = await sshKeyPair(keys, 'locked', { passphrase: 'correct horse battery' });
    const key = { sshPrivateKey: deploy.privateKey };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url, firstSync: 'import' }, 'auth.sshPrivateKey'],
      [{ url: 'git@github.com:acme/docs.git', firstSync: 'import' }, 'auth.sshPrivateKey'],
      [{ url, firstSync: 'import', auth: { token: 'glpat-0123456789' } }, 'auth.token'],
      [{ url, firstSync: 'import', auth: { ...key, username: 'docs-bot' } }, 'auth.username'],
      [{ url: 'https://127.0.0.1:1/docs.git', firstSync: 'import', auth: key }, 'auth.sshPrivateKey'],
      [{ url, firstSync: 'import', auth: { sshPrivateKey: 'not a key' } }, 'auth.sshPrivateKey:'],
      [{ url, firstSync: 'import', auth: { sshPrivateKey: deploy.publicKey } }, 'auth.sshPrivateKey:'],
      [{ url, firstSync: 'import', auth: { sshPrivateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----\n' } }, 'auth.sshPrivateKey:'],
      [{ url, firstSync: 'import', auth: { sshPrivateKey: locked.privateKey } }, 'auth.sshPrivateKey: the key is protected by a passphrase'],
      [{ url: `ssh://root:secret@127.0.0.1:${host.port}/docs.git`, firstSync: 'import', auth: key }, 'url'],
      [{ url: '-oProxyCommand=touch@127.0.0.1:docs.git', firstSync: 'import', auth: key }, 'url'],
      [{ url: `ssh://root@127.0.0.1:${host.port}/docs.git?x=1`, firstSync: 'import', auth: key }, 'url'],
      [{ url: 'ssh://root@127.0.0.1:70000/docs.git', firstSync: 'import', auth: key }, 'url'],
      [{ url: 'ssh://root@127.0.0.1/', firstSync: 'import', auth: key }, 'url'],
      // The fetch guard: private addresses QUIRE_FETCH_ALLOW does not allow.
      [{ url: 'ssh://git@10.1.2.3/acme/docs.git', firstSync: 'import', auth: key }, 'url: 10.1.2.3 resolves to 10.1.2.3, a private'],
      [{ url: 'git@[::1]:acme/docs.git', firstSync: 'import', auth: key }, 'url: ::1 resolves to ::1'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('PUT', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), body, unchecked: true });
      answers.push(JSON.stringify(res.body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message.startsWith(field), `${JSON.stringify(body)}: ${res.body.error.message}`).toBe(true);
    }
    expect((await t.request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), unchecked: true })).status).toBe(404);
  }, 60_000);

  it('never lets the deploy key out: not in an answer, a log line, a row in the clear or a file of the data dir', async () => {
    // Lines of the key's body: what shows wherever the key went, whole or cut.
    const secrets = deploy.privateKey.split('\n').slice(1, -2);
    expect(secrets.length).toBeGreaterThan(3);
    expect(answers.length).toBeGreaterThan(10);
    expect(logs.length).toBeGreaterThan(10);
    for (const text of [...answers, ...logs]) for (const secret of secrets) expect(text).not.toContain(secret);
    // Stored sealed: no row holds it in the clear.
    const rows = await t.container.ctx.db.selectFrom('git_sync_connections').selectAll().execute();
    expect(rows.filter((r) => r.auth_kind === 'ssh-key').length).toBeGreaterThan(0);
    for (const r of rows) for (const secret of secrets) expect(JSON.stringify(r)).not.toContain(secret);
    // No file of the data dir (repositories' configs included, and the SQLite database) holds it.
    const files = await filesUnder(t.config.dataDir);
    expect(files.some((file) => file.endsWith(`${path.sep}config`))).toBe(true);
    for (const file of files) {
      const text = (await fs.readFile(file)).toString('latin1');
      for (const secret of secrets) expect(text.includes(secret), file).toBe(false);
    }
  }, 60_000);
});
