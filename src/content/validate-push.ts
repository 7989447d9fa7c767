/**
 * What a push must satisfy before any ref moves. The server calls `validatePush` when a receive-pack's pre-receive
 * hook hands it the push (src/domain/content/push-decision.ts), with the ref updates git received, the space's
 * settings and a reader of the pushed objects (PushedObjects); any error refuses the whole push, and each is printed
 * in the git client as `remote: <path>: <reason>`. Warnings (what the hosted platform tolerates, see ContentProblem)
 * let the push through and are printed as `remote: warning: <path>:<line>: <reason>`.
 *
 * Rules here: which refs accept pushes, a file size limit, and that nothing points outside the tree; then the
 * content each pushed branch would show must read (contentProblems, the checks of src/content/validate-content.ts).
 */
import { checkContent, type ContentCheck } from './validate-content.js';
import { reanalyzePages } from './revise-tree.js';
import { sortProblems } from './problems.js';
import type { TreeEntry } from './model.js';
import type { TreeSource } from './tree-source.js';
import { inProjectDirectory } from './project-directory.js';
import { Turns } from './turns.js';

export interface RefUpdate {
  ref: string;
  oldOid: string;
  /** All zeros for a deletion. */
  newOid: string;
}

/** One reason to refuse a push, or a warning; `path` names the file it is about (`line` within it, when known). */
export interface PushProblem {
  path?: string;
  line?: number;
  message: string;
  /** Absent or `'error'`: the push is refused. `'warning'`: it goes through, and the warning is printed. */
  severity?: 'error' | 'warning';
}

/** A path the push changes between two trees: its modes before and after (000000: absent) and its new blob. */
export interface TreeChange {
  path: string;
  oldMode: string;
  newMode: string;
  newOid: string;
}

/**
 * What the checks read of a push not yet accepted: its objects, and how its commits and trees differ from what the
 * repository holds. The server reads them from git's quarantine (src/store/git/incoming-push.ts); missing objects
 * are left out of every answer.
 */
export interface PushedObjects {
  /** Type and size of each object. */
  objectInfo(oids: readonly string[]): Promise<Map<string, { type: string; size: number }>>;
  /** What each object leads to through annotated tags (itself when it is not a tag): the final object and its type. */
  peeled(oids: readonly string[]): Promise<Map<string, { oid: string; type: string }>>;
  /** Commits reachable from `tips` that no ref of the repository reaches yet: what the push brings, oldest first. */
  newCommits(tips: readonly string[]): Promise<string[]>;
  /** Files, symlinks and submodules the commits add or change relative to each of their parents (no deletions). */
  changedEntries(commits: readonly string[]): Promise<Array<{ path: string; mode: string; oid: string }>>;
  /** How the tree of commit `to` differs from that of `from`: each path added, changed or deleted (no renames). */
  treeChanges(from: string, to: string): Promise<TreeChange[]>;
  /** Every blob of a commit's tree (files, symlinks, submodules) with its size. */
  listTree(commit: string): Promise<TreeEntry[]>;
  /** The contents of blobs; other objects are left out. */
  readBlobs(oids: readonly string[]): Promise<Map<string, Buffer>>;
}

/** What the checks need to know of the space pushed to. */
export interface PushSettings {
  /** The largest file a push may bring, in bytes. */
  maxFileBytes: number;
  /** The space's change requests: which branch numbers exist and which take no more pushes. */
  changeRequests: ChangeRequestStates;
  /** The space's project directory ('' for the root, see ./project-directory.ts): only what is under it is content. */
  projectDirectory: string;
}

/** The highest change request number of a space, and its change requests that are `merged` or `archived`, by number. */
export interface ChangeRequestStates {
  last: number;
  closed: Record<string, string>;
}

export interface ValidatePushInput {
  /** Names the repository among those whose checks the server keeps (PageParsing.checks): the space's id. */
  repository: string;
  updates: RefUpdate[];
  settings: PushSettings;
  objects: PushedObjects;
}

const MAIN = 'refs/heads/main';
const CHANGE_REQUEST = /^refs\/heads\/change-requests\/[1-9][0-9]*$/;
const TAG = /^refs\/tags\//;
const ZERO_OID = /^0+$/;
const SYMLINK = '120000';
const SUBMODULE = '160000';

/** `path:line: message`, `path: message`, or the message alone. */
export function formatPushProblem(problem: PushProblem): string {
  if (problem.path === undefined) return problem.message;
  return problem.line === undefined ? `${problem.path}: ${problem.message}` : `${problem.path}:${problem.line}: ${problem.message}`;
}

