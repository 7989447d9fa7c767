/**
 * Histories of the shapes real repositories have, written straight into a bare repository with `git fast-import`
 * (thousands of commits in well under a second): merges of long-lived branches, renames, deletions.
 */
import { spawn } from 'node:child_process';

/** Feeds a fast-import stream to the repository at `gitDir`. */
export function fastImport(gitDir: string, stream: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet', '--force'], { env: { ...process.env, GIT_DIR: gitDir, GIT_CONFIG_NOSYSTEM: '1' }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import failed (${code}): ${stderr}`))));
    child.stdin.end(stream);
  });
}

export interface LongHistoryOptions {
  /** Commits on main (merges included). */
  commits: number;
  /** Pages of the space (created by the first commits, then edited, renamed and re-added). */
  pages: number;
  /** Every Nth commit of main merges a side branch of a few commits (a "Merge pull request" shape). */
  mergeEvery?: number;
  /** The ref to write (default refs/heads/main). */
  ref?: string;
  /** Seconds since the epoch of the first commit. */
  start?: number;
}

/** The branch the side commits are written on; removed once the history is written. */
const SIDE_BRANCH = 'refs/heads/fixture-side-branch';

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/**
 * A fast-import stream of a docs history: a SUMMARY.md and README.md, `pages` pages under `guide/`, then commits
 * that edit one page each, and every `mergeEvery`th commit a merge of a two-commit branch that edits a page and
 * renames another (the way pull requests land). Deterministic for the same options.
 */
export function longHistoryStream(options: LongHistoryOptions): string {
  const ref = options.ref ?? 'refs/heads/main';
  const mergeEvery = options.mergeEvery ?? 10;
  let time = options.start ?? 1_600_000_000;
  let mark = 0;
  const names = Array.from({ length: options.pages }, (_, i) => `guide/page-${i}.md`);
  const summary = () => `# Table of contents\n\n* [Home](README.md)\n${names.map((n, i) => `* [Page ${i}](${n})\n`).join('')}`;
  const out: string[] = [];
  const commit = (branchRef: string, message: string, from: number | undefined, merges: number[], body: string): number => {
    mark += 1;
    time += 60;
    out.push(`commit ${branchRef}\nmark :${mark}\nauthor Writer <writer@example.com> ${time} +0000\ncommitter Writer <writer@example.com> ${time} +0000\n${data(message)}`);
    if (from !== undefined) out.push(`from :${from}\n`);
    for (const m of merges) out.push(`merge :${m}\n`);
    out.push(body, '\n');
    return mark;
  };
  const page = (i: number, revision: number) => `# Page ${i}\n\nRevision ${revision} of page ${i}.\n\n${'Some words about the topic. '.repeat(8)}\n`;
  let files = `M 100644 inline README.md\n${data('# Home\n\nWelcome.\n')}`;
  names.forEach((n, i) => (files += `M 100644 inline ${n}\n${data(page(i, 0))}`));
  files += `M 100644 inline SUMMARY.md\n${data(summary())}`;
  let head = commit(ref, 'Initial import', undefined, [], files);
  let made = 1;
  let renames = 0;
  while (made < options.commits) {
    if (made % mergeEvery === 0 && made + 3 <= options.commits) {
      const edited = made % names.length;
      const moved = (renames * 7 + 3) % names.length;
      const editBody = `M 100644 inline ${names[edited]}\n${data(page(edited, made))}`;
      const from = names[moved];
      const to = `guide/moved-${renames++}.md`;
      names[moved] = to;
      const moveBody = `R ${from} ${to}\nM 100644 inline SUMMARY.md\n${data(summary())}`;
      const a = commit(SIDE_BRANCH, `Edit page ${edited}`, head, [], editBody);
      const b = commit(SIDE_BRANCH, `Move page ${moved}`, a, [], moveBody);
      const side = commit(ref, `Edit README ${made}`, head, [], `M 100644 inline README.md\n${data(`# Home\n\nWelcome, edit ${made}.\n`)}`);
      // The merge's tree: main's (README edited) with the branch's two changes.
      head = commit(ref, `Merge pull request #${made} from writer/pr-${made}`, side, [b], editBody + moveBody);
      made += 4;
      continue;
    }
    const edited = made % names.length;
    head = commit(ref, `Edit page ${edited}`, head, [], `M 100644 inline ${names[edited]}\n${data(page(edited, made))}`);
    made += 1;
  }
  return out.join('');
}

/** Writes a long history (longHistoryStream) into the bare repository at `gitDir`; returns the tip's oid. */
export async function writeLongHistory(gitDir: string, options: LongHistoryOptions): Promise<string> {
  await fastImport(gitDir, longHistoryStream(options));
  const env = { ...process.env, GIT_DIR: gitDir };
  await run('git', ['update-ref', '-d', SIDE_BRANCH], env).catch(() => undefined);
  return (await run('git', ['rev-parse', options.ref ?? 'refs/heads/main'], env)).trim();
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} failed (${code})`))));
  });
}
