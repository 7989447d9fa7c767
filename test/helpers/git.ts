/**
 * Real git for tests: a checkout of a bare repository in a temp folder, with an isolated configuration.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Environment that keeps the user's and the system's git configuration out of tests. */
export async function isolatedGitEnv(): Promise<NodeJS.ProcessEnv> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-home-'));
  return {
    ...process.env,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
  };
}

/** The clone URL of a space on a listening test server, with `token` as HTTP Basic credentials. */
export function spaceRemote(base: string, token: string, spaceId: string): string {
  return `${base.replace('://', `://quire:${token}@`)}/git/${spaceId}.git`;
}

export class Checkout {
  private constructor(
    readonly dir: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Clones `url` (a path or an URL) into a new temp folder. */
  static async clone(url: string, env?: NodeJS.ProcessEnv): Promise<Checkout> {
    const gitEnv = env ?? (await isolatedGitEnv());
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-checkout-'));
    await exec('git', ['clone', '--quiet', url, dir], { env: gitEnv });
    return new Checkout(dir, gitEnv);
  }

  async git(...args: string[]): Promise<string> {
    const { stdout } = await exec('git', args, { cwd: this.dir, env: this.env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }

  async write(file: string, content: string | Buffer): Promise<void> {
    const full = path.join(this.dir, file);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, content);
  }

  async read(file: string): Promise<string> {
    return fs.readFile(path.join(this.dir, file), 'utf8');
  }

  async remove(file: string): Promise<void> {
    await fs.rm(path.join(this.dir, file), { force: true, recursive: true });
  }

  /** Stages everything and commits; returns the new commit's oid. */
  async commit(message: string): Promise<string> {
    await this.git('add', '--all');
    await this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return (await this.git('rev-parse', 'HEAD')).trim();
  }

  /** Pushes over HTTP through Quire, or (for a repository path) straight into it, bypassing Quire's hooks. */
  async push(...args: string[]): Promise<void> {
    const remote = (await this.git('remote', 'get-url', 'origin')).trim();
    const direct = remote.startsWith('/') ? ['--receive-pack=git -c core.hooksPath=/dev/null receive-pack'] : [];
    await this.git('push', '--quiet', ...direct, 'origin', ...(args.length ? args : ['HEAD:refs/heads/main']));
  }

  /** Commits and pushes the current branch to the same name. */
  async commitAndPush(message: string): Promise<string> {
    const oid = await this.commit(message);
    const branch = (await this.git('rev-parse', '--abbrev-ref', 'HEAD')).trim();
    await this.push(`HEAD:refs/heads/${branch}`);
    return oid;
  }

  async dispose(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
