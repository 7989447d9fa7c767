/**
 * The reconcile step of `quire sync` (./sync.ts runs it from its watch loop, one step at a time): held files whose
 * server copy was deleted sync again, saved changes are committed, the server's changes merged, and local commits
 * pushed. Apart from the loop: these are the rules of what happens to a person's files, the loop only when.
 *
 * Rules (README.md, "quire sync"):
 * - A merge conflict never loses a side. The merge records the server's version, so the server keeps what was
 *   pushed; the folder keeps the local version in the file and gets the server's version next to it
 *   (`NAME.server.EXT`, listed in `.git/info/exclude`, never committed). The file is then "held": its edits are not
 *   committed until the person deletes the server copy, which means "reconciled": the file syncs again.
 * - A file changed on one side and deleted on the other is kept, with its changed content.
 * - When the server refuses a push for its content (`remote:   path:line: reason`), the reason is printed, the
 *   refused commit is kept as `refs/quire/refused` and undone in the branch (the files are not touched), the named
 *   files stop syncing until their content changes, and everything else is committed and pushed again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';
import { GitCommandError, pushedRefs, tryGit, type PushedRef } from '../store/git/working-copy.js';
import { PUSH_REFUSED_MARKER, type PushRefusal } from '../content/push-messages.js';
import {
  commitMessage,
  digestOf,
  isIgnoredPath,
  listFiles,
  plural,
  readIfExists,
  serverCopyPath,
  writeExcludes,
  writeOrDelete,
  writeState,
  type Change,
  type SyncState,
} from './files.js';

/** What git and the server said, without git's noise: `remote:` and `fatal:`/`error:` lines. */
export function gitMessage(error: GitCommandError): string {
  // A 401 to a request that carried the token makes git ask for a user name, which it may not do.
  if (/could not read Username|Authentication failed/.test(error.output)) return 'the server did not accept the token (QUIRE_TOKEN)';
  const lines = error.output
    .replace(/\x1b\[K/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const remote = lines.filter((line) => line.startsWith('remote:')).map((line) => line.slice('remote:'.length).trim());
  const fatal = lines.filter((line) => /^(fatal|error):/.test(line)).map((line) => line.replace(/^(fatal|error):\s*/, ''));
  const picked = [...remote, ...fatal].filter((line) => line.length > 0);
  return (picked.length > 0 ? picked : lines.slice(-2)).join('; ');
}

interface PushProblem {
  /** The file the reason names, when it names one. */
  path?: string;
  text: string;
}

/** A push the server refused: why (the word after PUSH_REFUSED_MARKER), and the `remote:` lines that followed. */
interface Refusal {
  reason: PushRefusal | string;
  lines: string[];
}

/** The server's refusal in a push's standard error (`remote: quire-push-refused <reason>`, then its lines), or null. */
function refusalOf(stderr: string): Refusal | null {
  const lines = stderr.replace(/\x1b\[K/g, '').split('\n');
  const start = lines.findIndex((line) => line.startsWith(`remote: ${PUSH_REFUSED_MARKER} `));
  if (start < 0) return null;
  const reason = lines[start].slice(`remote: ${PUSH_REFUSED_MARKER} `.length).trim();
  const following: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('remote:') || line.startsWith(`remote: ${PUSH_REFUSED_MARKER} `)) break;
    following.push(line.slice('remote:'.length).trim());
  }
  return { reason, lines: following.filter((line) => line.length > 0) };
}

/**
 * The problems of an `invalid` refusal: its indented lines (`path:line: reason` or `path: reason`, formatted by
 * formatPushProblem). A problem names a pushed file when its text starts with that file's path and a colon, so a
 * path may itself hold colons.
 */
function refusedProblems(refusal: Refusal, pushedFiles: readonly string[]): PushProblem[] {
  return refusal.lines
    .filter((line) => !/^warning: /.test(line) && !/^Quire refused the push/.test(line))
    .map((text) => ({ text, path: pushedFiles.filter((file) => text.startsWith(`${file}:`)).sort((a, b) => b.length - a.length)[0] }));
}

/**
 * A push that failed because the server's branch moved (someone else pushed first): git saw it before sending
 * (`[rejected]`), or the server's ref had moved by the time the push arrived (`failed to update ref`, from servers
 * that let git find out while moving the ref).
 */
function isBehind(refs: PushedRef[]): boolean {
  return refs.some((ref) => ref.flag === '!' && (ref.summary === '[rejected]' || (ref.summary === '[remote rejected]' && ref.reason === 'failed to update ref')));
}

function sameContent(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

/** Splits NUL-separated git output into names. */
function nulSeparated(text: string): string[] {
  return text.split('\0').filter((name) => name.length > 0);
}

/**
 * One sync of a folder with a space: `start()` clones or checks the folder, makes a first sync and keeps going until
 * `stop()`, which finishes what is in flight (including a change still waiting for its debounce).

/** The reconcile step over one checkout, with what it remembers between rounds. */
export class Reconciler {
  /** Files committed since the last successful push, for the "pushed" line. */
  private unpushed: string[] = [];
  /** The last problem printed per kind, so a failure repeating every interval is printed once. */
  private problems = new Map<string, string>();

  constructor(
    private readonly git: SimpleGit,
    private readonly dir: string,
    private readonly gitDir: string,
    private readonly branch: string,
    private readonly log: (line: string) => void,
    readonly state: SyncState,
  ) {}

  private get tracking(): string {
    return `refs/remotes/origin/${this.branch}`;
  }

  private full(file: string): string {
    return path.join(this.dir, ...file.split('/'));
  }

  private report(kind: string, message: string): void {
    if (this.problems.get(kind) === message) return;
    this.problems.set(kind, message);
    this.log(message);
  }

  private resolved(kind: string): void {
    this.problems.delete(kind);
  }

  serverCopies(): string[] {
    return Object.values(this.state.held).map((held) => held.copy);
  }

  private async saveState(): Promise<void> {
    await writeState(this.gitDir, this.state);
    await writeExcludes(this.gitDir, this.serverCopies());
  }

  /** Held files whose server copy was deleted sync again. */
  async resumeReconciled(): Promise<void> {
    let changed = false;
    for (const [file, held] of Object.entries(this.state.held)) {
      if ((await readIfExists(this.full(held.copy))) !== null) continue;
      delete this.state.held[file];
      changed = true;
      this.log(`${held.copy} was deleted: ${file} syncs again`);
    }
    if (changed) await this.saveState();
  }

  /** Commits every saved change except held files and refused files that did not change; answers the files. */
  async commitLocal(): Promise<string[]> {
    const status = await this.git.status();
    const copies = new Set(this.serverCopies());
    const changes: Array<{ path: string; change: Change }> = [];
    let stateChanged = false;
    const consider = async (file: string, change: Change) => {
      if (this.state.held[file] || copies.has(file) || isIgnoredPath(file) || changes.some((c) => c.path === file)) return;
      if (file in this.state.refused) {
        if ((await digestOf(this.full(file))) === this.state.refused[file]) return;
        delete this.state.refused[file];
        stateChanged = true;
        this.log(`${file} changed: syncing it again`);
      }
      changes.push({ path: file, change });
    };
    const listed = new Set(status.files.flatMap((entry) => (entry.from ? [entry.path, entry.from] : [entry.path])));
    for (const file of Object.keys(this.state.refused)) {
      // Back to what the branch has (reverted by hand, or the same content arrived): nothing is refused any more.
      if (!listed.has(file)) {
        delete this.state.refused[file];
        stateChanged = true;
      }
    }
    for (const entry of status.files) {
      const deleted = entry.working_dir === 'D' || (entry.index === 'D' && entry.working_dir !== '?');
      const added = entry.index === '?' || entry.index === 'A';
      await consider(entry.path, deleted ? 'deleted' : added ? 'added' : 'edited');
      if (entry.from && entry.from !== entry.path) await consider(entry.from, 'deleted');
    }
    if (stateChanged) await this.saveState();
    if (changes.length === 0) return [];

    const files = changes.map((c) => c.path);
    // Only these files go into the commit, whatever else was staged by hand.
    await this.git.raw(['reset', '--quiet']);
    for (let i = 0; i < files.length; i += 200) await this.git.raw(['add', '--all', '--', ...files.slice(i, i + 200)]);
    // Nothing staged (the files are as committed): `git diff --cached --quiet` exits 0.
    if ((await tryGit(this.git, ['diff', '--cached', '--quiet'])).ok) return [];
    await this.git.raw(['commit', '--quiet', '--no-verify', '-m', commitMessage(changes)]);
    this.unpushed.push(...files);
    return files;
  }

  private async count(range: string): Promise<number> {
    return Number((await this.git.raw(['rev-list', '--count', range])).trim());
  }

  /** Fetches the branch and merges it when the server moved; false when the server could not be reached. */
  async pull(): Promise<boolean> {
    const fetched = await tryGit(this.git, ['fetch', '--quiet', '--no-tags', 'origin', `+refs/heads/${this.branch}:${this.tracking}`]);
    if (!fetched.ok) {
      this.report('fetch', `could not fetch from the server (will retry): ${gitMessage(fetched.error)}`);
      return false;
    }
    this.resolved('fetch');
    const behind = await this.count(`HEAD..${this.tracking}`);
    if (behind > 0) await this.merge(behind);
    return true;
  }

  private async headContent(file: string): Promise<Buffer | null> {
    try {
      return await this.git.showBuffer(`HEAD:${file}`);
    } catch (error) {
      if (error instanceof GitCommandError) return null;
      throw error;
    }
  }

  /**
   * Merges the fetched branch into the checkout. Uncommitted files the server changed (held or refused files, or a
   * save that raced the commit) are set aside first and put back after, so the merge never touches local work.
   */
  private async merge(behind: number): Promise<void> {
    const serverChanged = nulSeparated(await this.git.raw(['diff', '--name-only', '-z', `HEAD...${this.tracking}`]));
    const changedSet = new Set(serverChanged);
    const status = await this.git.status();
    const dirty = unique(status.files.flatMap((entry) => (entry.from ? [entry.path, entry.from] : [entry.path])));
    const saved = new Map<string, Buffer | null>();
    for (const file of dirty.filter((f) => changedSet.has(f))) {
      saved.set(file, await readIfExists(this.full(file)));
      if ((await this.headContent(file)) !== null) await this.git.raw(['checkout', 'HEAD', '--', file]);
      else await fs.rm(this.full(file), { force: true });
    }

    const merged = await tryGit(this.git, ['merge', '--no-edit', '--no-verify', '-m', `Merge changes from the server (${this.branch})`, this.tracking]);
    let newlyHeld = new Set<string>();
    if (!merged.ok) {
      if ((await readIfExists(path.join(this.gitDir, 'MERGE_HEAD'))) === null) {
        for (const [file, content] of saved) await writeOrDelete(this.full(file), content);
        this.report('merge', `could not merge the server's changes (will retry): ${gitMessage(merged.error)}`);
        return;
      }
      newlyHeld = await this.resolveConflicts();
    }
    this.resolved('merge');
    this.log(`pulled ${plural(behind, 'commit')} from the server: ${listFiles(serverChanged)}`);

    for (const [file, local] of saved) {
      const server = await this.headContent(file);
      const held = this.state.held[file];
      if (held) {
        const again = !newlyHeld.has(file) && server !== null;
        if (again) await writeOrDelete(this.full(held.copy), server);
        await writeOrDelete(this.full(file), local);
        // Said once both files are as they stay: the person's version back in place, the server's in the copy.
        if (again) this.log(`${file} changed on the server again: ${held.copy} now has the server's new version`);
      } else if (sameContent(local, server)) {
        delete this.state.refused[file];
      } else if (server === null) {
        await writeOrDelete(this.full(file), local);
        this.log(`${file}: deleted on the server, changed here: kept your version`);
      } else {
        delete this.state.refused[file];
        await this.hold(file, local, server);
      }
    }
    await this.saveState();
  }

  /** Keeps `local` in the file and `server` in its server copy, and stops syncing the file. */
  private async hold(file: string, local: Buffer | null, server: Buffer | null): Promise<void> {
    const copy = await serverCopyPath(file, async (candidate) => {
      if ((await readIfExists(this.full(candidate))) !== null) return true;
      const tracked = await this.git.raw(['ls-files', '-z', '--', candidate]);
      return tracked.length > 0;
    });
    await writeOrDelete(this.full(copy), server);
    await writeOrDelete(this.full(file), local);
    this.state.held[file] = { copy };
    // Its local version lost the merge: the push that follows carries the server's, so it must not be named as pushed.
    this.unpushed = this.unpushed.filter((name) => name !== file);
    await this.saveState();
    this.log(
      `conflict in ${file}: your version stays in ${file}, the server's version is in ${copy} (not synced). ` +
        `${file} stops syncing: merge what you want to keep into ${file}, then delete ${copy} and it syncs again`,
    );
  }

  /** Completes a conflicted merge by the rules at the top of this file; answers the files it held. */
  private async resolveConflicts(): Promise<Set<string>> {
    const stages = new Map<string, Map<number, string>>();
    for (const entry of nulSeparated(await this.git.raw(['ls-files', '-u', '-z']))) {
      const match = /^\d+ ([0-9a-f]+) (\d)\t(.*)$/s.exec(entry);
      if (!match) continue;
      const byStage = stages.get(match[3]) ?? new Map<number, string>();
      byStage.set(Number(match[2]), match[1]);
      stages.set(match[3], byStage);
    }
    const held: Array<{ file: string; local: Buffer; server: Buffer }> = [];
    for (const [file, byStage] of stages) {
      const ours = byStage.get(2);
      const theirs = byStage.get(3);
      if (ours && theirs) {
        held.push({ file, local: await this.git.showBuffer(ours), server: await this.git.showBuffer(theirs) });
        await this.git.raw(['checkout', '--theirs', '--', file]);
        await this.git.raw(['add', '--', file]);
      } else if (ours) {
        await writeOrDelete(this.full(file), await this.git.showBuffer(ours));
        await this.git.raw(['add', '--', file]);
        this.log(`${file}: changed here, deleted on the server: kept your version`);
      } else if (theirs) {
        await this.git.raw(['checkout', '--theirs', '--', file]);
        await this.git.raw(['add', '--', file]);
        this.log(`${file}: changed on the server, deleted here: kept the server's version`);
      } else {
        await this.git.raw(['rm', '--quiet', '--cached', '--ignore-unmatch', '--', file]);
        await fs.rm(this.full(file), { force: true });
      }
    }
    await this.git.raw(['commit', '--quiet', '--no-edit', '--no-verify']);
    for (const { file, local, server } of held) await this.hold(file, local, server);
    return new Set(held.map((h) => h.file));
  }

  /** Pushes local commits; merges and retries when the server moved, sets refused files aside when it refuses. */
  async pushAhead(): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const ahead = await this.count(`${this.tracking}..HEAD`);
      if (ahead === 0) {
        this.unpushed = [];
        return;
      }
      const pushed = await tryGit(this.git, ['push', '--porcelain', '--no-verify', 'origin', `HEAD:refs/heads/${this.branch}`]);
      if (pushed.ok) {
        await this.git.raw(['update-ref', this.tracking, 'HEAD']);
        const files = unique(this.unpushed);
        this.unpushed = [];
        this.resolved('push');
        this.log(files.length > 0 ? `committed and pushed ${plural(files.length, 'file')}: ${listFiles(files)}` : `pushed ${plural(ahead, 'commit')}`);
        return;
      }
      const refusal = refusalOf(pushed.error.stderr);
      if (refusal?.reason === 'invalid') {
        await this.setRefusedAside(refusal);
        continue;
      }
      // Behind: someone pushed first (the server says `stale`, or git saw it itself); `busy`: other writers held the
      // repository too long. Either way: bring their work in and push again.
      if (refusal?.reason === 'stale' || refusal?.reason === 'busy' || (!refusal && isBehind(pushedRefs(pushed.error.stdout)))) {
        if (!(await this.pull())) return;
        continue;
      }
      this.report('push', `could not push (your commits are kept and will be pushed later): ${gitMessage(pushed.error)}`);
      return;
    }
  }

  /**
   * The server refused the push for its content: print why, keep the commit as refs/quire/refused, undo it in the
   * branch without touching files, stop syncing the files the reasons name (or, when none is among the pushed
   * changes, all of them) until they change, and commit the rest again.
   */
  private async setRefusedAside(refusal: Refusal): Promise<void> {
    const pushedFiles = nulSeparated(await this.git.raw(['diff', '--name-only', '-z', this.tracking, 'HEAD']));
    const problems = refusedProblems(refusal, pushedFiles);
    const named = unique(problems.flatMap((p) => (p.path && pushedFiles.includes(p.path) ? [p.path] : [])));
    const culprits = named.length > 0 ? named : pushedFiles;
    for (const problem of problems) this.log(`the server refused the push: ${problem.text}`);
    await this.git.raw(['update-ref', 'refs/quire/refused', 'HEAD']);
    await this.git.raw(['reset', '--quiet', this.tracking]);
    for (const file of culprits) this.state.refused[file] = await digestOf(this.full(file));
    await this.saveState();
    const them = culprits.length === 1 ? 'it' : 'them';
    this.log(`${listFiles(culprits)} stop${culprits.length === 1 ? 's' : ''} syncing until you change ${them} (the refused commit is kept as refs/quire/refused)`);
    this.unpushed = this.unpushed.filter((file) => !culprits.includes(file));
    await this.commitLocal();
  }
}
