/**
 * Writing one page into a change request's branch: its file created or its body replaced, as one commit by the
 * caller on the branch, moved by compare-and-swap (placed again on the new head when someone moved it first). Main
 * never moves: the page reaches it when the change request is merged. The same rules as an import into a change
 * request: edit on the space, a space that is not locked, a change request neither merged nor archived.
 *
 * Decisions:
 * - `path` is the page's path in the space (`guides/install`; a `.md` ending is dropped). The page there is written
 *   in its own file; with no page there, the file at `path.md` or `path/README.md` when one exists (a file
 *   SUMMARY.md does not list), else a new `path.md` under the content root.
 * - A page's front matter (its id, description, layout) is kept, unless the markdown opens with front matter of its
 *   own, which then replaces it.
 * - The title is `title` when given, else the markdown's first `# H1`, else the page's current title; it is written
 *   as the body's first heading. SUMMARY.md, when it lists the page, keeps its own title for it (as for a push).
 * - A page SUMMARY.md does not list is appended to it, when the space has one (without one, folders list pages).
 * - The file is parsed as a push parses it (on the CPU pool): front matter that does not parse, or a known key of
 *   the wrong type, is refused naming the problem, and nothing is written.
 */
import type { Caller, Context } from '../context.js';
import { Conflict, InvalidArgument } from '../errors.js';
import { requireSpacePermission } from '../permissions.js';
import { projectDirectoryOf } from '../content/spaces.js';
import { loadRevision } from '../content/revisions.js';
import { branchOf } from '../content/refs.js';
import { requireTakesChanges, requireWritable } from '../imports/imports.js';
import { loadChangeRequest } from './change-requests.js';
import { parseFrontMatter } from '../../content/frontmatter.js';
import { documentPages } from '../../content/links.js';
import { fileTitle, sameTitle, splitTitle } from '../../content/page-title.js';
import { folderOf, relativePath, trimSlashes } from '../../content/paths.js';
import { formatProblem, isError } from '../../content/problems.js';
import { inProjectDirectory } from '../../content/project-directory.js';
import { readConfig } from '../../content/revision.js';
import { summaryWithEntries } from '../../content/import-plan.js';
import { queueGitSyncOfChangeRequest } from '../git-sync/change-request-moved.js';

export interface PageWriteInput {
  path: string;
  markdown: string;
  title?: string;
}

export interface PageWriteResult {
  /** The commit written on the change request's branch. */
  revision: string;
  changeRequestNumber: number;
  /** The page's path in the space, and its file (from the space's project directory). */
  path: string;
  gitPath: string;
  /** True when the file did not exist before. */
  created: boolean;
}

