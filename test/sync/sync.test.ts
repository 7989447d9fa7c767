/**
 * `quire sync` against a real listening server, with the real git client and real files: edits reach the API,
 * others' pushes reach the folder, conflicts and refused pushes lose nothing, change requests sync their branch,
 * and the command runs and stops cleanly as a process.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { runQuire, spawnQuire } from '../helpers/cli.js';
import { Checkout, isolatedGitEnv } from '../helpers/git.js';
import { Sync, SyncError, type SyncOptions } from '../../src/sync/sync.js';
import { createGit, gitEnvironment } from '../../src/store/git/working-copy.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const temporary: string[] = [];

async function tempDir(prefix = 'quire-sync-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** Until `check` answers something truthy (at most 15 s: a sync cycle runs git several times). */
const eventually = <T>(what: string, check: () => Promise<T>) => waitFor(check, { what, timeoutMs: 15_000 });

describe('quire sync (sqlite)', () => {
  let t: TestApp;
  let base: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let editor: TestUser;
  let gitEnv: NodeJS.ProcessEnv;
  const running: Sync[] = [];
  const checkouts: Checkout[] = [];

  beforeAll(async () => {
    // A user whose git speaks German: the sync must not depend on git's English (it runs git with LC_ALL=C and reads
    // machine-readable output only).
    gitEnv = { ...(await isolatedGitEnv()), LANGUAGE: 'de', LANG: 'C.UTF-8' };
    temporary.push(gitEnv.HOME!);
    t = await startTestApp('sqlite');
    base = await t.listen();
    org = await t.organization('Sync');
    editor = await t.member(org.id, 'edit');
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((sync) => sync.stop()));
    await Promise.all(checkouts.splice(0).map((checkout) => checkout.dispose()));
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(temporary.map((dir) => fs.rm(dir, { recursive: true, force: true })));
  });

  async function newSpace(title = 'Guide'): Promise<string> {
    const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }

  /** Someone else's clone, authenticated with the editor's token in the URL. */
  async function otherClone(spaceId: string): Promise<Checkout> {
    const checkout = await Checkout.clone(`${base.replace('://', `://x:${editor.token}@`)}/git/${spaceId}.git`, gitEnv);
    checkouts.push(checkout);
    return checkout;
  }

  /** Starts a sync of the space into a new folder (or `dir`); `lines` collects what it prints. */
  async function startSync(spaceId: string, options: Partial<SyncOptions> = {}): Promise<{ sync: Sync; dir: string; lines: string[] }> {
    const dir = options.dir ?? path.join(await tempDir(), 'folder');
    const lines: string[] = [];
    const sync = new Sync({
      spaceId,
      dir,
      serverUrl: base,
      token: org.admin.token,
      env: gitEnv,
      debounceMs: 100,
      intervalMs: 300,
      log: (line) => lines.push(line),
      ...options,
    });
    await sync.start();
    running.push(sync);
    return { sync, dir, lines };
  }

  /** A file of a branch in the space's repository on the server; null when it is not there. */
  async function serverFile(spaceId: string, file: string, branch = 'main'): Promise<string | null> {
    try {
      const { stdout } = await exec('git', ['show', `refs/heads/${branch}:${file}`], { env: { ...gitEnv, GIT_DIR: t.container.git.repositoryPath(spaceId) } });
      return stdout;
    } catch {
      return null;
    }
  }

  async function serverRef(spaceId: string, ref: string): Promise<string> {
    const { stdout } = await exec('git', ['rev-parse', ref], { env: { ...gitEnv, GIT_DIR: t.container.git.repositoryPath(spaceId) } });
    return stdout.trim();
  }

  /** The page with this title in the API's current revision of the space. */
  async function apiPage(spaceId: string, title: string): Promise<any> {
    const res = await t.request('GET', `/v1/spaces/${spaceId}/content`, { token: org.admin.token });
    expect(res.status).toBe(200);
    const find = (pages: any[]): any => {
      for (const page of pages) {
        if (page.title === title) return page;
        const inner = find(page.pages ?? []);
        if (inner) return inner;
      }
      return undefined;
    };
    return find(res.body.pages);
  }

  /** Waits for a line of output (the sync prints a push after the server has it, so a check can beat the line). */
  const printed = (lines: string[], line: string) => eventually(`the line "${line}"`, async () => lines.includes(line));

  const read = (dir: string, file: string) => fs.readFile(path.join(dir, file), 'utf8').catch(() => null);
  const write = async (dir: string, file: string, content: string) => {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), content);
  };

  it('clones into a new folder, and an edit saved there reaches the API; temp files and the token stay local', async () => {
    const spaceId = await newSpace();
    const { dir, lines } = await startSync(spaceId);
    expect(lines[0]).toBe(`cloned space ${spaceId} (main) into ${dir}`);
    expect(await read(dir, 'README.md')).toBe('# Guide\n');

    await write(dir, 'getting-started/install.md', '# Install\n\nWritten in the folder.\n');
    await write(dir, 'getting-started/.install.md.swp', 'vim swap');
    await write(dir, 'getting-started/install.md~', 'backup');
    await write(dir, '4913', '');
    await write(dir, '.#install.md', 'emacs lock');
    const page = await eventually('the new page in the API', async () => apiPage(spaceId, 'Install'));
    expect(page.markdown).toBe('Written in the folder.\n');
    expect(page.path).toBe('getting-started/install');
    await printed(lines, 'committed and pushed 1 file: getting-started/install.md');

    await write(dir, 'README.md', '# Guide\n\nNew text from the folder.\n');
    await eventually('the edited README in the API', async () => (await apiPage(spaceId, 'Guide'))?.markdown === 'New text from the folder.\n');
    const { stdout: tree } = await exec('git', ['ls-tree', '-r', '--name-only', 'refs/heads/main'], { env: { ...gitEnv, GIT_DIR: t.container.git.repositoryPath(spaceId) } });
    expect(tree.split('\n').filter(Boolean).sort()).toEqual(['README.md', 'getting-started/install.md']);
    const { stdout: message } = await exec('git', ['log', '-1', '--format=%B', 'refs/heads/main'], { env: { ...gitEnv, GIT_DIR: t.container.git.repositoryPath(spaceId) } });
    expect(message).toContain('README.md (edited)');

    // The token is passed per command: not in the checkout's config, not in the remote URL.
    const config = await fs.readFile(path.join(dir, '.git/config'), 'utf8');
    expect(config).not.toContain(org.admin.token);
    expect(config).toContain(`url = ${base}/git/${spaceId}.git`);
  });

  it('brings a change pushed by someone else into the folder', async () => {
    const spaceId = await newSpace();
    const { dir, lines } = await startSync(spaceId);
    const other = await otherClone(spaceId);
    await other.write('theirs.md', '# Theirs\n\nPushed by someone else.\n');
    await other.write('README.md', '# Guide\n\nEdited elsewhere.\n');
    await other.commitAndPush('Edit elsewhere');

    await eventually('their file in the folder', async () => (await read(dir, 'theirs.md')) === '# Theirs\n\nPushed by someone else.\n');
    expect(await read(dir, 'README.md')).toBe('# Guide\n\nEdited elsewhere.\n');
    await printed(lines, 'pulled 1 commit from the server: README.md, theirs.md');

    // Both directions keep working after a pull: a local edit goes back out.
    await write(dir, 'mine.md', '# Mine\n');
    await eventually('the local file on the server', async () => (await serverFile(spaceId, 'mine.md')) === '# Mine\n');
  });

  it('merges a push that raced a local edit of another file, and pushes again', async () => {
    const spaceId = await newSpace();
    // No polling: the local push is rejected because the server moved, and the sync fetches, merges and retries.
    const { dir, lines } = await startSync(spaceId, { intervalMs: 60_000 });
    const other = await otherClone(spaceId);
    await other.write('theirs.md', '# Theirs\n');
    const theirs = await other.commitAndPush('Theirs');

    await write(dir, 'mine.md', '# Mine\n');
    await eventually('the local file on the server', async () => (await serverFile(spaceId, 'mine.md')) === '# Mine\n');
    expect(await serverFile(spaceId, 'theirs.md')).toBe('# Theirs\n');
    await exec('git', ['merge-base', '--is-ancestor', theirs, 'refs/heads/main'], { env: { ...gitEnv, GIT_DIR: t.container.git.repositoryPath(spaceId) } });
    expect(await read(dir, 'theirs.md')).toBe('# Theirs\n');
    await printed(lines, 'pulled 1 commit from the server: theirs.md');
    await printed(lines, 'committed and pushed 1 file: mine.md');
  });

  it('loses neither side of a conflict, stops syncing the file, and resumes once the server copy is deleted', async () => {
    const spaceId = await newSpace();
    const { sync, dir, lines } = await startSync(spaceId, { intervalMs: 60_000 });
    await write(dir, 'page.md', '# Page\n\nThe first line.\n');
    await eventually('page.md on the server', async () => (await serverFile(spaceId, 'page.md')) === '# Page\n\nThe first line.\n');

    const other = await otherClone(spaceId);
    const theirs = '# Page\n\nThe first line, as they wrote it.\n';
    await other.write('page.md', theirs);
    await other.commitAndPush('Their edit');
    const mine = '# Page\n\nThe first line, as I wrote it.\n';
    await write(dir, 'page.md', mine);

    await eventually('the conflict line', async () => lines.find((line) => line.startsWith('conflict in page.md')));
    expect(lines).toContain(
      'conflict in page.md: your version stays in page.md, the server\'s version is in page.server.md (not synced). ' +
        'page.md stops syncing: merge what you want to keep into page.md, then delete page.server.md and it syncs again',
    );
    await sync.idle();
    // The push that followed carried the server's version: it does not claim to have pushed page.md.
    const sinceConflict = lines.slice(lines.findIndex((line) => line.startsWith('conflict in page.md')));
    expect(sinceConflict.filter((line) => line.includes('pushed') && line.includes('page.md'))).toEqual([]);
    expect(await serverFile(spaceId, 'page.md')).toBe(theirs);
    expect(await serverFile(spaceId, 'page.server.md')).toBeNull();
    expect(await read(dir, 'page.md')).toBe(mine);
    expect(await read(dir, 'page.server.md')).toBe(theirs);
    expect(await fs.readFile(path.join(dir, '.git/info/exclude'), 'utf8')).toContain('\n/page.server.md\n');
    const { stdout: status } = await exec('git', ['status', '--porcelain'], { cwd: dir, env: gitEnv });
    expect(status).toBe(' M page.md\n');

    // Held: further edits of page.md are not committed, while other files still sync.
    await write(dir, 'page.md', `${mine}\nMore of mine.\n`);
    await write(dir, 'other.md', '# Other\n');
    await eventually('other.md on the server', async () => (await serverFile(spaceId, 'other.md')) === '# Other\n');
    expect(await serverFile(spaceId, 'page.md')).toBe(theirs);

    // The server changes the held file again: the server copy follows, the local version stays.
    const theirsAgain = `${theirs}\nAnd more of theirs.\n`;
    await other.git('pull', '--quiet', '--no-rebase', 'origin', 'main');
    await other.write('page.md', theirsAgain);
    await other.commitAndPush('Their second edit');
    await write(dir, 'other.md', '# Other\n\nEdited.\n');
    await eventually('the new server version in page.server.md', async () => (await read(dir, 'page.server.md')) === theirsAgain);
    await printed(lines, "page.md changed on the server again: page.server.md now has the server's new version");
    expect(await read(dir, 'page.md')).toBe(`${mine}\nMore of mine.\n`);
    await eventually('the edited other.md on the server', async () => (await serverFile(spaceId, 'other.md')) === '# Other\n\nEdited.\n');
    expect(await serverFile(spaceId, 'page.md')).toBe(theirsAgain);

    // Reconciled: the person merges by hand and deletes the server copy; the file syncs again.
    const merged = '# Page\n\nThe first line, as we agreed.\n';
    await write(dir, 'page.md', merged);
    await fs.rm(path.join(dir, 'page.server.md'));
    await eventually('the reconciled page.md on the server', async () => (await serverFile(spaceId, 'page.md')) === merged);
    await printed(lines, 'page.server.md was deleted: page.md syncs again');
    expect(await fs.readFile(path.join(dir, '.git/info/exclude'), 'utf8')).not.toContain('page.server.md');
  });

  it('holds a file that is not committed (refused) when the server brings its own version of it', async () => {
    const spaceId = await newSpace();
    const { dir, lines } = await startSync(spaceId, { intervalMs: 60_000 });
    const broken = '---\ntitle: [unclosed\n---\n# Notes\n';
    await write(dir, 'notes.md', broken);
    await printed(lines, 'notes.md stops syncing until you change it (the refused commit is kept as refs/quire/refused)');

    const other = await otherClone(spaceId);
    await other.write('notes.md', '# Notes\n\nTheirs.\n');
    await other.commitAndPush('Their notes');
    // The next local save is pushed, rejected (the server moved), and the merge brings their notes.md over the
    // local, uncommitted one: set aside during the merge, then kept, with theirs next to it.
    await write(dir, 'other.md', '# Other\n');
    await eventually('other.md on the server', async () => (await serverFile(spaceId, 'other.md')) === '# Other\n');
    await printed(
      lines,
      "conflict in notes.md: your version stays in notes.md, the server's version is in notes.server.md (not synced). " +
        'notes.md stops syncing: merge what you want to keep into notes.md, then delete notes.server.md and it syncs again',
    );
    expect(await read(dir, 'notes.md')).toBe(broken);
    expect(await read(dir, 'notes.server.md')).toBe('# Notes\n\nTheirs.\n');
    expect(await serverFile(spaceId, 'notes.md')).toBe('# Notes\n\nTheirs.\n');
  });

  it('prints why the server refused a push, keeps going with the other files, and retries the file once it changes', async () => {
    const spaceId = await newSpace();
    const { sync, dir, lines } = await startSync(spaceId, { intervalMs: 60_000 });
    await write(dir, 'broken.md', '---\ntitle: [unclosed\n---\n# Broken\n');
    await write(dir, 'fine.md', '# Fine\n');
    await eventually('fine.md on the server', async () => (await serverFile(spaceId, 'fine.md')) === '# Fine\n');
    expect(await serverFile(spaceId, 'broken.md')).toBeNull();
    expect(lines.some((line) => /^the server refused the push: broken\.md:\d+: /.test(line))).toBe(true);
    await printed(lines, 'broken.md stops syncing until you change it (the refused commit is kept as refs/quire/refused)');
    expect(await read(dir, 'broken.md')).toBe('---\ntitle: [unclosed\n---\n# Broken\n');
    const { stdout: refused } = await exec('git', ['show', 'refs/quire/refused:broken.md'], { cwd: dir, env: gitEnv });
    expect(refused).toContain('[unclosed');

    // Until it changes, the refused file is not tried again (no second refusal), while other edits sync.
    await write(dir, 'fine.md', '# Fine\n\nStill fine.\n');
    await eventually('the second edit of fine.md on the server', async () => (await serverFile(spaceId, 'fine.md')) === '# Fine\n\nStill fine.\n');
    await sync.idle();
    expect(lines.filter((line) => line.startsWith('the server refused the push')).length).toBe(1);

    await write(dir, 'broken.md', '---\ntitle: Fixed\n---\n# Broken no more\n');
    await eventually('the fixed file on the server', async () => (await serverFile(spaceId, 'broken.md')) === '---\ntitle: Fixed\n---\n# Broken no more\n');
    await printed(lines, 'broken.md changed: syncing it again');
  });

  it('syncs a change request branch and leaves main alone; refuses a change request that does not exist', async () => {
    const spaceId = await newSpace();
    expect((await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Proposal' } })).body.number).toBe(1);
    const other = await otherClone(spaceId);
    await other.write('proposal.md', '# Proposal\n');
    await other.commit('Proposal');
    await other.push('HEAD:refs/heads/change-requests/1');
    const main = await serverRef(spaceId, 'refs/heads/main');

    const { dir, lines } = await startSync(spaceId, { changeRequest: 1 });
    expect(lines[0]).toBe(`cloned space ${spaceId} (change-requests/1) into ${dir}`);
    expect(await read(dir, 'proposal.md')).toBe('# Proposal\n');
    await write(dir, 'proposal.md', '# Proposal\n\nRevised in the folder.\n');
    await eventually('the revision on the change request branch', async () =>
      (await serverFile(spaceId, 'proposal.md', 'change-requests/1')) === '# Proposal\n\nRevised in the folder.\n',
    );
    expect(await serverRef(spaceId, 'refs/heads/main')).toBe(main);
    expect(await serverFile(spaceId, 'proposal.md')).toBeNull();

    // Someone else's push to the change request reaches the folder too.
    await other.git('pull', '--quiet', '--no-rebase', 'origin', 'change-requests/1');
    await other.write('second.md', '# Second\n');
    await other.commit('Second');
    await other.push('HEAD:refs/heads/change-requests/1');
    await eventually('their change request file in the folder', async () => (await read(dir, 'second.md')) === '# Second\n');

    const missing = path.join(await tempDir(), 'missing');
    const sync = new Sync({ spaceId, dir: missing, serverUrl: base, token: org.admin.token, env: gitEnv, changeRequest: 2, log: () => {} });
    const error = await sync.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SyncError);
    expect((error as Error).message).toBe(`space ${spaceId} has no change request 2 on the server (no branch change-requests/2)`);
    await expect(fs.access(missing)).rejects.toThrow();
  });

  it('reuses its checkout after a restart, syncing edits made meanwhile; refuses a folder that is something else', async () => {
    const spaceId = await newSpace();
    const first = await startSync(spaceId);
    await running.pop()!.stop();
    expect(first.lines[first.lines.length - 1]).toBe('stopped');
    await write(first.dir, 'offline.md', '# Offline\n');

    const second = await startSync(spaceId, { dir: first.dir });
    expect(second.lines[0]).toBe(`using the existing checkout in ${first.dir} (main)`);
    // The first sync round of start() pushed the offline edit.
    expect(await serverFile(spaceId, 'offline.md')).toBe('# Offline\n');

    const elsewhere = await tempDir();
    await write(elsewhere, 'notes.txt', 'not a checkout');
    const error = await new Sync({ spaceId, dir: elsewhere, serverUrl: base, token: org.admin.token, env: gitEnv, log: () => {} }).start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncError);
    expect((error as Error).message).toBe(`${elsewhere} is not empty and is not a checkout of space ${spaceId}; use an empty or new folder`);
    const wrongSpace = await new Sync({ spaceId: await newSpace('Third'), dir: first.dir, serverUrl: base, token: org.admin.token, env: gitEnv, log: () => {} })
      .start()
      .catch((e: unknown) => e);
    expect((wrongSpace as Error).message).toMatch(/is not empty and is not a checkout of space/);
  });

  it('on stop, commits and pushes a change still waiting for its debounce', async () => {
    const spaceId = await newSpace();
    const { sync, dir, lines } = await startSync(spaceId, { debounceMs: 30_000, intervalMs: 60_000 });
    await write(dir, 'last.md', '# Last words\n');
    // The watcher has seen the save once a debounce is pending; stop must not drop it.
    await eventually('the watcher to see the save', async () => sync.changePending);
    await sync.stop();
    expect(await serverFile(spaceId, 'last.md')).toBe('# Last words\n');
    expect(lines.slice(-2)).toEqual(['committed and pushed 1 file: last.md', 'stopped']);
  });

  it('runs git commands without simple-git\'s 50 ms completion delay', async () => {
    const spaceId = await newSpace();
    const { dir } = await startSync(spaceId);
    await running.pop()!.stop();
    const git = createGit(dir, gitEnvironment({ base: gitEnv, token: org.admin.token }));
    // The delay is a timer simple-git sets once the command has exited (and again for a command that printed
    // nothing). With the process's timers faked (and never advanced), a command held by one never finishes; each
    // of these finishes. Silent commands are the ones simple-git would hold for 50 ms after they exit.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (const args of [['status', '--porcelain'], ['add', '--all'], ['diff', '--name-only'], ['rev-parse', 'HEAD']]) {
        let finished = false;
        let failed: unknown;
        git.raw(args).then(
          () => (finished = true),
          (error: unknown) => (failed = error),
        );
        // waitFor runs on node's own timers, which are not faked.
        await waitFor(
          () => {
            if (failed) throw failed;
            return finished;
          },
          { what: `git ${args.join(' ')} to finish with no timer running`, timeoutMs: 5_000 },
        );
      }
    } finally {
      vi.useRealTimers();
    }
  });

  describe('as a command', () => {
    it('syncs an edit, and exits 0 on SIGINT', async () => {
      const spaceId = await newSpace();
      const dir = path.join(await tempDir(), 'cli folder');
      const quire = spawnQuire(['sync', spaceId, dir, '--debounce-ms', '100', '--interval-ms', '300'], {
        ...gitEnv,
        QUIRE_URL: base,
        QUIRE_TOKEN: org.admin.token,
      });
      try {
        await quire.waitForOutput(/^watching /m);
        expect(quire.output()).toContain(`cloned space ${spaceId} (main) into ${dir}`);
        await write(dir, 'from-cli.md', '# From the command\n');
        await eventually('the edit on the server', async () => (await serverFile(spaceId, 'from-cli.md')) === '# From the command\n');
        await quire.waitForOutput(/committed and pushed 1 file: from-cli\.md/);
        quire.child.kill('SIGINT');
        expect(await quire.exited).toBe(0);
        expect(quire.output()).toMatch(/stopped\n$/);
      } finally {
        quire.child.kill('SIGKILL');
      }
    });

    it('exits 1 naming QUIRE_TOKEN when it is missing, and when the change request does not exist', async () => {
      const spaceId = await newSpace();
      const dir = path.join(await tempDir(), 'folder');
      const noToken = await runQuire(['sync', spaceId, dir], { ...gitEnv, QUIRE_URL: base, QUIRE_TOKEN: undefined });
      expect(noToken.code).toBe(1);
      expect(noToken.stderr).toMatch(/^quire sync: QUIRE_TOKEN is not set/);
      await expect(fs.access(dir)).rejects.toThrow();

      const noBranch = await runQuire(['sync', spaceId, dir, '--change-request', '7'], { ...gitEnv, QUIRE_URL: base, QUIRE_TOKEN: org.admin.token });
      expect(noBranch.code).toBe(1);
      expect(noBranch.stderr).toBe(`quire sync: space ${spaceId} has no change request 7 on the server (no branch change-requests/7)\n`);

      const badToken = await runQuire(['sync', spaceId, dir], { ...gitEnv, QUIRE_URL: base, QUIRE_TOKEN: 'qt_not_a_real_token' });
      expect(badToken.code).toBe(1);
      expect(badToken.stderr).toBe(`quire sync: could not reach ${base}/git/${spaceId}.git: the server did not accept the token (QUIRE_TOKEN)\n`);

      const unknown = await runQuire(['sync', 'noSuchSpace', dir, '--interval-ms', '500'], { ...gitEnv, QUIRE_URL: base, QUIRE_TOKEN: org.admin.token });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(`quire sync: could not reach ${base}/git/noSuchSpace.git: spaceId: no space "noSuchSpace" is visible to you`);
      await expect(fs.access(dir)).rejects.toThrow();
      // Four runs of the CLI, each a cold Node process: on a loaded 2-core machine that can pass 30 s.
    }, 60_000);
  });
});
