/**
 * Concurrent writers of one space: every push either lands or is told to fetch first, never
 * `cannot lock ref`; ref moves are serialized per repository by a lock file that other processes respect and that
 * a killed holder does not leave behind; the pre-receive hook hands the push to the server and refuses without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isolatedGitEnv } from '../helpers/git.js';
import { PUSH_REFUSED_MARKER } from '../../src/content/push-messages.js';
import { LOCK_FILE, RefLockTimeout } from '../../src/store/git/ref-lock.js';
import { GitStore } from '../../src/store/git/repositories.js';
import { PushChannel } from '../../src/store/git/push-channel.js';
import { sleep, waitFor } from '../helpers/wait.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

let gitEnv: NodeJS.ProcessEnv;
const temporary: string[] = [];

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? gitEnv });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('latin1'), stderr }));
    // A program may exit before reading its input (the hook refusing at once).
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

function git(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {}): Promise<Result> {
  return run('git', ['-c', 'credential.helper=', ...args], options);
}

async function ok(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {}): Promise<string> {
  const result = await git(args, options);
  expect(result.code, `git ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** A child node process running `code` (an ES module with tsx, so it imports the sources); prints on stdout. */
function nodeChild(code: string): { child: ChildProcess; output: () => string; line: (text: string) => Promise<void>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  const line = async (text: string) => {
    await waitFor(
      () => {
        if (output.includes(text)) return true;
        if (child.exitCode !== null) throw new Error(`the child exited before printing "${text}": ${output}`);
        return false;
      },
      { what: `the child to print "${text}"`, timeoutMs: 20_000 },
    );
  };
  return { child, output: () => output, line, exited };
}

/**
 * Code for a child (or this process) that prints `line` once it has found the ref lock file taken twice: it is then
 * waiting for the lock, polling the file (src/store/git/ref-lock.ts creates it with O_EXCL until it can).
 */
const REPORT_LOCK_WAIT = (line: string) => `import fs from 'node:fs/promises';
  { const create = fs.writeFile; let taken = 0;
    fs.writeFile = async (...args) => {
      try { return await create(...args); }
      catch (error) { if (error.code === 'EEXIST' && String(args[0]).endsWith(${JSON.stringify(LOCK_FILE)}) && ++taken === 2) console.log(${JSON.stringify(line)}); throw error; }
    }; }`;

/**
 * In this process: counts the tries to create a ref lock file that found it taken, until `restore` (what a writer
 * waiting for another container's lock does, src/store/git/ref-lock.ts).
 */
function countLockFileWaits(): { taken: () => number; restore: () => void } {
  const create = fs.writeFile;
  let taken = 0;
  fs.writeFile = (async (...args: Parameters<typeof fs.writeFile>) => {
    try {
      return await create(...args);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && String(args[0]).endsWith(LOCK_FILE)) taken += 1;
      throw error;
    }
  }) as typeof fs.writeFile;
  return { taken: () => taken, restore: () => void (fs.writeFile = create) };
}

const STORE_MODULE = JSON.stringify(path.join(root, 'src/store/git/repositories.ts'));