/**
 * What the server keeps for the checks: the pages and SUMMARY.md files it parsed before and its CPU pool (TreeSource), and the checks of
 * trees pushed before, by checkKey: a push whose tree differs from its ref's previous tree only in the contents of
 * page files is checked from that check, reading and parsing only those pages.
 */
export interface PageParsing extends Pick<TreeSource, 'parsePages' | 'parseSummary' | 'parsedPages' | 'parsedSummaries'> {
  checks?: ContentCheckStore;
}

/** Content checks kept by the server, by checkKey. */
export interface ContentCheckStore {
  get(key: string): ContentCheck | undefined;
  set(key: string, check: ContentCheck): void;
}

/** The key of a commit's content check. */
export function checkKey(repository: string, projectDirectory: string, commit: string): string {
  return `${repository}\n${projectDirectory}\n${commit}`;
}

export async function validatePush(input: ValidatePushInput, parsing: PageParsing = {}): Promise<PushProblem[]> {
  const { repository, settings, objects } = input;
  const problems: PushProblem[] = input.updates.flatMap((update) => refProblems(update, settings.changeRequests));
  const updates = input.updates.filter((update) => !ZERO_OID.test(update.newOid));
  if (updates.length === 0) return problems;

  const { projectDirectory } = settings;
  // Per pushed tip, what its content check starts from: the check of the ref's previous commit when the server
  // kept it (then only what changed is read), else the tip's whole tree. These and the new commits are listed
  // while the tips' types are read (a push's wait is its latency); a tip that is not a commit fails them, and
  // they are asked again without it.
  const pushed = [...new Set(updates.map((update) => update.newOid))];
  // Tags are kept and not shown: what they bring follows the rules of every pushed file, not the content checks
  // (an old release's pages need not read by today's rules).
  const branches = updates.filter((update) => !TAG.test(update.ref));
  const starts = new Map(
    branches.map((update) => {
      const base = ZERO_OID.test(update.oldOid) ? undefined : parsing.checks?.get(checkKey(repository, projectDirectory, update.oldOid));
      const start: CheckStart = base ? { base, changes: objects.treeChanges(update.oldOid, update.newOid) } : { tree: objects.listTree(update.newOid) };
      return [update.newOid, start] as const;
    }),
  );
  const newCommits = objects.newCommits(pushed);
  for (const early of [...[...starts.values()].map((start) => start.changes ?? start.tree!), newCommits]) early.catch(() => undefined);
  const tips = await objects.objectInfo(pushed);
  // A tag may be annotated: it leads to what it tags, through tags of tags.
  const annotated = updates.filter((update) => TAG.test(update.ref) && tips.get(update.newOid)?.type === 'tag');
  const tagged = await objects.peeled(annotated.map((update) => update.newOid));
  const leadingToCommits = new Set<string>();
  for (const update of updates) {
    const tag = TAG.test(update.ref);
    const type = tag && tips.get(update.newOid)?.type === 'tag' ? tagged.get(update.newOid)?.type : tips.get(update.newOid)?.type;
    if (type === 'commit') leadingToCommits.add(update.newOid);
    else problems.push({ message: `${update.ref}: must point at a commit${tag ? ' (or at a tag of one)' : ''}, not ${type ? `a ${type}` : 'a missing object'}` });
  }
  const checkedTips = pushed.filter((oid) => leadingToCommits.has(oid));
  const commitTips = [...new Set(branches.filter((update) => tips.get(update.newOid)?.type === 'commit').map((update) => update.newOid))];
  const [entryProblems, content] = await Promise.all([
    (async () => {
      const entries = await objects.changedEntries(await (checkedTips.length === pushed.length ? newCommits : objects.newCommits(checkedTips)));
      // The sizes of the tips' listed trees (a first push lists its whole tree) are not asked again.
      const listed = new Map<string, number>();
      for (const start of starts.values()) for (const entry of (await start.tree?.catch(() => undefined)) ?? []) listed.set(entry.oid, entry.size);
      const [sizes, links] = await Promise.all([sizeProblems(objects, entries, settings.maxFileBytes, listed), symlinkProblems(objects, entries)]);
      return [...(await pathProblems(entries)), ...sizes, ...links];
    })(),
    contentProblems(objects, commitTips.map((tip) => ({ tip, start: starts.get(tip)! })), { repository, projectDirectory }, parsing),
  ]);
  problems.push(...entryProblems, ...content);
  return unique(problems);
}

/**
 * Text the content checks read before the pages: configuration, SUMMARY.md, variables, the manifest, reusable
 * contents (page files are read afterwards, and only those not parsed before; images never: no rule needs them).
 */
const READ_FIRST = /(\.ya?ml|(^|\/)summary\.md|^(.*\/)?\.gitbook\/includes\/.*\.md)$/i;

