/**
 * A branch on another git host as Git Sync reads and writes it (src/store/git/remote-branch.ts), against a real host:
 * git's own http-backend behind HTTP Basic auth on loopback. The same commit objects go both ways; a push is a
 * compare-and-swap on the host; the host's refusals and a wrong token come back as reasons; the token is never on a
 * command line, in a repository's config or in a message.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitStore } from '../../src/store/git/repositories.js';
import {
  advertisedRemoteBranches,
  basicAuthorization,
  fetchFromMirror,
  fetchRemoteBranch,
  pushToRemoteBranch,
  remoteBranches,
  remoteHead,
  RemoteFailure,
  updateMirror,
  type RemoteBranch,
} from '../../src/store/git/remote-branch.js';
import { advertisedBranches } from '../../src/store/git/advertisement.js';
import { GuardedFetcher } from '../../src/store/net/guarded-fetch.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { Checkout, isolatedGitEnv } from '../helpers/git.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const TOKEN = 'glpat-remote-branch-test-0123456789';
const AUTHOR = { name: 'Quire', email: 'quire@example.com' };

describe('a branch on another git host', () => {
  let hostRoot: string;
  let host: GitHttpServer;
  let store: GitStore;
  let env: NodeJS.ProcessEnv;
  let port: number;

  const remote = (repository: string, token = TOKEN): RemoteBranch => ({
    url: `${host.url}/${repository}.git`,
    ref: 'refs/heads/main',
    transport: { kind: 'http', pin: { host: '127.0.0.1', port, address: '127.0.0.1' }, authorization: basicAuthorization('docs-bot', token) },
  });
  /** The host's log of its main branch (oids, newest first). */
  const hostLog = async (repository: string) => (await exec('git', ['--git-dir', path.join(hostRoot, `${repository}.git`), 'log', '--format=%H', 'main'], { env })).stdout.trim().split('\n');
  const spaceLog = async (spaceId: string, ref: string) => (await exec('git', ['--git-dir', store.repositoryPath(spaceId), 'log', '--format=%H', ref], { env })).stdout.trim().split('\n');

  /** A repository on the host with `commits` commits on main, made by a user's clone. */
  async function hostRepository(name: string, commits: number): Promise<Checkout> {
    await exec('git', ['init', '--bare', '--quiet', '--initial-branch=main', path.join(hostRoot, `${name}.git`)], { env });
    const checkout = await Checkout.clone(path.join(hostRoot, `${name}.git`), env);
    for (let i = 0; i < commits; i++) {
      await checkout.write(`page-${i}.md`, `# Page ${i}\n`);
      await checkout.commit(`Page ${i}`);
    }
    if (commits > 0) await checkout.push('HEAD:refs/heads/main');
    return checkout;
  }

  beforeAll(async () => {
    env = await isolatedGitEnv();
    hostRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-host-'));
    host = await startGitHttpServer(hostRoot, { auth: { username: 'docs-bot', password: TOKEN } });
    port = Number(new URL(host.url).port);
    store = new GitStore(await fs.mkdtemp(path.join(os.tmpdir(), 'quire-spaces-')));
  });
  afterAll(async () => {
    await host.close();
  });

  it('fetches the host branch with its history, the same oids, and pushes the space\'s new commits back as they are', async () => {
    const user = await hostRepository('handbook', 3);
    await store.createRepository('space-a', [{ path: 'README.md', content: '# Space\n' }], 'First', AUTHOR);
    expect(await remoteHead(store, 'space-a', remote('handbook'))).toBe((await hostLog('handbook'))[0]);

    const fetched = await fetchRemoteBranch(store, 'space-a', remote('handbook'), 'refs/quire/sync/remote');
    expect(fetched).toBe((await hostLog('handbook'))[0]);
    expect(await spaceLog('space-a', 'refs/quire/sync/remote')).toEqual(await hostLog('handbook'));

    // A commit made in the space on top of the host's: pushed, the host's log is the space's.
    const tree = (await exec('git', ['--git-dir', store.repositoryPath('space-a'), 'rev-parse', `${fetched}^{tree}`], { env })).stdout.trim();
    const commit = (await exec('git', ['--git-dir', store.repositoryPath('space-a'), 'commit-tree', tree, '-p', fetched!, '-m', 'Edited in Quire'], { env })).stdout.trim();
    await pushToRemoteBranch(store, 'space-a', remote('handbook'), commit, fetched);
    expect(await hostLog('handbook')).toEqual([commit, ...(await spaceLog('space-a', 'refs/quire/sync/remote'))]);

    // The user's clone pulls it as an ordinary fast-forward.
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    expect((await user.git('rev-parse', 'HEAD')).trim()).toBe(commit);
  });

  it('reads the branches from the host\'s ref advertisement without git, as git ls-remote lists them, and refuses what is not one', async () => {
    const user = await hostRepository('listed', 2);
    await user.git('push', '--quiet', 'origin', 'HEAD:refs/heads/docs/next', 'HEAD~1:refs/heads/release');
    await user.git('tag', 'v1');
    await user.push('v1');
    await store.createRepository('space-listed', [{ path: 'README.md', content: '# Space\n' }], 'First', AUTHOR);
    const fetcher = new GuardedFetcher({ allow: ['127.0.0.1'], timeoutMs: 10_000 });
    try {
      const before = host.requests.length;
      const read = await advertisedRemoteBranches(fetcher, store, 'space-listed', remote('listed'));
      // One request, no git process (git's ls-remote asks twice: the advertisement, then its v2 ref listing).
      expect(host.requests.slice(before)).toEqual(['GET /listed.git/info/refs']);
      expect([...read.keys()].sort()).toEqual(['refs/heads/docs/next', 'refs/heads/main', 'refs/heads/release']);
      expect(read).toEqual(await remoteBranches(store, 'space-listed', remote('listed')));
      const refused = await advertisedRemoteBranches(fetcher, store, 'space-listed', remote('listed', 'not-the-token')).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RemoteFailure);
      expect((refused as RemoteFailure).reason).toBe('auth');
      const absent = await advertisedRemoteBranches(fetcher, store, 'space-listed', remote('no-such-repository')).catch((error: unknown) => error);
      expect((absent as RemoteFailure).reason).toBe('unreachable');
    } finally {
      await fetcher.close();
    }
    // Not an advertisement: another service's, a cut one, lengths that lie, a dumb server's list.
    const line = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
    const ref = `${'a'.repeat(40)} refs/heads/main\0multi_ack\n`;
    expect(advertisedBranches(Buffer.from(`${line('# service=git-upload-pack\n')}0000${line(ref)}0000`))).toEqual(new Map([['refs/heads/main', 'a'.repeat(40)]]));
    for (const bad of [`${line('# service=git-receive-pack\n')}0000${line(ref)}0000`, `${line('# service=git-upload-pack\n')}0000${line(ref)}`, `${line('# service=git-upload-pack\n')}0000ffff${ref}0000`, `${'a'.repeat(40)}\trefs/heads/main\n`, '0003']) {
      expect(advertisedBranches(Buffer.from(bad)), bad).toBeUndefined();
    }
  });

  it('pushes to an absent branch only while it is absent, and never over commits it has not seen', async () => {
    await hostRepository('empty', 0);
    const first = await store.createRepository('space-b', [{ path: 'README.md', content: '# B\n' }], 'First', AUTHOR);
    expect(await remoteHead(store, 'space-b', remote('empty'))).toBeUndefined();
    expect(await fetchRemoteBranch(store, 'space-b', remote('empty'), 'refs/quire/sync/remote')).toBeUndefined();
    await pushToRemoteBranch(store, 'space-b', remote('empty'), first, undefined);
    expect(await hostLog('empty')).toEqual([first]);

    // Somebody pushes to the host meanwhile: a push expecting the old head is refused as `moved`, and the host keeps theirs.
    const user = await Checkout.clone(path.join(hostRoot, 'empty.git'), env);
    await user.write('theirs.md', '# Theirs\n');
    const theirs = await user.commit('Theirs');
    await user.push('HEAD:refs/heads/main');
    const tree = (await exec('git', ['--git-dir', store.repositoryPath('space-b'), 'rev-parse', `${first}^{tree}`], { env })).stdout.trim();
    const ours = (await exec('git', ['--git-dir', store.repositoryPath('space-b'), 'commit-tree', tree, '-p', first, '-m', 'Ours'], { env })).stdout.trim();
    const moved = await pushToRemoteBranch(store, 'space-b', remote('empty'), ours, first).catch((error: unknown) => error);
    expect(moved).toBeInstanceOf(RemoteFailure);
    expect((moved as RemoteFailure).reason).toBe('moved');
    expect((await hostLog('empty'))[0]).toBe(theirs);
    // And a push that expects the branch absent, when it exists, is refused the same way.
    expect(((await pushToRemoteBranch(store, 'space-b', remote('empty'), ours, undefined).catch((error: unknown) => error)) as RemoteFailure).reason).toBe('moved');
  });

  it('says the host refused the push, with the hook\'s own words, and changes nothing', async () => {
    await hostRepository('protected', 1);
    const hook = path.join(hostRoot, 'protected.git', 'hooks', 'pre-receive');
    await fs.writeFile(hook, '#!/bin/sh\necho "GH006: Protected branch update failed for refs/heads/main."\nexit 1\n', { mode: 0o755 });
    await store.createRepository('space-c', [{ path: 'README.md', content: '# C\n' }], 'First', AUTHOR);
    const head = await fetchRemoteBranch(store, 'space-c', remote('protected'), 'refs/quire/sync/remote');
    const tree = (await exec('git', ['--git-dir', store.repositoryPath('space-c'), 'rev-parse', `${head}^{tree}`], { env })).stdout.trim();
    const commit = (await exec('git', ['--git-dir', store.repositoryPath('space-c'), 'commit-tree', tree, '-p', head!, '-m', 'Refused'], { env })).stdout.trim();
    const refused = (await pushToRemoteBranch(store, 'space-c', remote('protected'), commit, head).catch((error: unknown) => error)) as RemoteFailure;
    expect(refused).toBeInstanceOf(RemoteFailure);
    expect(refused.reason).toBe('refused');
    expect(refused.message).toContain('GH006: Protected branch update failed');
    expect(await hostLog('protected')).toEqual([head]);
  });

  it('keeps the host branch in a mirror named by its key\'s hash, fetched only when it moved, and brings it into spaces from there', async () => {
    const user = await hostRepository('mirrored', 2);
    for (const id of ['space-m1', 'space-m2']) await store.createRepository(id, [{ path: 'README.md', content: '# M\n' }], 'First', AUTHOR);
    const key = `${host.url}/mirrored.git\nsome credentials\nrefs/heads/main`;
    const mirror = store.mirrorPath(key);
    expect(path.relative(store.mirrorsRoot, mirror)).toMatch(/^([0-9a-f]{2})\/\1[0-9a-f]{62}\.git$/);
    const fetches = host.fetches.length;
    const head = (await hostLog('mirrored'))[0];
    expect(await updateMirror(store, key, remote('mirrored'))).toBe(head);
    // Unchanged on the host: a ref read, no fetch.
    expect(await updateMirror(store, key, remote('mirrored'))).toBe(head);
    expect(host.fetches.slice(fetches)).toEqual(['/mirrored.git/git-upload-pack']);
    // Read first from the ref advertisement (no git process): unchanged, one GET and nothing else.
    const fetcher = new GuardedFetcher({ allow: ['127.0.0.1'], timeoutMs: 10_000 });
    try {
      const before = host.requests.length;
      expect(await updateMirror(store, key, remote('mirrored'), fetcher)).toBe(head);
      expect(host.requests.slice(before)).toEqual(['GET /mirrored.git/info/refs']);
      // Moved: fetched.
      await user.write('page-moved.md', '# Moved\n');
      const moved = await user.commit('Moved');
      await user.push('HEAD:refs/heads/main');
      expect(await updateMirror(store, key, remote('mirrored'), fetcher)).toBe(moved);
      expect(host.fetches.slice(fetches)).toHaveLength(2);
    } finally {
      await fetcher.close();
    }
    const current = (await hostLog('mirrored'))[0];
    for (const id of ['space-m1', 'space-m2']) {
      expect(await fetchFromMirror(store, id, key, 'refs/heads/main', 'refs/quire/sync/remote')).toBe(current);
      expect(await spaceLog(id, 'refs/quire/sync/remote')).toEqual(await hostLog('mirrored'));
    }
    expect(host.fetches.slice(fetches)).toHaveLength(2);
    // The mirror's config names no remote and holds no credentials.
    const config = await fs.readFile(path.join(mirror, 'config'), 'utf8');
    expect(config).not.toContain('remote');
    expect(config).not.toContain(Buffer.from(`docs-bot:${TOKEN}`).toString('base64'));

    // The branch gone from the host: undefined, and the mirror forgets it (a space then has nothing to fetch from it).
    await exec('git', ['--git-dir', path.join(hostRoot, 'mirrored.git'), 'update-ref', '-d', 'refs/heads/main'], { env });
    expect(await updateMirror(store, key, remote('mirrored'))).toBeUndefined();
    const failure = (await fetchFromMirror(store, 'space-m1', key, 'refs/heads/main', 'refs/quire/sync/remote').catch((error: unknown) => error)) as RemoteFailure;
    expect(failure).toBeInstanceOf(RemoteFailure);
    expect(failure.reason).toBe('absent');
    // A wrong token fails as a fetch straight into a space does, and leaves the mirror as it was.
    expect(((await updateMirror(store, key, remote('mirrored', 'glpat-wrong-token-9876543210')).catch((error: unknown) => error)) as RemoteFailure).reason).toBe('auth');
    await user.dispose();
  });

  it('refuses a wrong token as `auth`, and never shows a token on a command line, in a config or a message', async () => {
    await hostRepository('private', 1);
    await store.createRepository('space-d', [{ path: 'README.md', content: '# D\n' }], 'First', AUTHOR);
    const wrong = 'glpat-wrong-token-9876543210';
    const failure = (await remoteHead(store, 'space-d', remote('private', wrong)).catch((error: unknown) => error)) as RemoteFailure;
    expect(failure).toBeInstanceOf(RemoteFailure);
    expect(failure.reason).toBe('auth');
    expect(failure.message).not.toContain(wrong);
    expect(host.authorizations).toContain(basicAuthorization('docs-bot', wrong));

    // While a fetch runs, no process's command line holds the token; afterwards no config of the space's repository does.
    // The host holds the transfer's requests until its git process has been seen (on a busy machine a scan of /proc
    // may take longer than the whole fetch); only processes talking to this host count.
    const seen: string[] = [];
    // The address, not the URL: a URL carrying credentials (`http://user:token@host`) must still be read.
    const hostAddress = new URL(host.url).host;
    const scan = async () => {
      for (const pid of await fs.readdir('/proc').catch(() => [])) {
        if (!/^\d+$/.test(pid)) continue;
        const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (cmdline.includes('git') && cmdline.includes(hostAddress)) seen.push(cmdline.replaceAll('\0', ' '));
      }
      return seen.some((line) => line.includes('ls-remote') || line.includes('fetch'));
    };
    const release = host.hold();
    const fetching = fetchRemoteBranch(store, 'space-d', remote('private'), 'refs/quire/sync/remote');
    let done = false;
    fetching.then(
      () => (done = true),
      () => (done = true),
    );
    try {
      await waitFor(scan, { what: 'the git process of the transfer', intervalMs: 0 });
    } finally {
      release();
    }
    while (!done) {
      await scan();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await fetching).toBe((await hostLog('private'))[0]);
    const encoded = Buffer.from(`docs-bot:${TOKEN}`).toString('base64');
    for (const line of seen) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain(encoded);
    }
    const config = await fs.readFile(path.join(store.repositoryPath('space-d'), 'config'), 'utf8');
    expect(config).not.toContain(TOKEN);
    expect(config).not.toContain(encoded);
  });
});