afterAll(async () => {
  await Promise.all(temporary.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

describe('concurrent pushes to one space (sqlite)', () => {
  let t: TestApp;
  let base: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;

  beforeAll(async () => {
    gitEnv = await isolatedGitEnv();
    temporary.push(gitEnv.HOME!);
    t = await startTestApp('sqlite');
    base = await t.listen();
    org = await t.organization('Acme');
  });
  afterAll(async () => t?.close());

  const url = (spaceId: string) => `${base.replace('://', `://x:${org.admin.token}@`)}/git/${spaceId}.git`;

  async function newSpace(): Promise<string> {
    const created = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Busy' } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  async function clone(spaceId: string): Promise<string> {
    const dir = await tempDir('quire-writer-');
    await ok(['clone', '--quiet', url(spaceId), dir]);
    return dir;
  }

  async function commitFile(dir: string, file: string, content: string): Promise<string> {
    await fs.writeFile(path.join(dir, file), content);
    await ok(['add', '--all'], { cwd: dir });
    await ok(['commit', '--quiet', '-m', `Add ${file}`], { cwd: dir });
    return (await ok(['rev-parse', 'HEAD'], { cwd: dir })).trim();
  }

  const mainOf = async (spaceId: string) => (await ok(['rev-parse', 'refs/heads/main'], { env: { ...gitEnv, GIT_DIR: t.container.git.repositoryPath(spaceId) } })).trim();

  // The acceptance size (8 x 40, under 60 s) is measured by bench/concurrent-pushes.ts; the suite runs a smaller
  // load with the same rules, so that it stays within a few minutes on a loaded machine.
  it('lands every commit of 8 writers pushing commits one by one, refusing only with the fetch-first marker', async () => {
    const spaceId = await newSpace();
    const WRITERS = 8;
    const COMMITS = 4;
    const dirs = await Promise.all(Array.from({ length: WRITERS }, () => clone(spaceId)));
    const refusals: string[] = [];
    const failures: string[] = [];
    let attempts = 0;
    const started = Date.now();
    await Promise.all(
      dirs.map(async (dir, writer) => {
        for (let i = 0; i < COMMITS; i++) {
          await commitFile(dir, `w${writer}-${i}.md`, `# Writer ${writer}, page ${i}\n`);
          for (;;) {
            attempts += 1;
            const pushed = await git(['push', 'origin', 'HEAD:main'], { cwd: dir });
            if (pushed.code === 0) break;
            if (pushed.stderr.includes('cannot lock ref') || !pushed.stderr.includes(`remote: ${PUSH_REFUSED_MARKER} stale`)) {
              // A rejection by the client itself (it saw main move in the advertisement) is fine too.
              if (!/\(fetch first\)|\(non-fast-forward\)/.test(pushed.stderr) || pushed.stderr.includes('cannot lock ref')) failures.push(pushed.stderr);
            } else {
              refusals.push(pushed.stderr);
            }
            if (failures.length > 0) return;
            await ok(['pull', '--quiet', '--rebase', 'origin', 'main'], { cwd: dir });
          }
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`${WRITERS} writers x ${COMMITS} commits: ${seconds.toFixed(1)} s, ${attempts} attempts, ${refusals.length} refused by the server with the marker`);
    expect(failures, failures.join('\n---\n')).toEqual([]);
    for (const refusal of refusals) expect(refusal).toContain('main moved since you fetched it: fetch, rebase (or merge) and push again');

    const pages = (await t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.admin.token })).body.pages as Array<{ path: string }>;
    const pushed = pages.map((page) => page.path).filter((p) => /^w\d+-\d+$/.test(p));
    expect(new Set(pushed).size).toBe(WRITERS * COMMITS);
    expect((await t.request('GET', `/v1/spaces/${spaceId}`, { token: org.admin.token })).body.revision).toBe(await mainOf(spaceId));
  }, 300_000);

  /**
   * A push whose old value of main is not main's: what a client sends when main moves between the ref
   * advertisement it read and its push request (git's client refuses on its own when it sees main moved).
   */
  async function pushRequest(spaceId: string, oldOid: string, newOid: string, pack: Buffer): Promise<string> {
    const command = `${oldOid} ${newOid} refs/heads/main\0report-status side-band-64k\n`;
    const line = Buffer.from(`${(command.length + 4).toString(16).padStart(4, '0')}${command}`);
    const response = await fetch(`${base}/git/${spaceId}.git/git-receive-pack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'application/x-git-receive-pack-request' },
      body: Buffer.concat([line, Buffer.from('0000'), pack]),
    });
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer()).toString('latin1');
  }

  it('refuses at once, with the marker, a push whose ref moved since the client fetched it', async () => {
    const spaceId = await newSpace();
    const dir = await clone(spaceId);
    const fetched = await mainOf(spaceId);
    const mine = await commitFile(dir, 'mine.md', '# Mine\n');
    const other = await clone(spaceId);
    await commitFile(other, 'theirs.md', '# Theirs\n');
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: other });
    const moved = await mainOf(spaceId);

    const pack = Buffer.from((await run('git', ['pack-objects', '--stdout', '--revs', '--quiet'], { cwd: dir, input: `${mine}\n^${fetched}\n` })).stdout, 'latin1');
    const answer = await pushRequest(spaceId, fetched, mine, pack);
    expect(answer).toContain(`${PUSH_REFUSED_MARKER} stale`);
    expect(answer).toContain('main moved since you fetched it: fetch, rebase (or merge) and push again');
    expect(answer).toContain('ng refs/heads/main pre-receive hook declined');
    expect(answer).not.toContain('cannot lock ref');
    expect(await mainOf(spaceId)).toBe(moved);
  });

  it('makes a push wait while another writer holds the lock, then checks it again: lands if main stayed, else fetch first', async () => {
    const spaceId = await newSpace();
    const a = await clone(spaceId);
    const b = await clone(spaceId);
    const oidA = await commitFile(a, 'a.md', '# A\n');
    await commitFile(b, 'b.md', '# B\n');

    // The pushes' requests for the lock of the space (a push's decision asks once its checks passed), and whether
    // they got it; this test takes its own locks around this record.
    const store = t.container.git;
    const lockRefs = store.lockRefs.bind(store);
    const requests: Array<{ granted: boolean }> = [];
    store.lockRefs = (id, timeoutMs) => {
      const request = { granted: false };
      if (id === spaceId) requests.push(request);
      return lockRefs(id, timeoutMs).then((lock) => ((request.granted = true), lock));
    };
    try {
      // main stays: the push waits for the lock, then lands.
      let lock = await lockRefs(spaceId);
      const waiting = git(['push', 'origin', 'HEAD:main'], { cwd: a });
      await waitFor(() => requests.length === 1, { what: 'the push to ask for the lock', timeoutMs: 20_000 });
      // It asked: were it not held back, it would have the lock and land within milliseconds. A moment later it
      // still has neither (nothing marks "still waiting" in this process's queue of lock waiters: a short window).
      await sleep(250);
      expect(requests[0].granted).toBe(false);
      expect(await mainOf(spaceId)).not.toBe(oidA);
      await lock.release();
      const landed = await waiting;
      expect(landed.code, landed.stderr).toBe(0);
      expect(await mainOf(spaceId)).toBe(oidA);

      // main moves while the push waits (by the lock's holder): checked again under the lock, fetch first.
      await ok(['pull', '--quiet', '--rebase', 'origin', 'main'], { cwd: b });
      lock = await lockRefs(spaceId);
      const stale = git(['push', 'origin', 'HEAD:main'], { cwd: b });
      // The push has passed its first check of main (before its content checks) and waits for the lock: main moves.
      await waitFor(() => requests.length === 2, { what: 'the second push to ask for the lock', timeoutMs: 20_000 });
      expect(requests[1].granted).toBe(false);
      const gitDir = t.container.git.repositoryPath(spaceId);
      const moved = (await ok(['commit-tree', `${oidA}^{tree}`, '-p', oidA, '-m', 'By the holder'], { env: { ...gitEnv, GIT_DIR: gitDir } })).trim();
      await ok(['update-ref', 'refs/heads/main', moved, oidA], { env: { ...gitEnv, GIT_DIR: gitDir } });
      await lock.release();
      const refused = await stale;
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`remote: ${PUSH_REFUSED_MARKER} stale`);
      expect(refused.stderr).toContain('remote: main moved since you fetched it');
      expect(await mainOf(spaceId)).toBe(moved);
    } finally {
      store.lockRefs = lockRefs;
    }
  });

  it('keeps another process from moving a ref while this one holds the lock', async () => {
    const spaceId = await newSpace();
    const gitDir = t.container.git.repositoryPath(spaceId);
    const main = await mainOf(spaceId);
    const next = (await ok(['commit-tree', `${main}^{tree}`, '-p', main, '-m', 'From another process'], { env: { ...gitEnv, GIT_DIR: gitDir } })).trim();

    const lock = await t.container.git.lockRefs(spaceId);
    const other = nodeChild(
      `${REPORT_LOCK_WAIT('waiting for the lock')}
       import { GitStore } from ${STORE_MODULE};
       const moved = await new GitStore(${JSON.stringify(t.config.dataDir)}).compareAndSwapRef(${JSON.stringify(spaceId)}, 'refs/heads/main', '${next}', '${main}');
       console.log('moved ' + moved);`,
    );
    // Found the lock taken, again and again: it waits, without moving the ref.
    await other.line('waiting for the lock');
    expect(other.child.exitCode, other.output()).toBeNull();
    expect(await mainOf(spaceId)).toBe(main);
    await lock.release();
    expect(await other.exited, other.output()).toBe(0);
    expect(other.output()).toContain('moved true');
    expect(await mainOf(spaceId)).toBe(next);
  });

  it('takes over a lock whose holder was killed, and one another host left untouched for long', async () => {
    const spaceId = await newSpace();
    const holder = nodeChild(
      `import { GitStore } from ${STORE_MODULE};
       await new GitStore(${JSON.stringify(t.config.dataDir)}).lockRefs(${JSON.stringify(spaceId)});
       console.log('locked');
       setInterval(() => {}, 1000);`,
    );
    await holder.line('locked');
    holder.child.kill('SIGKILL');
    await holder.exited;
    const lockFile = path.join(t.container.git.repositoryPath(spaceId), LOCK_FILE);
    await fs.access(lockFile);

    // Taken over because its holder is gone, not because the file grew old: within a wait limit far below the
    // 20 s a file must be left untouched to count as stale (RefLockTimeout otherwise).
    const lock = await t.container.git.lockRefs(spaceId, 5_000);
    await lock.release();
    await expect(fs.access(lockFile)).rejects.toThrow();

    // Another host's lock: kept while it is touched, taken over once it was left alone for long.
    await fs.writeFile(lockFile, '12345 another-host 0123456789abcdef\n');
    await expect(t.container.git.lockRefs(spaceId, 300)).rejects.toBeInstanceOf(RefLockTimeout);
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(lockFile, old, old);
    await (await t.container.git.lockRefs(spaceId, 1_000)).release();

    // And a push after all that lands.
    const dir = await clone(spaceId);
    const oid = await commitFile(dir, 'after.md', '# After\n');
    await ok(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir });
    expect(await mainOf(spaceId)).toBe(oid);
  });

  it('makes an API write wait while another container on the same data directory holds the lock', async () => {
    const spaceId = await newSpace();
    const other = new GitStore(t.config.dataDir);
    const lock = await other.lockRefs(spaceId);
    const waits = countLockFileWaits();
    let answered = false;
    const created = t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Later' } }).then((res) => {
      answered = true;
      return res;
    });
    try {
      // The write found the other container's lock file taken, and tried again: it waits.
      await waitFor(() => waits.taken() >= 2, { what: 'the API write to find the lock taken' });
    } finally {
      waits.restore();
    }
    expect(answered).toBe(false);
    await lock.release();
    expect((await created).status).toBe(201);
    expect(await fs.readFile(path.join(t.container.git.repositoryPath(spaceId), 'refs/heads/change-requests/1'), 'utf8')).toMatch(/^[0-9a-f]{40}\n$/);
  });
});

describe('the pre-receive hook', () => {
  let hook: string;
  let gitDir: string;

  beforeAll(async () => {
    gitEnv ??= await isolatedGitEnv();
    const dataDir = await tempDir('quire-hook-');
    const store = new GitStore(dataDir);
    await store.createRepository('hookspace', [{ path: 'README.md', content: '# Hi\n' }], 'First', { name: 'T', email: 't@example.com' });
    gitDir = store.repositoryPath('hookspace');
    hook = path.join(gitDir, 'hooks/pre-receive');
  });

  const update = `${'0'.repeat(40)} ${'1'.repeat(40)} refs/heads/main\n`;

  it('is a POSIX sh script that starts no node', async () => {
    const text = await fs.readFile(hook, 'utf8');
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).not.toMatch(/node/i);
    const checked = await run('sh', ['-n', hook]);
    expect(checked.code, checked.stderr).toBe(0);
  });

  it('refuses without the channel, or when the channel names nothing', async () => {
    const bare = await run(hook, [], { cwd: gitDir, input: update, env: { ...gitEnv, GIT_DIR: gitDir } });
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('Quire: pushes are accepted only through the Quire server');
    const nowhere = await run(hook, [], { cwd: gitDir, input: update, env: { ...gitEnv, GIT_DIR: gitDir, QUIRE_PUSH_CHANNEL: '/nonexistent/channel' } });
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toContain('Quire: pushes are accepted only through the Quire server');
  });

  it('passes the quarantine variables and the updates, prints the answer, exits with its code; refuses when the server closes', async () => {
    const channel = await PushChannel.open();
    try {
      const received = new Promise((resolve) => channel.onRequest(resolve));
      const hookRun = run(hook, [], { cwd: gitDir, input: update, env: { ...gitEnv, ...channel.env, GIT_DIR: gitDir, GIT_QUARANTINE_PATH: '/q u/x', GIT_OBJECT_DIRECTORY: '/q u/x' } });
      expect(await received).toEqual({
        env: { GIT_QUARANTINE_PATH: '/q u/x', GIT_OBJECT_DIRECTORY: '/q u/x' },
        updates: [{ oldOid: '0'.repeat(40), newOid: '1'.repeat(40), ref: 'refs/heads/main' }],
      });
      channel.answer(['first line', 'exit 0 is just text here'], 3);
      const result = await hookRun;
      expect(result.code).toBe(3);
      expect(result.stderr).toBe('first line\nexit 0 is just text here\n');
    } finally {
      await channel.close();
    }

    const gone = await PushChannel.open();
    const received = new Promise((resolve) => gone.onRequest(resolve));
    const hookRun = run(hook, [], { cwd: gitDir, input: update, env: { ...gitEnv, ...gone.env, GIT_DIR: gitDir } });
    await received;
    await gone.close();
    expect((await hookRun).code).not.toBe(0);
  });
});
