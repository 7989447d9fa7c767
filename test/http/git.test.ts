/**
 * Git over HTTP with the real `git` client against a real listening server: clone, fetch and push with API tokens,
 * the refusals (each one changes nothing), concurrent pushes, and the hook running from the built output; with the
 * server's git processes forked by it and started by its launcher.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { builtMain, freePort, root } from '../helpers/cli.js';
import { isolatedGitEnv } from '../helpers/git.js';
import { GitStore } from '../../src/store/git/repositories.js';
import { waitFor } from '../helpers/wait.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAX_FILE_BYTES = 64 * 1024;
const temporary: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

let gitEnv: NodeJS.ProcessEnv;

/** Runs git with an isolated configuration and no credential helper; never throws. */
function git(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'credential.helper=', ...args], { cwd: options.cwd, env: { ...gitEnv, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs git and fails the test unless it succeeds; returns stdout. */
async function ok(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  const result = await git(args, options);
  expect(result.code, `git ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Writes a tree of one entry line (`mode type oid\tname`) with plumbing, as a crafted push would. */
async function mktree(dir: string, entry: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['mktree'], { cwd: dir, env: gitEnv });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`git mktree failed (${code})`))));
    child.stdin.end(`${entry}\n`);
  });
}

/** Commits `files` (path -> content) in a checkout and returns the commit's oid. */
async function commit(dir: string, files: Record<string, string | Buffer>, message = 'Edit'): Promise<string> {
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), content);
  }
  await ok(['add', '--all'], { cwd: dir });
  await ok(['commit', '--quiet', '-m', message], { cwd: dir });
  return (await ok(['rev-parse', 'HEAD'], { cwd: dir })).trim();
}

afterAll(async () => {
  await Promise.all(temporary.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

// Each git process of the server started directly, and all of them by the launcher (src/store/git/launcher.ts),
// which a server past QUIRE_GIT_LAUNCHER_MB of memory uses.
describe.each([
  ['git processes forked by the server', Number.POSITIVE_INFINITY],
  ['git processes started by the launcher', 0],
])('git over HTTP (sqlite, %s)', (_name, gitLauncherAboveBytes) => {
  let t: TestApp;
  let base: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let editor: TestUser;
  let reader: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    gitEnv = await isolatedGitEnv();
    temporary.push(gitEnv.HOME!);
    t = await startTestApp('sqlite', { gitMaxFileBytes: MAX_FILE_BYTES, gitLauncherAboveBytes });
    base = await t.listen();
    org = await t.organization('Acme');
    editor = await t.member(org.id, 'edit');
    reader = await t.member(org.id, 'read');
    stranger = await t.user();
  });
  afterAll(async () => t?.close());

  /** The repository URL, with the token as the Basic password when given. */
  function repoUrl(spaceId: string, token?: string): string {
    const url = new URL(`${base}/git/${spaceId}.git`);
    if (token) {
      url.username = 'x';
      url.password = token;
    }
    return url.toString();
  }

  async function newSpace(token = org.admin.token): Promise<string> {
    const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Guide' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }

  async function clone(spaceId: string, token = org.admin.token, extra: string[] = []): Promise<string> {
    const dir = await tempDir('quire-clone-');
    await ok([...extra, 'clone', '--quiet', repoUrl(spaceId, token), dir]);
    return dir;
  }

  async function space(spaceId: string): Promise<{ revision: string; updatedAt: string }> {
    const res = await t.request('GET', `/v1/spaces/${spaceId}`, { token: org.admin.token });
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Every ref of the space's repository on the server, with its oid. */
  async function serverRefs(spaceId: string): Promise<string> {
    return ok(['for-each-ref', '--format=%(objectname) %(refname)'], { env: { GIT_DIR: t.container.git.repositoryPath(spaceId) } });
  }

  /** Runs `attempt`, which must fail, and checks that the repository and the space row did not change. */
  async function refused(spaceId: string, attempt: () => Promise<Result>): Promise<string> {
    const refsBefore = await serverRefs(spaceId);
    const before = await space(spaceId);
    const result = await attempt();
    expect(result.code, result.stderr).not.toBe(0);
    expect(await serverRefs(spaceId)).toBe(refsBefore);
    expect(await space(spaceId)).toEqual(before);
    return result.stderr;
  }

  it('clones a new space, pushes a commit, and the space shows it as its revision', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    expect(await fs.readFile(path.join(dir, 'README.md'), 'utf8')).toBe('# Guide\n');
    const before = await space(spaceId);
    expect((await ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()).toBe(before.revision);

    const oid = await commit(dir, { 'README.md': '# Guide\n\nHello.\n', 'getting-started/install.md': '# Install\n' });
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
    const after = await space(spaceId);
    expect(after.revision).toBe(oid);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect((await serverRefs(spaceId)).trim()).toBe(`${oid} refs/heads/main`);
    // The variant this is: the server's git processes came from its launcher, or from itself (a small process).
    expect(t.container.git.launcher.launching).toBe(gitLauncherAboveBytes === 0);
  });

  it('authenticates with a bearer token through http.extraHeader', async () => {
    const spaceId = await newSpace();
    const bearer = ['-c', `http.extraHeader=Authorization: Bearer ${editor.token}`];
    const dir = await tempDir('quire-clone-');
    await ok([...bearer, 'clone', '--quiet', repoUrl(spaceId), dir]);
    const oid = await commit(dir, { 'page.md': '# Page\n' });
    await ok([...bearer, 'push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
    expect((await space(spaceId)).revision).toBe(oid);
  });

  it('fetches what someone else pushed, over protocol v2 and v0', async () => {
    const spaceId = await newSpace();
    const mine = await clone(spaceId);
    const theirs = await clone(spaceId, editor.token, ['-c', 'protocol.version=0']);
    const oid = await commit(theirs, { 'theirs.md': '# Theirs\n' });
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: theirs });

    await ok(['fetch', '--quiet', 'origin'], { cwd: mine });
    expect((await ok(['rev-parse', 'origin/main'], { cwd: mine })).trim()).toBe(oid);
    await ok(['merge', '--quiet', '--ff-only', 'origin/main'], { cwd: mine });
    expect(await fs.readFile(path.join(mine, 'theirs.md'), 'utf8')).toBe('# Theirs\n');

    const next = await commit(mine, { 'mine.md': '# Mine\n' });
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: mine });
    await ok(['-c', 'protocol.version=0', 'pull', '--quiet', '--ff-only'], { cwd: theirs });
    expect((await ok(['rev-parse', 'HEAD'], { cwd: theirs })).trim()).toBe(next);
  });

  it('clones partially (--filter=blob:none): blobs come when a checkout needs them, never those of another space', async () => {
    const spaceId = await newSpace();
    const writer = await clone(spaceId);
    const first = await commit(writer, { 'page.md': '# Page\n\nFirst words.\n', '.gitbook/assets/old.bin': crypto.randomBytes(4096) }, 'First');
    await commit(writer, { 'page.md': '# Page\n\nSecond words.\n' }, 'Second');
    await fs.rm(path.join(writer, '.gitbook/assets/old.bin'));
    await ok(['push', '--quiet', 'origin', `${await commit(writer, {}, 'Third')}:refs/heads/main`], { cwd: writer });
    const oldPage = (await ok(['rev-parse', `${first}:page.md`], { cwd: writer })).trim();
    const oldAsset = (await ok(['rev-parse', `${first}:.gitbook/assets/old.bin`], { cwd: writer })).trim();

    const partial = path.join(await tempDir('quire-partial-'), 'clone');
    const cloned = await git(['clone', '--filter=blob:none', repoUrl(spaceId, editor.token), partial]);
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(cloned.stderr).not.toContain('filtering not recognized by server');
    expect((await ok(['config', 'remote.origin.partialclonefilter'], { cwd: partial })).trim()).toBe('blob:none');
    // Only the blobs of the checkout came: those of earlier commits are missing, to be fetched when needed.
    const missing = async () =>
      (await ok(['rev-list', '--objects', '--all', '--missing=print'], { cwd: partial }))
        .split('\n')
        .filter((line) => line.startsWith('?'))
        .map((line) => line.slice(1));
    expect((await missing()).sort()).toEqual([oldPage, oldAsset].sort());
    await ok(['checkout', '--quiet', first], { cwd: partial });
    expect(await fs.readFile(path.join(partial, 'page.md'), 'utf8')).toBe('# Page\n\nFirst words.\n');
    expect(await missing()).toEqual([]);

    // An object of another space is not there to fetch, by a filtered fetch or any other.
    const otherSpace = await newSpace();
    const otherDir = await clone(otherSpace);
    await commit(otherDir, { 'secret.md': '# Secret\n\nOnly for the other space.\n' });
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: otherDir });
    const secret = (await ok(['rev-parse', 'HEAD:secret.md'], { cwd: otherDir })).trim();
    const secretCommit = (await ok(['rev-parse', 'HEAD'], { cwd: otherDir })).trim();
    for (const oid of [secret, secretCommit]) {
      const fetched = await git(['fetch', '--filter=blob:none', 'origin', oid], { cwd: partial });
      expect(fetched.code).not.toBe(0);
      expect(fetched.stderr).toContain(`not our ref ${oid}`);
      expect((await git(['cat-file', '-e', oid], { cwd: partial })).code).not.toBe(0);
    }
    // Protocol v0 asks for what the advertisement lists only (no allowAnySHA1InWant, no tip or reachable wants).
    const authorization = `Basic ${Buffer.from(`x:${org.admin.token}`).toString('base64')}`;
    const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;
    const res = await fetch(`${base}/git/${spaceId}.git/git-upload-pack`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-git-upload-pack-request' },
      body: `${pkt(`want ${secret} filter\n`)}${pkt('filter blob:none\n')}0000${pkt('done\n')}`,
    });
    const answer = await res.text();
    expect(answer).toContain(`not our ref ${secret}`);
    expect(answer).not.toContain('PACK');
  });

  it('speaks the smart protocol: advertisements for v0 and v2, no caching, gzip request bodies', async () => {
    const spaceId = await newSpace();
    const main = (await space(spaceId)).revision;
    const authorization = `Basic ${Buffer.from(`x:${org.admin.token}`).toString('base64')}`;

    const v0 = await fetch(`${base}/git/${spaceId}.git/info/refs?service=git-upload-pack`, { headers: { authorization } });
    expect(v0.status).toBe(200);
    expect(v0.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers.get('cache-control')).toBe('no-cache, max-age=0, must-revalidate');
    expect(v0.headers.get('pragma')).toBe('no-cache');
    const v0Body = await v0.text();
    expect(v0Body.startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    expect(v0Body).toContain(`${main} HEAD`);

    const v2 = await fetch(`${base}/git/${spaceId}.git/info/refs?service=git-upload-pack`, { headers: { authorization, 'git-protocol': 'version=2' } });
    expect(v2.status).toBe(200);
    expect(await v2.text()).toMatch(/^000eversion 2\n/);

    const push = await fetch(`${base}/git/${spaceId}.git/info/refs?service=git-receive-pack`, { headers: { authorization } });
    expect(push.headers.get('content-type')).toBe('application/x-git-receive-pack-advertisement');
    expect(await push.text()).toMatch(/^001f# service=git-receive-pack\n0000/);

    // A v0 fetch request, gzipped as git sends large negotiations.
    const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;
    const request = `${pkt(`want ${main}\n`)}0000${pkt('done\n')}`;
    const res = await fetch(`${base}/git/${spaceId}.git/git-upload-pack`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body: zlib.gzipSync(request),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(res.headers.get('expires')).toBe('Fri, 01 Jan 1980 00:00:00 GMT');
    const pack = Buffer.from(await res.arrayBuffer());
    expect(pack.subarray(0, 8).toString()).toBe('0008NAK\n');
    expect(pack.subarray(8, 12).toString()).toBe('PACK');

    const wrongType = await fetch(`${base}/git/${spaceId}.git/git-upload-pack`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'text/plain' },
      body: request,
    });
    expect(wrongType.status).toBe(415);
    const dumb = await fetch(`${base}/git/${spaceId}.git/info/refs`, { headers: { authorization } });
    expect(dumb.status).toBe(400);
  });

  it('accepts a push larger than the JSON body limit', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 40; i++) files[`.gitbook/assets/file-${i}.bin`] = crypto.randomBytes(MAX_FILE_BYTES - 1024);
    const oid = await commit(dir, files);
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
    expect((await space(spaceId)).revision).toBe(oid);
  });

  it('refuses without credentials (401 asking for Basic) or with a wrong token, and changes nothing', async () => {
    const spaceId = await newSpace();
    const res = await fetch(`${base}/git/${spaceId}.git/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="Quire"');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/^authorization: use your API token as the password/);
    const push = await fetch(`${base}/git/${spaceId}.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    expect(push.status).toBe(401);

    const noToken = await refused(spaceId, async () => git(['clone', repoUrl(spaceId), path.join(await tempDir('quire-clone-'), 'c')]));
    expect(noToken).toMatch(/could not read Username|terminal prompts disabled/);

    const wrongToken = await refused(spaceId, async () => git(['clone', repoUrl(spaceId, 'qt_not_a_real_token'), path.join(await tempDir('quire-clone-'), 'c')]));
    expect(wrongToken).toContain('remote: authorization: the token is not valid');
    expect(wrongToken).toContain('Authentication failed');

    const dir = await clone(spaceId);
    await commit(dir, { 'page.md': '# Page\n' });
    await ok(['remote', 'set-url', 'origin', repoUrl(spaceId)], { cwd: dir });
    const pushNoToken = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(pushNoToken).toMatch(/could not read Username|terminal prompts disabled/);
    await ok(['remote', 'set-url', 'origin', repoUrl(spaceId, 'qt_not_a_real_token')], { cwd: dir });
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }))).toContain('Authentication failed');
  });

  it('answers "not found" to someone who cannot see the space, and for deleted or unknown spaces', async () => {
    const spaceId = await newSpace();
    const strangerClone = await refused(spaceId, async () => git(['clone', repoUrl(spaceId, stranger.token), path.join(await tempDir('quire-clone-'), 'c')]));
    expect(strangerClone).toContain(`remote: spaceId: no space "${spaceId}" is visible to you`);
    expect(strangerClone).toMatch(/repository '.*' not found/);

    const dir = await clone(spaceId);
    await commit(dir, { 'page.md': '# Page\n' });
    await ok(['remote', 'set-url', 'origin', repoUrl(spaceId, stranger.token)], { cwd: dir });
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }))).toMatch(/repository '.*' not found/);

    expect((await t.request('DELETE', `/v1/spaces/${spaceId}`, { token: org.admin.token })).status).toBe(205);
    const deleted = await git(['ls-remote', repoUrl(spaceId, org.admin.token)]);
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toMatch(/repository '.*' not found/);
    const unknown = await git(['ls-remote', repoUrl('no_such_space', org.admin.token)]);
    expect(unknown.stderr).toMatch(/repository '.*' not found/);
  });

  it('lets a read-only member clone but not push (403)', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId, reader.token);
    await commit(dir, { 'page.md': '# Page\n' });
    const stderr = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(stderr).toContain('remote: you need the "edit" permission on this space to push to it');
    expect(stderr).toContain('403');
  });

  it('refuses pushes to a locked space, even from its admin, while clones still work', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    await commit(dir, { 'page.md': '# Page\n' });
    expect((await t.request('PATCH', `/v1/spaces/${spaceId}`, { token: org.admin.token, body: { editMode: 'locked' } })).status).toBe(200);
    const stderr = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(stderr).toContain(`remote: space "${spaceId}" is locked: it refuses pushes`);
    expect(stderr).toContain('403');
    await clone(spaceId);

    expect((await t.request('PATCH', `/v1/spaces/${spaceId}`, { token: org.admin.token, body: { editMode: 'live' } })).status).toBe(200);
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
  });

  it('accepts main and change-request branches only, and never deletes main', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId, editor.token);
    const oid = await commit(dir, { 'page.md': '# Page\n' });

    const other = await refused(spaceId, () => git(['push', 'origin', 'HEAD:refs/heads/other'], { cwd: dir }));
    expect(other).toContain('remote: Quire refused the push (nothing was changed):');
    expect(other).toContain('remote:   refs/heads/other: only refs/heads/main, refs/heads/change-requests/<number> and tags accept pushes');
    expect(other).toContain('pre-receive hook declined');
    for (const ref of ['refs/heads/change-requests/0', 'refs/heads/change-requests/abc', 'refs/heads/main/x', 'refs/notes/x']) {
      expect(await refused(spaceId, () => git(['push', 'origin', `HEAD:${ref}`], { cwd: dir }))).toContain(`${ref}: only refs/heads/main`);
    }
    // One bad ref refuses the whole push.
    expect(await refused(spaceId, () => git(['push', '--atomic', 'origin', 'HEAD:main', 'HEAD:refs/heads/other'], { cwd: dir }))).toContain('refs/heads/other');
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:main', 'HEAD:refs/heads/other'], { cwd: dir }))).toContain('refs/heads/other');

    const deletion = await refused(spaceId, () => git(['push', 'origin', '--delete', 'main'], { cwd: dir }));
    expect(deletion).toContain('remote:   refs/heads/main: main cannot be deleted');

    // A change request's branch takes pushes once the change request exists, and until it is merged or archived.
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:refs/heads/change-requests/1'], { cwd: dir }))).toContain(
      'refs/heads/change-requests/1: there is no change request 1 in this space; open one through the API first',
    );
    expect((await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Branch' } })).body.number).toBe(1);
    const before = (await space(spaceId)).revision;
    await ok(['push', '--quiet', 'origin', 'HEAD:refs/heads/change-requests/1'], { cwd: dir });
    expect(await serverRefs(spaceId)).toContain(`${oid} refs/heads/change-requests/1`);
    // A change-request branch is not the space's revision.
    expect((await space(spaceId)).revision).toBe(before);
    await t.request('PATCH', `/v1/spaces/${spaceId}/change-requests/1`, { token: org.admin.token, body: { status: 'archived' } });
    await commit(dir, { 'more.md': '# More\n' });
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:refs/heads/change-requests/1'], { cwd: dir }))).toContain(
      'refs/heads/change-requests/1: change request 1 is archived; it takes no more pushes',
    );
    await ok(['push', '--quiet', 'origin', '--delete', 'refs/heads/change-requests/1'], { cwd: dir });
  });

  it('refuses a push whose check is decided before its object reads are answered, and the server lives on', async () => {
    // The second push brings no commit (its tip is main's) and its SUMMARY.md and pages were parsed by the first:
    // its check reads nothing, and it is decided while the read of SUMMARY.md, asked in advance, is still pending.
    const spaceId = await newSpace();
    const dir = await clone(spaceId, editor.token);
    const oid = await commit(dir, { 'SUMMARY.md': '# Summary\n\n* [Guide](README.md)\n* [Page](page.md)\n', 'page.md': '# Page\n' });
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
    const refusal = await refused(spaceId, () => git(['push', 'origin', 'HEAD:refs/heads/other'], { cwd: dir }));
    expect(refusal).toContain('refs/heads/other: only refs/heads/main');
    expect((await space(spaceId)).revision).toBe(oid);
  });

  it('keeps tags pushed beside main (git push --follow-tags), annotated or not, and refuses a tag of anything but a commit', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId, editor.token);
    const first = await commit(dir, { 'page.md': '# Page\n' }, 'First');
    await ok(['tag', '--annotate', '--message', 'Release 1', 'v1'], { cwd: dir });
    await ok(['tag', 'light'], { cwd: dir });
    // A tag of a commit of another line: its files follow the rules of every pushed file, not the content checks.
    await ok(['checkout', '--quiet', '-b', 'old'], { cwd: dir });
    await commit(dir, { 'old.md': '---\ndescription: [unclosed\n---\n# Old\n' }, 'Old');
    await ok(['tag', '--annotate', '--message', 'Old release', 'v0'], { cwd: dir });
    await ok(['checkout', '--quiet', 'main'], { cwd: dir });

    const pushed = await git(['push', '--follow-tags', 'origin', 'HEAD:main'], { cwd: dir });
    expect(pushed.code, pushed.stderr).toBe(0);
    const v1 = (await ok(['rev-parse', 'v1'], { cwd: dir })).trim();
    expect(await serverRefs(spaceId)).toBe(`${first} refs/heads/main\n${v1} refs/tags/v1\n`);
    expect((await space(spaceId)).revision).toBe(first);
    await ok(['push', '--quiet', 'origin', 'light', 'v0'], { cwd: dir });
    const v0 = (await ok(['rev-parse', 'v0'], { cwd: dir })).trim();
    expect(await serverRefs(spaceId)).toBe(`${first} refs/heads/main\n${first} refs/tags/light\n${v0} refs/tags/v0\n${v1} refs/tags/v1\n`);
    // A clone gets them; a tag moves and goes as a branch does.
    const other = await clone(spaceId);
    expect((await ok(['tag', '--list'], { cwd: other })).split('\n').filter(Boolean)).toEqual(['light', 'v0', 'v1']);
    await ok(['push', '--quiet', 'origin', '--delete', 'refs/tags/light'], { cwd: dir });
    expect(await serverRefs(spaceId)).not.toContain('refs/tags/light');

    // A tag of a blob or a tree (annotated or not) refuses the whole push, naming the tag.
    const second = await commit(dir, { 'more.md': '# More\n' }, 'Second');
    const blob = (await ok(['rev-parse', 'HEAD:more.md'], { cwd: dir })).trim();
    await ok(['tag', 'a-blob', blob], { cwd: dir });
    await ok(['tag', '--annotate', '--message', 'A tree', 'a-tree', 'HEAD^{tree}'], { cwd: dir });
    const refusal = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main', 'a-blob', 'a-tree'], { cwd: dir }));
    expect(refusal).toContain('remote:   refs/tags/a-blob: must point at a commit (or at a tag of one), not a blob');
    expect(refusal).toContain('remote:   refs/tags/a-tree: must point at a commit (or at a tag of one), not a tree');
    // What a tag brings follows the file rules: a file over the limit refuses it.
    await ok(['checkout', '--quiet', '-b', 'big'], { cwd: dir });
    await commit(dir, { 'big.bin': Buffer.alloc(MAX_FILE_BYTES + 1, 1) }, 'Big');
    await ok(['tag', 'big-release'], { cwd: dir });
    await ok(['checkout', '--quiet', 'main'], { cwd: dir });
    expect(await refused(spaceId, () => git(['push', 'origin', 'big-release'], { cwd: dir }))).toContain('remote:   big.bin: is 64 KiB (65537 bytes), more than the 64 KiB a file may have');
    await ok(['push', '--quiet', '--follow-tags', 'origin', 'HEAD:main'], { cwd: dir });
    expect((await space(spaceId)).revision).toBe(second);
  });

  it('refuses a file larger than the limit, naming it, and accepts one at the limit', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    await commit(dir, { 'page.md': '# Page\n', '.gitbook/assets/big.bin': crypto.randomBytes(MAX_FILE_BYTES + 1) });
    const stderr = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(stderr).toContain(`remote:   .gitbook/assets/big.bin: is 64 KiB (${MAX_FILE_BYTES + 1} bytes), more than the 64 KiB a file may have`);

    // Removing it in a later commit does not help: every pushed commit is checked.
    await ok(['rm', '--quiet', '.gitbook/assets/big.bin'], { cwd: dir });
    await ok(['commit', '--quiet', '-m', 'Remove'], { cwd: dir });
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }))).toContain('.gitbook/assets/big.bin: is 64 KiB');

    await ok(['reset', '--quiet', '--hard', 'origin/main'], { cwd: dir });
    const oid = await commit(dir, { '.gitbook/assets/fits.bin': crypto.randomBytes(MAX_FILE_BYTES) });
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
    expect((await space(spaceId)).revision).toBe(oid);
  });

  it('refuses symlinks: those that leave the tree as escapes, the others as unsupported content', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    await fs.mkdir(path.join(dir, 'docs'));
    await fs.symlink('../../etc/passwd', path.join(dir, 'docs/passwd.md'));
    await commit(dir, {});
    const stderr = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(stderr).toContain('remote:   docs/passwd.md: is a symlink to "../../etc/passwd", outside the tree');

    await ok(['reset', '--quiet', '--hard', 'origin/main'], { cwd: dir });
    await fs.symlink('/etc/passwd', path.join(dir, 'absolute.md'));
    await commit(dir, {});
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }))).toContain('absolute.md: is a symlink to "/etc/passwd", outside the tree');

    // A page behind a symlink would silently not show: refused with the reason.
    await ok(['reset', '--quiet', '--hard', 'origin/main'], { cwd: dir });
    await fs.symlink('README.md', path.join(dir, 'alias.md'));
    await commit(dir, {});
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }))).toContain('remote:   alias.md: symbolic links are not supported');
  });

  it('refuses content that does not parse, naming the file and line, and changes nothing', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    await commit(dir, { 'guide.md': '---\ntitle: [unclosed\n---\n# Guide\n' });
    const yaml = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(yaml).toMatch(/remote: {3}guide\.md:\d+: /);
    expect(yaml).toContain('pre-receive hook declined');

    await ok(['reset', '--quiet', '--hard', 'origin/main'], { cwd: dir });
    await commit(dir, { 'hidden.md': '---\nhidden: "yes"\n---\n# Hidden\n', 'SUMMARY.md': '* [Hidden](hidden.md)\n* [Missing](missing.md)\n' });
    const types = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(types).toMatch(/remote: {3}hidden\.md:2: .*hidden/);
    // Warnings are printed apart from the errors that refuse the push.
    expect(types).toContain('remote: warning: SUMMARY.md:2: the listed file missing.md does not exist');
  });

  it('accepts what the hosted platform tolerates, printing warnings', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    const oid = await commit(dir, {
      'SUMMARY.md': '# Table of contents\n\n* [Guide](guide.md)\n* not a link\n* [Missing](missing.md)\n* [Guide again](guide.md)\n',
      'guide.md': '---\ncover: gone.png\nsomethingNew: 1\n---\n# Guide\n',
      '.gitbook.yaml': '',
      'extra.md': '# Not listed\n',
    });
    const pushed = await git(['push', 'origin', 'HEAD:main'], { cwd: dir });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect((await space(spaceId)).revision).toBe(oid);
    expect(pushed.stderr).toContain('remote: warning: SUMMARY.md:4: an item is a link');
    expect(pushed.stderr).toContain('remote: warning: SUMMARY.md:5: the listed file missing.md does not exist');
    expect(pushed.stderr).toContain('remote: warning: SUMMARY.md:6: guide.md is already listed on line 3');
    expect(pushed.stderr).toContain('remote: warning: guide.md:2: front matter `cover` names gone.png');
    expect(pushed.stderr).not.toContain('extra.md');
    expect(pushed.stderr).not.toContain('somethingNew');
  });

  it('checks a push that only edits pages as a whole check would: errors of the edited page, warnings of the others', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    await commit(dir, {
      'SUMMARY.md': '# Table of contents\n\n* [Guide](guide.md)\n* [Cover](cover.md)\n* [Missing](missing.md)\n',
      'guide.md': '# Guide\n',
      'cover.md': '---\ncover: gone.png\n---\n# Cover\n',
    });
    const first = await git(['push', 'origin', 'HEAD:main'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);

    // The edited page breaks: refused, naming it; the other pages' warnings are printed again.
    await commit(dir, { 'guide.md': '---\nhidden: "yes"\n---\n# Guide\n' });
    const broken = await refused(spaceId, () => git(['push', 'origin', 'HEAD:main'], { cwd: dir }));
    expect(broken).toMatch(/remote: {3}guide\.md:2: .*hidden/);
    expect(broken).toContain('remote: warning: cover.md:2: front matter `cover` names gone.png');
    expect(broken).toContain('remote: warning: SUMMARY.md:5: the listed file missing.md does not exist');

    // Fixed, and the cover page's warning fixed too: nothing is printed but what is left.
    await commit(dir, { 'guide.md': '# Guide\n\nFixed.\n', 'cover.md': '# Cover\n' });
    const fixed = await git(['push', 'origin', 'HEAD:main'], { cwd: dir });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stderr).not.toContain('guide.md');
    expect(fixed.stderr).not.toContain('cover.md');
    expect(fixed.stderr).toContain('remote: warning: SUMMARY.md:5: the listed file missing.md does not exist');
    expect((await space(spaceId)).revision).toBe((await ok(['rev-parse', 'HEAD'], { cwd: dir })).trim());
  });

  it('refuses crafted trees with ".." or ".git" entries', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    await fs.writeFile(path.join(dir, 'blob.txt'), 'crafted\n');
    const blob = (await ok(['hash-object', '-w', 'blob.txt'], { cwd: dir })).trim();
    for (const [entry, message] of [
      [`100644 blob ${blob}\t..`, '..: has an empty, "." or ".." segment: paths must stay inside the tree'],
      [`040000 tree ${await mktree(dir, `100644 blob ${blob}\tconfig`)}\t.GIT`, '.GIT/config: is inside a ".git" folder'],
    ]) {
      const tree = await mktree(dir, entry);
      const crafted = (await ok(['commit-tree', tree, '-p', 'HEAD', '-m', 'Crafted'], { cwd: dir })).trim();
      const stderr = await refused(spaceId, () => git(['push', 'origin', `${crafted}:refs/heads/main`], { cwd: dir }));
      expect(stderr).toContain(`remote:   ${message}`);
    }
  });

  it('checks pushes to repositories made before hooks existed, and refuses pushes that bypass the server', async () => {
    const spaceId = await newSpace();
    const gitDir = t.container.git.repositoryPath(spaceId);
    await fs.rm(path.join(gitDir, 'hooks'), { recursive: true, force: true });
    const dir = await clone(spaceId);
    await commit(dir, { 'page.md': '# Page\n' });
    expect(await refused(spaceId, () => git(['push', 'origin', 'HEAD:refs/heads/other'], { cwd: dir }))).toContain('refs/heads/other: only');
    expect((await fs.stat(path.join(gitDir, 'hooks/pre-receive'))).mode & 0o111).not.toBe(0);

    const direct = await refused(spaceId, () => git(['push', gitDir, 'HEAD:main'], { cwd: dir }));
    expect(direct).toContain('Quire: pushes are accepted only through the Quire server');
  });

  it('keeps every commit when two clients push to main at once: one wins, the other is rejected and retries', async () => {
    const spaceId = await newSpace();
    for (let round = 0; round < 3; round++) {
      const a = await clone(spaceId);
      const b = await clone(spaceId, editor.token);
      const oidA = await commit(a, { [`a-${round}.md`]: '# A\n' }, `A ${round}`);
      const oidB = await commit(b, { [`b-${round}.md`]: '# B\n' }, `B ${round}`);
      const [pushA, pushB] = await Promise.all([git(['push', 'origin', 'HEAD:main'], { cwd: a }), git(['push', 'origin', 'HEAD:main'], { cwd: b })]);
      expect([pushA.code, pushB.code].filter((code) => code === 0), `${pushA.stderr}\n${pushB.stderr}`).toHaveLength(1);
      const [winner, loser, loserDir] = pushA.code === 0 ? [oidA, pushB, b] : [oidB, pushA, a];
      expect(loser.stderr).toMatch(/rejected|failed to update ref|fetch first|non-fast-forward/);
      expect((await serverRefs(spaceId)).trim()).toBe(`${winner} refs/heads/main`);
      expect((await space(spaceId)).revision).toBe(winner);

      await ok(['pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main'], { cwd: loserDir });
      await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: loserDir });
      const main = (await ok(['rev-parse', 'refs/heads/main'], { env: { GIT_DIR: t.container.git.repositoryPath(spaceId) } })).trim();
      for (const oid of [oidA, oidB]) {
        await ok(['merge-base', '--is-ancestor', oid, main], { env: { GIT_DIR: t.container.git.repositoryPath(spaceId) } });
      }
      expect((await space(spaceId)).revision).toBe(main);
    }
    const fsck = await ok(['fsck', '--full', '--strict'], { env: { GIT_DIR: t.container.git.repositoryPath(spaceId) } });
    expect(fsck).not.toMatch(/error|missing|broken/);
    const files = await ok(['ls-tree', '--name-only', 'refs/heads/main'], { env: { GIT_DIR: t.container.git.repositoryPath(spaceId) } });
    expect(files.split('\n').filter((name) => /^[ab]-\d\.md$/.test(name)).sort()).toEqual(['a-0.md', 'a-1.md', 'a-2.md', 'b-0.md', 'b-1.md', 'b-2.md']);
  });
});

describe('git over HTTP from the built output (node dist/src/main.js)', () => {
  it('checks pushes with the built server, whose hook starts no node', async () => {
    gitEnv ??= await isolatedGitEnv();
    // The build (`npm run build`, which `npm install` runs), copied to a path with spaces: the hook script must quote them.
    const out = await tempDir('quire dist ');
    await fs.cp(path.dirname(path.dirname(builtMain())), out, { recursive: true });
    await fs.copyFile(path.join(root, 'package.json'), path.join(out, 'package.json'));
    await fs.symlink(path.join(root, 'node_modules'), path.join(out, 'node_modules'), 'dir');

    const dataDir = await tempDir('quire dist data ');
    const port = await freePort();
    const env = { ...process.env, QUIRE_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', QUIRE_LOG_LEVEL: 'warn', QUIRE_GIT_MAX_FILE_BYTES: '1000' };
    const main = path.join(out, 'src/main.js');
    const bootstrap = await new Promise<Result>((resolve, reject) => {
      const child = spawn(process.execPath, [main, 'admin', 'bootstrap', '--init', '--email', 'dist@example.com', '--org', 'Dist'], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const { token, organization } = JSON.parse(bootstrap.stdout) as { token: string; organization: { id: string } };

    const server = spawn(process.execPath, [main, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (d) => (output += d));
    server.stderr.on('data', (d) => (output += d));
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(
        () => {
          if (server.exitCode !== null) throw new Error(`the built server exited with ${server.exitCode}: ${output}`);
          return fetch(`${base}/v1/openapi.json`).then((res) => res.ok, () => false);
        },
        { what: 'the built server to answer', timeoutMs: 20_000, intervalMs: 100 },
      );
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${base}/v1/orgs/${organization.id}/spaces`, { method: 'POST', headers, body: JSON.stringify({ title: 'Dist' }) });
      expect(created.status).toBe(201);
      const spaceId = ((await created.json()) as { id: string }).id;

      const dir = await tempDir('quire-clone-');
      await ok(['clone', '--quiet', `http://x:${token}@127.0.0.1:${port}/git/${spaceId}.git`, dir]);
      await commit(dir, { 'big.bin': crypto.randomBytes(1001) });
      const tooBig = await git(['push', 'origin', 'HEAD:main'], { cwd: dir });
      expect(tooBig.code).not.toBe(0);
      expect(tooBig.stderr).toContain('remote:   big.bin: is 1001 bytes, more than the 1000 bytes a file may have');

      await ok(['reset', '--quiet', '--hard', 'origin/main'], { cwd: dir });
      const oid = await commit(dir, { 'page.md': '# Page\n' });
      await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
      const read = await fetch(`${base}/v1/spaces/${spaceId}`, { headers });
      expect(((await read.json()) as { revision: string }).revision).toBe(oid);
      const hook = await fs.readFile(path.join(new GitStore(dataDir).repositoryPath(spaceId), 'hooks/pre-receive'), 'utf8');
      expect(hook).toMatch(/^#!\/bin\/sh\n/);
      expect(hook).toContain('$QUIRE_PUSH_CHANNEL');
      expect(hook).not.toMatch(/node/i);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => (server.exitCode !== null ? resolve(undefined) : server.once('exit', resolve)));
    }
  }, 120_000);
});