/** Where a tip's content check starts: a kept check and the tree changes since, or the tip's whole tree. */
interface CheckStart {
  base?: ContentCheck;
  changes?: Promise<TreeChange[]>;
  tree?: Promise<TreeEntry[]>;
}

const REGULAR_FILE = /^1006[0-7]{2}$/;

/**
 * The content each pushed branch would show must read: front matter, SUMMARY.md, .gitbook.yaml, vars.yaml
 * (src/content/validate-content.ts, the same analysis the API uses to build a revision). Checked on the tree each
 * ref would point at, whatever the commits in between; pages parsed before (`parsing`) are not parsed again, and a
 * tree that differs from a checked one only in page contents is checked from that check (reanalyzePages).
 */
async function contentProblems(
  objects: PushedObjects,
  tips: Array<{ tip: string; start: CheckStart }>,
  space: { repository: string; projectDirectory: string },
  parsing: PageParsing,
): Promise<PushProblem[]> {
  const { projectDirectory } = space;
  const problems: PushProblem[] = [];
  for (const { tip, start } of tips) {
    const blobs = blobReader((oids) => objects.readBlobs(oids));
    const changes = await start.changes?.catch(() => undefined);
    const changed = start.base && changes && pageChangesOnly(start.base, changes, projectDirectory);
    let check: ContentCheck;
    if (start.base && changed) {
      check = await reanalyzePages(start.base, changed, { readBlob: blobs.read, ...parsing });
    } else {
      // Monorepos: only the space's project directory is its content; the rest is kept, not read.
      const entries = inProjectDirectory(await (start.tree ?? objects.listTree(tip)), projectDirectory);
      blobs.prefetch(entries.filter((e) => e.mode !== SUBMODULE && READ_FIRST.test(e.path)).map((e) => e.oid));
      // A repository's assets can weigh hundreds of megabytes; their dimensions matter to reads, not to the checks.
      check = await checkContent({ entries, readBlob: blobs.read, dimensionsOf: async () => undefined, ...parsing });
    }
    parsing.checks?.set(checkKey(space.repository, projectDirectory, tip), check);
    for (const problem of sortProblems(check.problems)) {
      problems.push({ path: projectDirectory + problem.path, line: problem.line, message: problem.message, severity: problem.severity });
    }
  }
  return problems;
}

/**
 * The page files whose contents changed (path in the space -> new blob), when that is all that changed between a
 * checked tree and the next under the project directory: every change a regular file that stays one, at a path that
 * is a page of the checked tree. Undefined otherwise (files added, deleted or renamed, SUMMARY.md edited...).
 */
function pageChangesOnly(base: ContentCheck, changes: TreeChange[], projectDirectory: string): Map<string, string> | undefined {
  const pages = new Set(base.pageChecks.map((check) => check.options.gitPath));
  const changed = new Map<string, string>();
  for (const change of changes) {
    if (!change.path.startsWith(projectDirectory)) continue;
    const path = change.path.slice(projectDirectory.length);
    if (!REGULAR_FILE.test(change.oldMode) || !REGULAR_FILE.test(change.newMode) || !pages.has(path)) return undefined;
    changed.set(path, change.newOid);
  }
  return changed;
}

/**
 * Blobs read once each, and together: one read for the prefetched ones, one for those asked for in the same turn of
 * the event loop (the page files a build asks for at once), instead of a process per blob. Each blob's promise is
 * made when it is asked for, and handed to whoever asked: a prefetched blob the check never reads (a kept
 * SUMMARY.md, a YAML file no rule reads) leaves no promise behind that would reject unobserved once the push's
 * reader is closed.
 */
function blobReader(readMany: (oids: string[]) => Promise<Map<string, Buffer>>) {
  const known = new Map<string, Promise<Map<string, Buffer>>>();
  let next: { oids: string[]; blobs: Promise<Map<string, Buffer>> } | undefined;
  return {
    prefetch(oids: string[]): void {
      const fresh = [...new Set(oids)].filter((oid) => !known.has(oid));
      if (fresh.length === 0) return;
      const blobs = readMany(fresh);
      // A guess at what the check reads: its failure matters only to a read of one of its blobs, which gets it.
      blobs.catch(() => undefined);
      for (const oid of fresh) known.set(oid, blobs);
    },
    read(oid: string): Promise<Buffer> {
      let blobs = known.get(oid);
      if (!blobs) {
        if (!next) {
          const oids: string[] = [];
          const batch = new Promise((resolve) => setImmediate(resolve)).then(() => {
            next = undefined;
            return readMany(oids);
          });
          next = { oids, blobs: batch };
        }
        next.oids.push(oid);
        blobs = next.blobs;
        known.set(oid, blobs);
      }
      return blobs.then((found) => found.get(oid) ?? Buffer.alloc(0));
    },
  };
}

