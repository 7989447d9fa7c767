/**
 * `quire sync`: two-way sync of a folder with a space's repository (or one change request's branch) over git's
 * smart HTTP. It clones (or reuses) the checkout, watches it with chokidar, commits saved changes after a debounce
 * and pushes them, and every interval fetches and merges what others pushed. Every git command runs from one queue,
 * so the loop never races itself.
 *
 * This module is the loop: starting (clone or reuse), watching, the debounce, the poll and the one queue. What a round
 * does to the files, with the rules of conflicts and refused pushes, is the reconcile step (./reconcile.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { SimpleGit } from 'simple-git';
import { createGit, gitEnvironment, GitCommandError, tryGit } from '../store/git/working-copy.js';
import { DEFAULT_DEBOUNCE_MS, DEFAULT_INTERVAL_MS } from './defaults.js';
import { isIgnoredPath, readIfExists, readState, writeExcludes } from './files.js';
import { gitMessage, Reconciler } from './reconcile.js';

export interface SyncOptions {
  spaceId: string;
  /** The folder: cloned into when missing or empty, reused when it is a checkout of the same space and branch. */
  dir: string;
  /** Base URL of the Quire server (the repository is `SERVER/git/SPACE_ID.git`). */
  serverUrl: string;
  /** API token: read on the space to pull, edit to push. */
  token: string;
  /** Sync the branch `change-requests/N` instead of `main`. */
  changeRequest?: number;
  /** Quiet time after the last saved change before committing (default 500 ms). */
  debounceMs?: number;
  /** Time between fetches from the server (default 2000 ms). */
  intervalMs?: number;
  /** Environment for git (PATH, HOME, identity); git's other variables are dropped (src/store/git/working-copy.ts). */
  env: NodeJS.ProcessEnv;
  /** One line per event, for a person. */
  log?: (line: string) => void;
}

/** Something that stops `quire sync` from starting: the message is for the person who ran it. */
export class SyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncError';
  }
}

export { DEFAULT_DEBOUNCE_MS, DEFAULT_INTERVAL_MS };

/**
 * One sync of a folder with a space: `start()` clones or checks the folder, makes a first sync and keeps going until
 * `stop()`, which finishes what is in flight (including a change still waiting for its debounce).
 */
export class Sync {
  readonly branch: string;
  readonly remoteUrl: string;
  readonly dir: string;
  private readonly debounceMs: number;
  private readonly intervalMs: number;
  private readonly log: (line: string) => void;
  private git!: SimpleGit;
  private gitDir!: string;
  private watcher?: FSWatcher;
  private debounce?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private queue: Promise<void> = Promise.resolve();
  private started = false;
  private stopping?: Promise<void>;
  /** The reconcile step over the checkout, once it is there. */
  private reconciler!: Reconciler;

  constructor(private readonly options: SyncOptions) {
    this.branch = options.changeRequest === undefined ? 'main' : `change-requests/${options.changeRequest}`;
    this.remoteUrl = `${options.serverUrl.replace(/\/+$/, '')}/git/${encodeURIComponent(options.spaceId)}.git`;
    this.dir = path.resolve(options.dir);
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** Clones or checks the folder, syncs once, then watches and polls. Throws SyncError when it cannot start. */
  async start(): Promise<void> {
    if (this.started) throw new Error('this sync has already been started');
    this.started = true;
    if (!/^https?:\/\/[^/]/.test(this.options.serverUrl)) throw new SyncError(`the server URL must start with http:// or https://, got "${this.options.serverUrl}"`);
    const entries = await fs.readdir(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      if (error.code === 'ENOTDIR') throw new SyncError(`${this.dir} is a file, not a folder`);
      throw error;
    });
    await fs.mkdir(this.dir, { recursive: true });
    const baseEnv = this.options.env;
    this.git = createGit(this.dir, gitEnvironment({ base: baseEnv, token: this.options.token }));

    if (entries === null || entries.length === 0) {
      try {
        await this.requireRemoteBranch();
      } catch (error) {
        if (entries === null) await fs.rm(this.dir, { recursive: true, force: true });
        throw error;
      }
      const cloned = await tryGit(this.git, ['clone', '--quiet', '--no-tags', '--single-branch', '--branch', this.branch, this.remoteUrl, '.']);
      if (!cloned.ok) {
        if (entries === null) await fs.rm(this.dir, { recursive: true, force: true });
        throw new SyncError(`could not clone ${this.remoteUrl}: ${gitMessage(cloned.error)}`);
      }
      this.log(`cloned space ${this.options.spaceId} (${this.branch}) into ${this.dir}`);
    } else {
      await this.checkExistingCheckout();
      await this.requireRemoteBranch();
      this.log(`using the existing checkout in ${this.dir} (${this.branch})`);
    }
    this.gitDir = path.join(this.dir, '.git');

    // Without an identity git refuses to commit; the person's own (config or GIT_AUTHOR_*) wins when there is one.
    const author = await tryGit(this.git, ['var', 'GIT_AUTHOR_IDENT']);
    const committer = await tryGit(this.git, ['var', 'GIT_COMMITTER_IDENT']);
    if (!author.ok || !committer.ok) {
      const identity: Array<[string, string]> = [
        ['user.name', 'quire sync'],
        ['user.email', 'quire-sync@localhost'],
      ];
      this.git = createGit(this.dir, gitEnvironment({ base: baseEnv, token: this.options.token, config: identity }));
    }

    this.reconciler = new Reconciler(this.git, this.dir, this.gitDir, this.branch, this.log, await readState(this.gitDir));
    await writeExcludes(this.gitDir, this.reconciler.serverCopies());
    if (await readIfExists(path.join(this.gitDir, 'MERGE_HEAD'))) {
      // A merge left half-done by an interrupted run: its own commits are safe in HEAD; start the merge again.
      await this.git.raw(['merge', '--abort']);
    }
    for (const [file, held] of Object.entries(this.reconciler.state.held)) {
      this.log(`${file} is still not syncing: reconcile it with ${held.copy}, then delete ${held.copy}`);
    }

    await this.startWatching();
    await this.enqueue(() => this.round({ pull: true }));
    this.log(`watching ${this.dir}: saved changes are pushed to ${this.branch} of ${this.remoteUrl}, which is checked every ${this.intervalMs} ms`);
    this.schedulePoll();
  }

