/**
 * Git over SSH with a deploy key (src/store/git/pinned-ssh.ts, src/store/git/remote-branch.ts) against a real host:
 * Debian's sshd on loopback (test/helpers/ssh-git-server.ts). The same commit objects go both ways; the host's key is
 * trusted on first use and any other key refused afterwards; a key the host does not take is `auth`; the deploy key
 * is only ever a private file, removed after each command, and never a word of a command line. And deploy keys are
 * checked by ssh's own reader before they are kept (src/store/keys/ssh-private-key.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitStore } from '../../src/store/git/repositories.js';
import { fetchRemoteBranch, pushToRemoteBranch, remoteHead, RemoteFailure, type RemoteBranch } from '../../src/store/git/remote-branch.js';
import { knownHostName, pinnedSshGit, withPinnedSsh, type SshTransport } from '../../src/store/git/pinned-ssh.js';
import { normalizedPrivateKey, SshKeyRefused, sshPublicKeyOf } from '../../src/store/keys/ssh-private-key.js';
import { sshKeyPair, startSshGitServer, type SshGitServer } from '../helpers/ssh-git-server.js';
import { Checkout, isolatedGitEnv } from '../helpers/git.js';

const exec = promisify(execFile);
const AUTHOR = { name: 'Quire', email: 'quire@example.com' };
/** A line of the key's body: what would show if the key leaked anywhere. */
const bodyLine = (privateKey: string) => privateKey.split('\n')[2];

