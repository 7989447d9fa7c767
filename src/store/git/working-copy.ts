/**
 * The git client of a working copy, which `quire sync` drives: simple-git over the real `git` binary, configured for a long-running loop
 * that runs many short commands and must never prompt, never store the token, and never wait for nothing.
 */
import { GitError, simpleGit, type SimpleGit } from 'simple-git';

/**
 * A git command that exited with a non-zero code (or could not start), with everything it printed. A GitError, so
 * simple-git rejects with it as it is rather than wrapping it.
 */
export class GitCommandError extends GitError {
  constructor(
    readonly exitCode: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(undefined, stderr.trim() || stdout.trim() || `git exited with code ${exitCode}`);
    this.name = 'GitCommandError';
  }

  /** stdout and stderr together, for matching git's messages wherever it printed them. */
  get output(): string {
    return `${this.stdout}\n${this.stderr}`;
  }
}

/** Ambient git variables kept for the git commands (identity, TLS, tracing); every other `GIT_*` variable is dropped. */
const KEPT_GIT_VARIABLES = new Set([
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_SSL_NO_VERIFY',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_HTTP_LOW_SPEED_LIMIT',
  'GIT_HTTP_LOW_SPEED_TIME',
  'GIT_TRACE',
  'GIT_TRACE_CURL',
  'GIT_CURL_VERBOSE',
]);

/** Variables outside `GIT_*` that git honours and simple-git guards (they would start editors, pagers or prompts). */
const GUARDED_OTHER_VARIABLES = new Set(['editor', 'pager', 'prefix', 'ssh_askpass', 'visual']);

export interface GitEnvironmentOptions {
  /** The environment to start from (the process's own, or a test's isolated one). */
  base: NodeJS.ProcessEnv;
  /** The API token, sent as `Authorization: Bearer` on every HTTP request git makes. */
  token: string;
  /** Extra per-command configuration (`key`, `value`), e.g. a fallback commit identity. */
  config?: Array<[string, string]>;
}

/**
 * The environment of every git command. The token travels as per-command configuration in the environment
 * (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` = `http.extraHeader`): never in `.git/config`, in the
 * remote URL, or in the command line other users can read with `ps`. Git never prompts (`GIT_TERMINAL_PROMPT=0`)
 * and pathspecs are literal (file names with `*` or `:` are just names). A transfer stalled for 5 minutes fails.
 */
export function gitEnvironment({ base, token, config = [] }: GitEnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const lower = key.toLowerCase();
    if (lower.startsWith('git_') ? !KEPT_GIT_VARIABLES.has(key.toUpperCase()) : GUARDED_OTHER_VARIABLES.has(lower)) continue;
    env[key] = value;
  }
  const entries: Array<[string, string]> = [
    ['http.extraHeader', `Authorization: Bearer ${token}`],
    // A fetch or push that moves no byte for 5 minutes gives up (and is retried) instead of stalling the loop.
    ['http.lowSpeedLimit', '1'],
    ['http.lowSpeedTime', '300'],
    ...config,
  ];
  env.GIT_CONFIG_COUNT = String(entries.length);
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_LITERAL_PATHSPECS = '1';
  // Git's messages untranslated, whatever the user's locale: the few the sync shows are then the same everywhere.
  env.LC_ALL = 'C';
  delete env.LANGUAGE;
  return env;
}

/**
 * A simple-git instance in `dir` with `env` (from gitEnvironment).
 *
 * simple-git's completion delay: by default it treats a command as done 50 ms after `exit`, and — whatever the
 * `completion` option says — it waits another 50 ms after `close` when the command printed nothing (its completion
 * plugin's "quick close" only happens after output). Most commands a sync loop runs are silent (`add`, `status` of a
 * clean tree, `fetch --quiet`), so each would cost those 50 ms more than its own time. So: `completion` ends a task on
 * `close` only (`onExit: false`), and the output handler emits one empty chunk on stdout when the stream ends — always
 * before `close` — which marks the command as having printed and skips the wait. The sync tests measure it
 * (test/sync/sync.test.ts).
 */
export function createGit(dir: string, env: Record<string, string>): SimpleGit {
  const git = simpleGit({
    baseDir: dir,
    maxConcurrentProcesses: 1,
    trimmed: false,
    completion: { onClose: true, onExit: false },
    // Every GIT_* variable passed must be named; GIT_CONFIG_COUNT is how the token reaches git without the argv.
    allowEnvironment: Object.keys(env).filter((key) => key.toLowerCase().startsWith('git_')),
    unsafe: { allowUnsafeConfigEnvCount: true },
    errors(error, result) {
      if (result.exitCode === 0 && !error) return undefined;
      const stderr = Buffer.concat(result.stdErr).toString('utf8');
      const reason = error instanceof Error && !stderr ? error.message : stderr;
      return new GitCommandError(result.exitCode, Buffer.concat(result.stdOut).toString('utf8'), reason);
    },
  });
  git.env(env);
  git.outputHandler((_command, stdout) => {
    stdout.once('end', () => stdout.emit('data', Buffer.alloc(0)));
  });
  return git;
}

/** Runs `git ARGS` and answers its exit code and output instead of throwing when it fails. */
export async function tryGit(git: SimpleGit, args: string[]): Promise<{ ok: true; stdout: string } | { ok: false; error: GitCommandError }> {
  try {
    return { ok: true, stdout: await git.raw(args) };
  } catch (error) {
    if (error instanceof GitCommandError) return { ok: false, error };
    throw error;
  }
}

/** One ref of `git push --porcelain`'s report: `<flag>\t<from>:<to>\t<summary> (<reason>)`, never translated. */
export interface PushedRef {
  /** ` ` fast-forward, `+` forced, `-` deleted, `*` new, `!` rejected or failed, `=` up to date. */
  flag: string;
  /** The remote ref. */
  ref: string;
  /** `[rejected]`, `[remote rejected]`, `[new branch]`, `[up to date]`, or `<old>..<new>`. */
  summary: string;
  /** Why, for a rejected ref: `fetch first`, `non-fast-forward`, `pre-receive hook declined`... */
  reason?: string;
}

/** The refs of `git push --porcelain`'s standard output. */
export function pushedRefs(stdout: string): PushedRef[] {
  const refs: PushedRef[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^([ +\-*!=])\t[^\t]*:([^\t]+)\t([^(]*?)(?: \((.*)\))?$/.exec(line);
    if (match) refs.push({ flag: match[1], ref: match[2], summary: match[3], reason: match[4] });
  }
  return refs;
}