const MAX_ATTEMPTS = 8;
/** Longest page path taken: a path is a few folders deep, and git and file systems cap names near this anyway. */
const MAX_PATH = 1024;
/** What a segment of a new page's path may not hold: what a checkout on any system could not write. */
const UNSAFE_SEGMENT = /[\u0000-\u001f\u007f\\:*?"<>|]/;

/** The page path `raw` names (`/guides/install.md` -> `guides/install`); a 400 naming `path` when it cannot be a page's. */
export function pagePathOf(raw: string): string {
  const path = trimSlashes(raw.trim()).replace(/\.md$/i, '');
  const segments = path.split('/');
  const unusable = segments.find((segment) => segment === '' || segment === '.' || segment === '..' || segment.startsWith('.') || UNSAFE_SEGMENT.test(segment));
  if (path.length > MAX_PATH || unusable !== undefined) {
    throw new InvalidArgument(
      `path: "${raw}" is not a page path: folders and a name separated by "/", none empty or starting with ".", without control characters or \\ : * ? " < > |`,
    );
  }
  return path;
}

/** A title as a heading line whose text reads back the same (markdown punctuation escaped). */
function headingLine(title: string): string {
  return `# ${title.replace(/\s+/g, ' ').trim().replace(/[\\`*_[\]<>]/g, '\\$&')}`;
}

/**
 * The page file's text: the front matter kept from `original` (unless the markdown brings its own), then the title
 * heading, then the body (see the decisions at the top of this file).
 */
function pageFileText(input: PageWriteInput, original: string | undefined, currentTitle: string | undefined): string {
  const own = parseFrontMatter(input.markdown, 'markdown');
  if (!own.ok) throw new InvalidArgument(formatProblem(own.problem));
  const kept = !own.value.present && original !== undefined ? parseFrontMatter(original, 'page') : undefined;
  const frontMatter = own.value.present
    ? input.markdown.slice(0, input.markdown.length - own.value.body.length)
    : kept?.ok && kept.value.present
      ? original!.slice(0, original!.length - kept.value.body.length)
      : '';
  const body = own.value.body.replace(/^(?:[ \t]*\r?\n)+/, '');
  const split = splitTitle(body);
  const heading = input.title ?? (split.title === undefined ? currentTitle : undefined);
  // A heading the markdown already opens with, reading as the title, is not written twice.
  const rest = input.title !== undefined && split.title !== undefined && sameTitle(split.title, input.title) ? split.markdown : body;
  const text = heading === undefined ? body : `${headingLine(heading)}\n${rest === '' ? '' : `\n${rest}`}`;
  return `${frontMatter}${frontMatter === '' ? '' : '\n'}${text.endsWith('\n') ? text : `${text}\n`}`;
}

/** Writes one page into the change request's branch (see the rules at the top of this file). */
export async function writeChangeRequestPage(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string, input: PageWriteInput): Promise<PageWriteResult> {
  const { space, role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'edit', 'write pages in its change requests');
  requireWritable(space);
  requireTakesChanges(changeRequest);
  const path = pagePathOf(input.path);
  const ref = branchOf(changeRequest.number);
  const author = { name: caller.user.display_name, email: caller.user.email };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const head = await ctx.reader.resolveRef(spaceId, ref);
    if (!head) throw new Conflict(`changeRequestId: the branch of change request ${changeRequest.number} does not exist`);
    const commit = await ctx.reader.readCommit(spaceId, head);
    if (!commit) throw new Error(`commit ${head} of ${ref} cannot be read`);
    // Monorepos: the space's content is its project directory; paths below are the space's, written under it.
    const directory = await projectDirectoryOf(ctx, spaceId);
    const entries = inProjectDirectory(await ctx.reader.listBlobs(spaceId, commit.tree), directory);
    const byPath = new Map(entries.map((entry) => [entry.path, entry]));
    const readText = async (oid: string) => (await ctx.reader.readBlob(spaceId, oid)).toString('utf8');
    const { config } = await readConfig({ entries, readBlob: (oid) => ctx.reader.readBlob(spaceId, oid) });
    const content = await loadRevision(ctx, spaceId, head);

    const pages = documentPages(content.revision.pages);
    const page = pages.find((candidate) => candidate.path === path);
    const gitPath = page?.gitPath ?? [`${config.root}${path}.md`, `${config.root}${path}/README.md`].find((candidate) => byPath.has(candidate)) ?? `${config.root}${path}.md`;
    const existing = byPath.get(gitPath);
    const text = pageFileText(input, existing ? await readText(existing.oid) : undefined, page?.title);

    const [parsed] = await ctx.cpu.run('parsePages', { files: [{ text, options: { gitPath, root: config.root } }], fileIds: {} });
    const problems = parsed.problems.filter(isError);
    if (problems.length > 0) throw new InvalidArgument(`markdown: ${problems.slice(0, 3).map(formatProblem).join('; ')}`);

    const written = new Map<string, string>([[directory + gitPath, text]]);
    const summaryPath = config.root + config.summary;
    const summary = byPath.get(summaryPath);
    const listed = pages.some((candidate) => candidate.gitPath === gitPath);
    if (summary && !listed) {
      const title = parsed.page.title || fileTitle(gitPath);
      const item = { type: 'page' as const, title, path: relativePath(folderOf(summaryPath), gitPath), children: [] };
      written.set(directory + summaryPath, summaryWithEntries({ summaryText: await readText(summary.oid), pageEntries: [] }, [item]));
    }
    const tree = await ctx.git.replaceInTree(spaceId, commit.tree, written);
    const message = `${existing ? 'Update' : 'Add'} ${gitPath}\n\nWritten in change request #${changeRequest.number} through the API.\n`;
    const oid = await ctx.git.commitTree(spaceId, tree, [head], message, author);
    if (await ctx.git.compareAndSwapRef(spaceId, ref, oid, head)) {
      // Reads cached by this process (the branch's head) must see the write at once.
      ctx.cache.invalidate();
      ctx.events.publish({ spaceId, changeRequestId: changeRequest.id, kind: 'change-request', action: 'pushed' });
      await queueGitSyncOfChangeRequest(ctx, spaceId, changeRequest.id, oid);
      return { revision: oid, changeRequestNumber: changeRequest.number, path, gitPath, created: !existing };
    }
  }
  throw new Conflict(`${ref}: it kept moving while the page was written; try again`);
}
