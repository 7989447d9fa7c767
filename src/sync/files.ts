/**
 * What `quire sync` keeps beside the checkout: which files it stopped syncing and why (`.git/quire-sync.json`),
 * and the patterns git must not see (`.git/info/exclude`): editor temp files and the server's copies of
 * conflicting files. Both live inside `.git/`, so they are never committed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { replaceFile } from '../store/replace-file.js';

/** Editor temp files: vim swap files and its `4913` write test, backups (`x~`), emacs lock and autosave files. */
const TEMP_PATTERNS = ['*.sw[a-p]', '*~', '.#*', '#*#', '4913'];

/** True for paths (relative to the checkout, `/`-separated) that are never synced: `.git/` and editor temp files. */
export function isIgnoredPath(relative: string): boolean {
  const segments = relative.split(/[\\/]/);
  if (segments.includes('.git')) return true;
  const name = segments[segments.length - 1] ?? '';
  return /\.sw[a-p]$/.test(name) || name.endsWith('~') || name.startsWith('.#') || /^#.*#$/.test(name) || name === '4913';
}

/**
 * Where the server's version of a conflicting file goes: `.server` before the extension (`guide/intro.md` ->
 * `guide/intro.server.md`, `Makefile` -> `Makefile.server`); `taken` says a name is in use, and then `-2`, `-3`...
 * is added (`intro.server-2.md`).
 */
export async function serverCopyPath(file: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  const dir = path.posix.dirname(file);
  const base = path.posix.basename(file);
  const dot = base.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
  for (let n = 1; ; n++) {
    const name = `${stem}.server${n === 1 ? '' : `-${n}`}${ext}`;
    const candidate = dir === '.' ? name : `${dir}/${name}`;
    if (!(await taken(candidate))) return candidate;
  }
}

/** A file held back after a conflict: its local version stays in place, the server's is in `copy`. */
export interface HeldFile {
  copy: string;
}

export interface SyncState {
  /** Conflicting files, by path: not committed until their server copy is deleted. */
  held: Record<string, HeldFile>;
  /** Files whose push the server refused, by path, with a digest of the refused content (null: deleted). */
  refused: Record<string, string | null>;
}

const STATE_FILE = 'quire-sync.json';

export async function readState(gitDir: string): Promise<SyncState> {
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(gitDir, STATE_FILE), 'utf8')) as Partial<SyncState>;
    return { held: parsed.held ?? {}, refused: parsed.refused ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { held: {}, refused: {} };
    throw error;
  }
}

export async function writeState(gitDir: string, state: SyncState): Promise<void> {
  const file = path.join(gitDir, STATE_FILE);
  await replaceFile(file, `${JSON.stringify(state, null, 2)}\n`);
}

const BEGIN = '# >>> quire sync (managed: editor temp files and server copies of conflicting files)';
const END = '# <<< quire sync';

/** A gitignore pattern matching exactly `file` (anchored; wildcards, `#`, `!` and trailing spaces escaped). */
function exactPattern(file: string): string {
  return `/${file.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`;
}

/** Rewrites quire sync's block of `.git/info/exclude` (the rest of the file is left as it is). */
export async function writeExcludes(gitDir: string, serverCopies: string[]): Promise<void> {
  const file = path.join(gitDir, 'info', 'exclude');
  let text = '';
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END, start);
  if (start >= 0 && end >= 0) text = text.slice(0, start) + text.slice(end + END.length).replace(/^\n/, '');
  if (text.length > 0 && !text.endsWith('\n')) text += '\n';
  const block = [BEGIN, ...TEMP_PATTERNS, ...serverCopies.map(exactPattern), END].join('\n');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${text}${block}\n`);
}

/** Reads a file of the checkout; null when it does not exist. */
export async function readIfExists(full: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw error;
  }
}

/** Writes (creating folders) or, for null, deletes a file of the checkout. */
export async function writeOrDelete(full: string, content: Buffer | null): Promise<void> {
  if (content === null) {
    await fs.rm(full, { force: true });
    return;
  }
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, content);
}

/** A digest of a file's content (null when it does not exist), to notice that a refused file changed. */
export async function digestOf(full: string): Promise<string | null> {
  const content = await readIfExists(full);
  return content === null ? null : crypto.createHash('sha256').update(content).digest('hex');
}

export type Change = 'added' | 'edited' | 'deleted';

/** `a.md, b.md and 3 more` (at most `max` names). */
export function listFiles(files: string[], max = 5): string {
  if (files.length <= max) return files.join(', ');
  return `${files.slice(0, max).join(', ')} and ${files.length - max} more`;
}

/** The commit message for saved changes: a subject naming the files, and every file with what happened to it. */
export function commitMessage(changes: Array<{ path: string; change: Change }>): string {
  const subject = `quire sync: ${listFiles(changes.map((c) => c.path))}`;
  const body = changes.map((c) => `- ${c.path} (${c.change})`).join('\n');
  return `${subject}\n\n${body}\n`;
}

/** `1 file`, `2 files`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