/**
 * Only main, change-request branches and tags accept pushes, main cannot be deleted, and a change request's branch
 * takes pushes only while the change request exists and is neither merged nor archived. Tags are kept as pushed
 * (moved, deleted): `git push --follow-tags` and mirrors push them beside main.
 */
function refProblems(update: RefUpdate, states: ChangeRequestStates): PushProblem[] {
  if (TAG.test(update.ref)) return [];
  if (update.ref === MAIN) {
    return ZERO_OID.test(update.newOid) ? [{ message: `${MAIN}: main cannot be deleted` }] : [];
  }
  if (CHANGE_REQUEST.test(update.ref)) {
    const number = update.ref.slice(update.ref.lastIndexOf('/') + 1);
    if (ZERO_OID.test(update.newOid)) return [];
    if (Number(number) > states.last) {
      return [{ message: `${update.ref}: there is no change request ${number} in this space; open one through the API first` }];
    }
    const closed = states.closed[number];
    return closed ? [{ message: `${update.ref}: change request ${number} is ${closed}; it takes no more pushes` }] : [];
  }
  return [{ message: `${update.ref}: only ${MAIN}, refs/heads/change-requests/<number> and tags accept pushes` }];
}

type Entry = { path: string; mode: string; oid: string };

/** No `.`, `..` or empty segment, and no `.git` folder or file (git refuses them on checkout, not on receive). */
async function pathProblems(entries: Entry[]): Promise<PushProblem[]> {
  const problems: PushProblem[] = [];
  // A first push of 10,000 files: other requests run between turns.
  const turns = new Turns();
  for (const entry of entries) {
    if (turns.due()) await turns.take();
    const segments = entry.path.split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
      problems.push({ path: entry.path, message: 'has an empty, "." or ".." segment: paths must stay inside the tree' });
    } else if (segments.some((segment) => segment.toLowerCase() === '.git')) {
      problems.push({ path: entry.path, message: 'is inside a ".git" folder, which a repository cannot contain' });
    }
  }
  return problems;
}

function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}

/** Every file the push adds or changes is at most `limit` bytes (`listed`: sizes known already, by blob). */
async function sizeProblems(objects: PushedObjects, entries: Entry[], limit: number, listed: ReadonlyMap<string, number>): Promise<PushProblem[]> {
  const files = entries.filter((entry) => entry.mode !== SUBMODULE);
  const info = await objects.objectInfo(files.filter((entry) => !listed.has(entry.oid)).map((entry) => entry.oid));
  const problems: PushProblem[] = [];
  const turns = new Turns();
  for (const entry of files) {
    if (turns.due()) await turns.take();
    const size = listed.get(entry.oid) ?? info.get(entry.oid)?.size ?? 0;
    if (size > limit) {
      const exact = size < 1024 ? '' : ` (${size} bytes)`;
      problems.push({ path: entry.path, message: `is ${formatBytes(size)}${exact}, more than the ${formatBytes(limit)} a file may have` });
    }
  }
  return problems;
}

/**
 * Symlinks stay inside the tree: no absolute target and no `..` segment. Refusing every `..` (rather than only the
 * ones that climb above the root) keeps the rule sound through chains of symlinks: each link then resolves below
 * its own folder.
 */
async function symlinkProblems(objects: PushedObjects, entries: Entry[]): Promise<PushProblem[]> {
  const links = entries.filter((entry) => entry.mode === SYMLINK);
  const targets = await objects.readBlobs(links.map((entry) => entry.oid));
  const problems: PushProblem[] = [];
  for (const link of links) {
    const target = targets.get(link.oid)?.toString('utf8') ?? '';
    const absolute = /^([/\\]|[A-Za-z]:)/.test(target);
    const segments = target.split(/[/\\]/);
    if (absolute || segments.includes('..')) {
      const where = absolute || escapes(link.path, segments) ? 'outside the tree' : 'through ".."';
      problems.push({ path: link.path, message: `is a symlink to "${target}", ${where}: symlinks must point inside the tree, without ".." or an absolute path` });
    }
  }
  return problems;
}

/** True when `segments`, followed from the link's folder, climb above the root. */
function escapes(linkPath: string, segments: string[]): boolean {
  let depth = linkPath.split('/').length - 1;
  for (const segment of segments) {
    if (segment === '..') depth--;
    else if (segment !== '' && segment !== '.') depth++;
    if (depth < 0) return true;
  }
  return false;
}

function unique(problems: PushProblem[]): PushProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = formatPushProblem(problem);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
