/** Runs git plumbing commands. Only store/git calls it. */
import { directLauncher, type ProcessLauncher } from './launcher.js';

export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly stdout: Buffer = Buffer.alloc(0),
  ) {
    super(`git ${args[0]} failed (${exitCode}): ${stderr.trim()}`);
  }
}

export interface RunGitOptions {
  gitDir?: string;
  cwd?: string;
  input?: string | Buffer;
  /** Added to this process's environment; a name given `undefined` is left out of it (SSH_AUTH_SOCK for git over SSH). */
  env?: Record<string, string | undefined>;
  /** Stops the process (SIGTERM) when aborted; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** What starts the process (the container's, see launcher.ts); none: started directly. */
  launcher?: ProcessLauncher;
}

/** Runs `git ARGS` and resolves with stdout; rejects with GitCommandError on a non-zero exit. */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      ...options.env,
    };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    if (options.gitDir) env.GIT_DIR = options.gitDir;
    const { signal } = options;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const child = (options.launcher ?? directLauncher).spawn('git', args, { cwd: options.cwd, env });
    const abort = () => child.kill('SIGTERM');
    signal?.addEventListener('abort', abort, { once: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      signal?.removeEventListener('abort', abort);
      reject(signal?.aborted ? signal.reason : error);
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', abort);
      if (signal?.aborted) reject(signal.reason);
      else if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8'), Buffer.concat(out)));
    });
    child.stdin.on('error', () => {
      // The process may exit before reading all input; its exit code tells what happened.
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `git ARGS` and resolves with its exit code and output, whatever the code (for commands whose code means something). */
export function runGitStatus(args: readonly string[], options: RunGitOptions = {}): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return runGit(args, options).then(
    (stdout) => ({ code: 0, stdout, stderr: '' }),
    (error: unknown) => {
      if (!(error instanceof GitCommandError) || error.exitCode === null) throw error;
      return { code: error.exitCode, stdout: error.stdout, stderr: error.stderr };
    },
  );
}
