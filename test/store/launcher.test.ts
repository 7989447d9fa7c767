/**
 * The launcher (src/store/git/launcher.ts): processes started through a small helper process behave as processes
 * started directly do, for what src/store/git uses (streams both ways, exit codes, signals, start failures), and a
 * launcher that dies or is closed leaves nothing waiting forever.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessLauncher, type GitChild } from '../../src/store/git/launcher.js';
import { GitCommandError, runGit } from '../../src/store/git/run.js';
import { waitFor } from '../helpers/wait.js';

function outcome(child: GitChild): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr }));
  });
}

/** The pid of the process named `name` the launcher runs, once it runs (pgrep lists its children by name). */
function childOf(launched: ProcessLauncher, name: string): Promise<number> {
  return waitFor(
    () => {
      try {
        return Number(execFileSync('pgrep', ['-P', String(launched.launcherPid), name]).toString().trim().split('\n')[0]);
      } catch {
        return 0; // pgrep exits 1 when nothing matches
      }
    },
    { what: `the launcher to run ${name}` },
  );
}

/** Until the process `pid` is gone. */
function gone(pid: number): Promise<boolean> {
  return waitFor(
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    { what: `process ${pid} to end` },
  );
}

function gitBlobOid(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

describe('ProcessLauncher', () => {
  const launchers: ProcessLauncher[] = [];
  const launcher = (forkAboveBytes = 0) => {
    const made = new ProcessLauncher(forkAboveBytes);
    launchers.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of launchers.splice(0)) made.close();
  });

  it('starts processes directly under the threshold, through the launcher past it', async () => {
    const direct = launcher(Number.POSITIVE_INFINITY);
    expect((await runGit(['--version'], { launcher: direct })).toString()).toMatch(/^git version/);
    expect(direct.launching).toBe(false);
    const launched = launcher(0);
    expect((await runGit(['--version'], { launcher: launched })).toString()).toMatch(/^git version/);
    expect(launched.launching).toBe(true);
  });

  it('carries large input and output both ways, byte for byte', async () => {
    const launched = launcher();
    // 3 MB in (hash-object reads it whole), 3 MB out (cat-file writes it back).
    const content = Buffer.from(Array.from({ length: 300_000 }, (_, i) => `line ${i} é\n`).join(''));
    const gitDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-launcher-test-'));
    try {
      await runGit(['init', '--bare', '--quiet', gitDir], { launcher: launched });
      const oid = (await runGit(['hash-object', '-w', '--stdin'], { gitDir, input: content, launcher: launched })).toString().trim();
      expect(oid).toBe(gitBlobOid(content));
      const back = await runGit(['cat-file', 'blob', oid], { gitDir, launcher: launched });
      expect(back.equals(content)).toBe(true);
    } finally {
      fs.rmSync(gitDir, { recursive: true, force: true });
    }
  });

  it('reports exit codes and stderr, and many processes at once each get their own streams', async () => {
    const launched = launcher();
    const failed = await runGit(['cat-file', '-t', 'no-such-object'], { gitDir: os.tmpdir(), launcher: launched }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(GitCommandError);
    expect((failed as GitCommandError).exitCode).toBe(128);
    expect((failed as GitCommandError).stderr).toMatch(/not a git repository|Not a valid object name/);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => runGit(['hash-object', '--stdin'], { input: `text ${i}\n`, launcher: launched })),
    );
    answers.forEach((answer, i) => expect(answer.toString().trim()).toBe(gitBlobOid(Buffer.from(`text ${i}\n`))));
  });

  it('fails a command that cannot start with its code, as spawn does', async () => {
    const launched = launcher();
    const child = launched.spawn('no-such-command-for-quire', [], { env: process.env });
    await expect(outcome(child)).rejects.toMatchObject({ code: 'ENOENT' });
    // The launcher goes on.
    expect((await runGit(['--version'], { launcher: launched })).toString()).toMatch(/^git version/);
  });

  it('stops a process by signal, and runGit by its abort signal', async () => {
    const launched = launcher();
    await runGit(['--version'], { launcher: launched });
    const child = launched.spawn('sleep', ['30'], { env: process.env });
    const done = outcome(child);
    await childOf(launched, 'sleep');
    expect(child.kill('SIGTERM')).toBe(true);
    expect(await done).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(child.kill()).toBe(false);

    // `git daemon` runs until stopped: only the abort ends it, and runGit then rejects with the abort's reason.
    const controller = new AbortController();
    const serving = runGit(['daemon', '--listen=127.0.0.1', '--port=0', `--base-path=${os.tmpdir()}`], { launcher: launched, signal: controller.signal });
    // Aborted once it runs (it never ends by itself).
    await childOf(launched, 'git');
    controller.abort(new Error('stopped'));
    await expect(serving).rejects.toThrow('stopped');
    // Stopped at once, before its streams have even connected to the launcher: it still ends.
    const early = launched.spawn('sleep', ['30'], { env: process.env });
    const ended = outcome(early);
    expect(early.kill('SIGTERM')).toBe(true);
    expect(await ended).toMatchObject({ code: null, signal: 'SIGTERM' });
    const aborted = new AbortController();
    aborted.abort(new Error('already stopped'));
    await expect(runGit(['--version'], { launcher: launched, signal: aborted.signal })).rejects.toThrow('already stopped');
  });

  it('leaves stdio that is not piped empty', async () => {
    const launched = launcher();
    const child = launched.spawn('git', ['--version'], { env: process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    expect(await outcome(child)).toMatchObject({ code: 0, stdout: Buffer.alloc(0), stderr: '' });
  });

  it('fails what runs when the launcher dies, and starts a new launcher for the next process', async () => {
    const launched = launcher();
    await runGit(['--version'], { launcher: launched });
    const pid = launched.launcherPid!;
    const running = outcome(launched.spawn('sleep', ['30'], { env: process.env }));
    const sleeper = await childOf(launched, 'sleep');
    process.kill(pid, 'SIGKILL');
    await expect(running).rejects.toThrow(/launcher exited/);
    expect((await runGit(['--version'], { launcher: launched })).toString()).toMatch(/^git version/);
    expect(launched.launcherPid).not.toBe(pid);
    // What it ran may be left to itself (its parent is gone): ended here, if so, rather than left for 30 s.
    try {
      process.kill(sleeper, 'SIGKILL');
    } catch {
      // already gone
    }
  });

  it('keeps its process alive while it starts or runs something, and not once idle', async () => {
    // A script whose only work is a git process through a launcher that is still starting: it must wait for the
    // answer (not exit first), then exit by itself without closing the launcher.
    const script = [
      `import { ProcessLauncher } from ${JSON.stringify(path.resolve('src/store/git/launcher.ts'))};`,
      `import { runGit } from ${JSON.stringify(path.resolve('src/store/git/run.ts'))};`,
      `const launcher = new ProcessLauncher(0);`,
      `console.log((await runGit(['--version'], { launcher })).toString().trim(), launcher.launching);`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000 });
    expect(stdout).toMatch(/^git version .* true\n$/);
  });

  it('stops a process with what it started in turn, when asked and when the server is gone', async () => {
    // A shell that starts a sleep and waits for it: stopped alone, the shell dies and the sleep lives on (as a
    // receive-pack's pre-receive hook would, waiting forever on a push channel whose server is gone).
    const launched = launcher();
    const started = async () => {
      const child = launched.spawn('sh', ['-c', 'sleep 300 & echo $!; wait'], { env: process.env });
      const done = outcome(child);
      const pid = await new Promise<number>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
      return { child, done, pid };
    };
    const asked = await started();
    const orphaned = await started();
    try {
      asked.child.kill('SIGTERM');
      expect(await asked.done).toMatchObject({ signal: 'SIGTERM' });
      expect(await gone(asked.pid)).toBe(true);
      // Closing is what the launcher sees when the server dies: its IPC channel closes.
      launched.close();
      expect(await orphaned.done).toMatchObject({ signal: 'SIGTERM' });
      expect(await gone(orphaned.pid)).toBe(true);
    } finally {
      for (const { pid } of [asked, orphaned]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('ends the launcher and what it started when closed', async () => {
    const launched = launcher();
    const child = launched.spawn('sleep', ['30'], { env: process.env });
    const done = outcome(child);
    const sleeper = await childOf(launched, 'sleep');
    const pid = launched.launcherPid!;
    launched.close();
    // Ended as by SIGTERM, not failed: closing is the server's own doing.
    expect(await done).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(await gone(pid)).toBe(true);
    expect(await gone(sleeper)).toBe(true);
    // A closed launcher starts what it is asked directly.
    expect((await runGit(['--version'], { launcher: launched })).toString()).toMatch(/^git version/);
    expect(launched.launching).toBe(false);
  });
});