  /** Stops watching and polling, finishes the work in flight (and a change waiting for its debounce), and returns. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.pollTimer);
      const pending = this.debounce !== undefined;
      clearTimeout(this.debounce);
      this.debounce = undefined;
      await this.watcher?.close();
      if (pending) void this.enqueue(() => this.round({ pull: false }));
      await this.queue;
      this.log('stopped');
    })();
    return this.stopping;
  }

  /** True while a saved change waits for its debounce. */
  get changePending(): boolean {
    return this.debounce !== undefined;
  }

  /** Resolves once every queued sync step has run (for tests and shutdown). */
  async idle(): Promise<void> {
    await this.queue;
  }

  private async requireRemoteBranch(): Promise<void> {
    const listed = await tryGit(this.git, ['ls-remote', '--heads', this.remoteUrl, `refs/heads/${this.branch}`]);
    if (!listed.ok) throw new SyncError(`could not reach ${this.remoteUrl}: ${gitMessage(listed.error)}`);
    if (!listed.stdout.trim()) {
      throw new SyncError(
        this.options.changeRequest === undefined
          ? `space ${this.options.spaceId} has no branch ${this.branch} on the server`
          : `space ${this.options.spaceId} has no change request ${this.options.changeRequest} on the server (no branch ${this.branch})`,
      );
    }
  }

  private async checkExistingCheckout(): Promise<void> {
    const notCheckout = new SyncError(`${this.dir} is not empty and is not a checkout of space ${this.options.spaceId}; use an empty or new folder`);
    const top = await tryGit(this.git, ['rev-parse', '--show-toplevel']);
    if (!top.ok) throw notCheckout;
    const [realTop, realDir] = await Promise.all([fs.realpath(top.stdout.trim()), fs.realpath(this.dir)]);
    if (realTop !== realDir) throw notCheckout;
    const origin = await tryGit(this.git, ['remote', 'get-url', 'origin']);
    if (!origin.ok) throw notCheckout;
    const url = origin.stdout.trim();
    if (!url.endsWith(`/git/${encodeURIComponent(this.options.spaceId)}.git`)) throw notCheckout;
    const head = await tryGit(this.git, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    const current = head.ok ? head.stdout.trim() : '(detached)';
    if (current !== this.branch) {
      throw new SyncError(`${this.dir} is a checkout of space ${this.options.spaceId} on ${current}, not ${this.branch}; use another folder`);
    }
    if (url !== this.remoteUrl) {
      // The same space through another address (QUIRE_URL changed): follow the configured server. No token in it.
      await this.git.raw(['remote', 'set-url', 'origin', this.remoteUrl]);
      this.log(`origin of ${this.dir} now points at ${this.remoteUrl}`);
    }
  }

  private async startWatching(): Promise<void> {
    const watcher = watch(this.dir, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (file: string) => {
        const relative = path.relative(this.dir, file);
        return relative !== '' && isIgnoredPath(relative);
      },
    });
    this.watcher = watcher;
    await new Promise<void>((resolve, reject) => {
      watcher.once('ready', resolve);
      watcher.once('error', reject);
    });
    watcher.on('all', () => this.changed());
    watcher.on('error', (error) => this.log(`watching failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** A file in the folder changed: sync once nothing has changed for the debounce time. */
  private changed(): void {
    if (this.stopping) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.enqueue(() => this.round({ pull: false }));
    }, this.debounceMs);
  }

  private schedulePoll(): void {
    if (this.stopping) return;
    this.pollTimer = setTimeout(() => {
      void this.enqueue(() => this.round({ pull: true })).finally(() => this.schedulePoll());
    }, this.intervalMs);
  }

  /** Runs `task` after everything queued before it; a failure is printed, and the loop goes on. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      try {
        await task();
      } catch (error) {
        const reason = error instanceof GitCommandError ? gitMessage(error) : error instanceof Error ? error.message : String(error);
        // Ctrl-C reaches the git commands too (one process group): a step cut short while stopping is not a failure.
        if (this.stopping) this.log(`stopped in the middle of a step${reason ? ` (${reason})` : ''}: the next start finishes it`);
        else this.log(`sync step failed (will retry): ${reason || 'git stopped without saying why'}`);
      }
    });
    this.queue = run;
    return run;
  }

  /** One round: resume reconciled files, commit local edits, merge the server's changes (when fetching), push. */
  private async round(options: { pull: boolean }): Promise<void> {
    await this.reconciler.resumeReconciled();
    await this.reconciler.commitLocal();
    if (options.pull) await this.reconciler.pull();
    await this.reconciler.pushAhead();
  }
}
