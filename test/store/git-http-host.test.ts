/**
 * The tests' and benchmarks' git host (test/helpers/git-http-server.ts) answering the smart protocol directly, one
 * git process per call, serves what git's own http-backend serves: the same ref listings in protocol v0 and v2, a
 * clone, a push (only with credentials) and a fetch of what was pushed, and a 404 for a repository it does not hold.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { isolatedGitEnv } from '../helpers/git.js';

const exec = promisify(execFile);
const AUTH = { username: 'host-user', password: 'host-secret' };

describe('the test git host answering directly', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  let cgi: GitHttpServer;
  let direct: GitHttpServer;
  const git = (args: string[], cwd?: string) => exec('git', args, { env, ...(cwd ? { cwd } : {}) }).then(({ stdout }) => stdout);
  const withAuth = (url: string) => url.replace('http://', `http://${AUTH.username}:${AUTH.password}@`);

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-git-host-'));
    env = await isolatedGitEnv();
    const work = path.join(root, 'work');
    await git(['init', '--quiet', '--initial-branch', 'main', work]);
    await fs.writeFile(path.join(work, 'README.md'), '# Host\n');
    await git(['add', '--all'], work);
    await git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'First'], work);
    await git(['tag', 'v1'], work);
    await git(['clone', '--quiet', '--bare', work, path.join(root, 'docs.git')]);
    cgi = await startGitHttpServer(root, { auth: AUTH });
    direct = await startGitHttpServer(root, { auth: AUTH, direct: true });
  });

  afterAll(async () => {
    await Promise.all([cgi.close(), direct.close()]);
    await fs.rm(root, { recursive: true, force: true });
  });

  it('lists the same refs as http-backend in protocol v0 and v2', async () => {
    for (const version of ['0', '2']) {
      const listed = async (host: GitHttpServer) => git(['-c', `protocol.version=${version}`, 'ls-remote', withAuth(`${host.url}/docs.git`)]);
      const expected = await listed(cgi);
      expect(expected).toMatch(/refs\/heads\/main\n/);
      expect(expected).toMatch(/refs\/tags\/v1\n/);
      expect(await listed(direct)).toBe(expected);
    }
    // A ref listing is no fetch.
    expect(direct.fetches).toEqual([]);
  });

  it('clones, takes a push only with credentials, and serves what was pushed', async () => {
    const clone = path.join(root, 'clone');
    await git(['clone', '--quiet', withAuth(`${direct.url}/docs.git`), clone]);
    expect(direct.fetches).toEqual(['/docs.git/git-upload-pack']);
    await fs.writeFile(path.join(clone, 'page.md'), '# Page\n');
    await git(['add', '--all'], clone);
    await git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'A page'], clone);
    const pushed = (await git(['rev-parse', 'HEAD'], clone)).trim();
    await expect(git(['push', '--quiet', `${direct.url}/docs.git`, 'main'], clone)).rejects.toThrow();
    await git(['push', '--quiet', 'origin', 'main'], clone);
    expect((await git(['--git-dir', path.join(root, 'docs.git'), 'rev-parse', 'refs/heads/main'])).trim()).toBe(pushed);
    const again = path.join(root, 'again');
    await git(['clone', '--quiet', withAuth(`${cgi.url}/docs.git`), again]);
    expect((await git(['rev-parse', 'HEAD'], again)).trim()).toBe(pushed);
  });

  it('answers 404 for a repository it does not hold, inside its root or outside', async () => {
    for (const name of ['absent.git', '..%2Fdocs.git', '%2E%2E/%2E%2E/etc']) {
      const answer = await fetch(`${direct.url}/${name}/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from(`${AUTH.username}:${AUTH.password}`).toString('base64')}` },
      });
      expect(answer.status).toBe(404);
    }
  });
});