describe('git over SSH with a deploy key (SSH transport)', () => {
  let keys: string;
  let deploy: Awaited<ReturnType<typeof sshKeyPair>>;
  let hostRoot: string;
  let host: SshGitServer;
  let store: GitStore;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    env = await isolatedGitEnv();
    keys = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-ssh-keys-'));
    deploy = await sshKeyPair(keys, 'deploy');
    hostRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-ssh-host-'));
    host = await startSshGitServer([deploy.publicKey]);
    store = new GitStore(await fs.mkdtemp(path.join(os.tmpdir(), 'quire-spaces-')));
  });
  afterAll(async () => {
    await host?.close();
    for (const dir of [keys, hostRoot]) if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const transport = (privateKey = deploy.privateKey, hostKey?: string): SshTransport => ({ kind: 'ssh', pin: { host: '127.0.0.1', port: host.port, address: '127.0.0.1' }, privateKey, hostKey });
  const remote = (repository: string, via: SshTransport): RemoteBranch => ({ url: host.url(path.join(hostRoot, `${repository}.git`)), ref: 'refs/heads/main', transport: via });
  const hostLog = async (repository: string) => (await exec('git', ['--git-dir', path.join(hostRoot, `${repository}.git`), 'log', '--format=%H', 'main'], { env })).stdout.trim().split('\n');

  async function hostRepository(name: string, commits: number): Promise<void> {
    await exec('git', ['init', '--bare', '--quiet', '--initial-branch=main', path.join(hostRoot, `${name}.git`)], { env });
    const checkout = await Checkout.clone(path.join(hostRoot, `${name}.git`), env);
    for (let i = 0; i < commits; i++) {
      await checkout.write(`page-${i}.md`, `# Page ${i}\n`);
      await checkout.commit(`Page ${i}`);
    }
    if (commits > 0) await checkout.push('HEAD:refs/heads/main');
    await checkout.dispose();
  }

  it('builds an ssh command that names the key file, never the key, and takes nothing from the machine (SSH)', () => {
    const pin = { host: 'git.example.com', port: 2222, address: '203.0.113.7' };
    const files = { identityFile: '/tmp/quire-ssh-x/deploy-key', knownHostsFile: '/tmp/quire-ssh-x/known_hosts' };
    const first = pinnedSshGit(pin, files, true);
    expect(first.args).toEqual(['-c', 'protocol.allow=never', '-c', 'protocol.ssh.allow=always']);
    const command = first.env.GIT_SSH_COMMAND!;
    for (const option of [
      "'-F' '/dev/null'",
      "'HostName=203.0.113.7'",
      "'HostKeyAlias=[git.example.com]:2222'",
      "'BatchMode=yes'",
      "'IdentitiesOnly=yes'",
      "'IdentityAgent=none'",
      "'IdentityFile=/tmp/quire-ssh-x/deploy-key'",
      "'UserKnownHostsFile=/tmp/quire-ssh-x/known_hosts'",
      "'GlobalKnownHostsFile=/dev/null'",
      "'StrictHostKeyChecking=accept-new'",
    ]) {
      expect(command).toContain(option);
    }
    expect(pinnedSshGit(pin, files, false).env.GIT_SSH_COMMAND).toContain("'StrictHostKeyChecking=yes'");
    // Unset, not empty: no agent is asked, whatever this process's environment holds.
    expect(Object.keys(first.env)).toContain('SSH_AUTH_SOCK');
    expect(first.env.SSH_AUTH_SOCK).toBeUndefined();
    expect(knownHostName({ ...pin, port: 22 })).toBe('git.example.com');
  });

  it('keeps the deploy key in a private file for one command, removed afterwards, and never on a command line (SSH)', async () => {
    await hostRepository('private-files', 1);
    const seen: Array<{ args: string[]; env: Record<string, string | undefined>; folderMode: number; keyMode: number; key: string }> = [];
    const via = transport();
    await withPinnedSsh(via, async (git) => {
      const keyFile = /'IdentityFile=([^']+)'/.exec(git.env.GIT_SSH_COMMAND!)![1];
      seen.push({ ...git, folderMode: (await fs.stat(path.dirname(keyFile))).mode & 0o777, keyMode: (await fs.stat(keyFile)).mode & 0o777, key: await fs.readFile(keyFile, 'utf8') });
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ folderMode: 0o700, keyMode: 0o600, key: deploy.privateKey });
    const keyFile = /'IdentityFile=([^']+)'/.exec(seen[0].env.GIT_SSH_COMMAND!)![1];
    await expect(fs.stat(path.dirname(keyFile))).rejects.toThrow(/ENOENT/);
    const everything = JSON.stringify(seen[0].args) + JSON.stringify(seen[0].env);
    expect(everything).not.toContain(bodyLine(deploy.privateKey));
    expect(everything).not.toContain('PRIVATE KEY');

    // Removed when the command fails too.
    let failedIn = '';
    await expect(
      withPinnedSsh(transport(), async (git) => {
        failedIn = path.dirname(/'IdentityFile=([^']+)'/.exec(git.env.GIT_SSH_COMMAND!)![1]);
        throw new Error('the command failed');
      }),
    ).rejects.toThrow('the command failed');
    await expect(fs.stat(failedIn)).rejects.toThrow(/ENOENT/);
  });

  it('fetches and pushes the same commits, trusting the host key on first use and only that key afterwards (SSH)', async () => {
    await hostRepository('handbook', 3);
    await store.createRepository('space-a', [{ path: 'README.md', content: '# Space\n' }], 'First', AUTHOR);
    const via = transport();
    expect(await remoteHead(store, 'space-a', remote('handbook', via))).toBe((await hostLog('handbook'))[0]);
    expect(via.hostKey).toBe(host.hostKey);

    const fetched = await fetchRemoteBranch(store, 'space-a', remote('handbook', via), 'refs/quire/sync/remote');
    expect(fetched).toBe((await hostLog('handbook'))[0]);
    const gitDir = store.repositoryPath('space-a');
    const tree = (await exec('git', ['--git-dir', gitDir, 'rev-parse', `${fetched}^{tree}`], { env })).stdout.trim();
    const commit = (await exec('git', ['--git-dir', gitDir, 'commit-tree', tree, '-p', fetched!, '-m', 'Edited in Quire'], { env })).stdout.trim();
    await pushToRemoteBranch(store, 'space-a', remote('handbook', via), commit, fetched);
    expect(await hostLog('handbook')).toEqual([commit, ...(await exec('git', ['--git-dir', gitDir, 'log', '--format=%H', fetched!], { env })).stdout.trim().split('\n')]);
    // A push expecting the branch where it no longer is: `moved`, as over HTTP, and the host keeps its commit.
    const sibling = (await exec('git', ['--git-dir', gitDir, 'commit-tree', tree, '-p', fetched!, '-m', 'Not seen the host move'], { env })).stdout.trim();
    const stale = (await pushToRemoteBranch(store, 'space-a', remote('handbook', via), sibling, fetched).catch((error: unknown) => error)) as RemoteFailure;
    expect(stale.reason).toBe('moved');
    expect((await hostLog('handbook'))[0]).toBe(commit);

    // The host's key changes: refused as `host-key` before anything is read; a transport with none trusts the new one.
    const trusted = host.hostKey;
    await host.restart({ newHostKey: true });
    expect(host.hostKey).not.toBe(trusted);
    const changed = (await remoteHead(store, 'space-a', remote('handbook', transport(deploy.privateKey, trusted))).catch((error: unknown) => error)) as RemoteFailure;
    expect(changed).toBeInstanceOf(RemoteFailure);
    expect(changed.reason).toBe('host-key');
    const fresh = transport();
    expect(await remoteHead(store, 'space-a', remote('handbook', fresh))).toBe(commit);
    expect(fresh.hostKey).toBe(host.hostKey);
  });

  it('says `auth` when the host does not take the deploy key, never showing the key (SSH)', async () => {
    await hostRepository('guarded', 1);
    await store.createRepository('space-b', [{ path: 'README.md', content: '# B\n' }], 'First', AUTHOR);
    const stranger = await sshKeyPair(keys, 'stranger');
    const failure = (await remoteHead(store, 'space-b', remote('guarded', transport(stranger.privateKey))).catch((error: unknown) => error)) as RemoteFailure;
    expect(failure).toBeInstanceOf(RemoteFailure);
    expect(failure.reason).toBe('auth');
    expect(failure.message).toContain('Permission denied');
    expect(failure.message).not.toContain(bodyLine(stranger.privateKey));
    const config = await fs.readFile(path.join(store.repositoryPath('space-b'), 'config'), 'utf8');
    expect(config).not.toContain('PRIVATE KEY');
  });

  it('takes OpenSSH and PEM keys without passphrase, and refuses others with the reason (SSH deploy keys)', async () => {
    expect(await sshPublicKeyOf(normalizedPrivateKey(deploy.privateKey))).toBe(deploy.publicKey);
    // Without its last newline and with CRLF line ends, as forms and JSON clients send it: the same key.
    expect(await sshPublicKeyOf(normalizedPrivateKey(deploy.privateKey.trimEnd().replaceAll('\n', '\r\n')))).toBe(deploy.publicKey);
    const pem = await sshKeyPair(keys, 'pem-rsa', { type: 'rsa', pem: true });
    expect(pem.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(await sshPublicKeyOf(normalizedPrivateKey(pem.privateKey))).toBe(pem.publicKey);

    const refusal = async (text: string) => (await sshPublicKeyOf(normalizedPrivateKey(text)).catch((error: unknown) => error)) as SshKeyRefused;
    const locked = await sshKeyPair(keys, 'locked', { passphrase: 'correct horse battery' });
    expect(await refusal(locked.privateKey)).toMatchObject({ reason: 'passphrase' });
    const lockedPem = await sshKeyPair(keys, 'locked-pem', { type: 'rsa', pem: true, passphrase: 'correct horse battery' });
    expect(await refusal(lockedPem.privateKey)).toMatchObject({ reason: 'passphrase' });
    expect(await refusal(deploy.publicKey)).toMatchObject({ reason: 'unreadable' });
    expect(await refusal('-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----\n')).toMatchObject({ reason: 'unreadable' });
    expect(await refusal('')).toBeInstanceOf(SshKeyRefused);
  });
});
