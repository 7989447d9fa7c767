/**
 * A space's tree written from the pages and files an API answers (`quire migrate` from a source that does not serve
 * git): the reverse of reading a revision. Pure: the source's page tree and file bytes in, the files of the
 * repository out.
 *
 * - A document page is `PATH.md`, or `PATH/README.md` when document pages nest under it; the page whose path is
 *   empty (the space's first page) is `README.md`. Paths come from the source and are cleaned segment by segment
 *   (no `..`, no separators, no control characters); a path taken twice gets `-2`, `-3`...
 * - Its file is front matter (description, emoji, icon, hidden) then `# Title` and the page's markdown, so that
 *   the page reads back with the same title and markdown.
 * - SUMMARY.md lists the pages in the source's order: top-level groups as `## Title`, link pages as links.
 * - Files go to `.gitbook/assets/` under their names (" (1)", " (2)"... on a clash).
 * - `.quire/manifest.yaml` keeps the source's ids of pages and files, so that comments on a page and references to
 *   a file still find them.
 */
import { dumpYaml } from './frontmatter.js';
import { normalizePath, slugify } from './paths.js';
import { summaryPageKey } from './revision-structure.js';
import { MANIFEST_PATH, serializeManifest, type Manifest } from './manifest.js';
import { DEFAULT_SUMMARY_TITLE, type SummaryEntry, type SummaryItem } from './summary.js';
import { serializeSummary } from './summary-writing.js';

export interface SourcePage {
  id: string;
  title?: string;
  /** `document`, `group`, `link` (anything else, e.g. `computed`, is left out). */
  type?: string;
  path?: string;
  markdown?: string;
  href?: string;
  /** A link page's target: a page of the space (by id, with an anchor), or a URL. */
  target?: { kind?: string; page?: string; anchor?: string; url?: string };
  description?: string;
  emoji?: string;
  icon?: string;
  hidden?: boolean;
  pages?: SourcePage[];
}

export interface SourceFile {
  id: string;
  name: string;
  bytes: Buffer;
  /** Where the source keeps it in its repository, when it says (another Quire does, with `metadata`). */
  gitPath?: string;
}

const ASSETS = '.gitbook/assets/';

function cleanSegment(segment: string): string {
  return segment
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f\\:*?"<>|]+/g, '-')
    .replace(/^[.\s]+/, '')
    .trimEnd()
    .slice(0, 120);
}

/** The source's page path as safe path segments (empty for the first page). */
function cleanPath(path: string | undefined): string {
  return (path ?? '')
    .split('/')
    .map(cleanSegment)
    .filter((segment) => segment !== '')
    .join('/');
}

function isDocument(page: SourcePage): boolean {
  return (page.type ?? 'document') === 'document';
}

/** A file's name as the source gives it (`.DS_Store` too), but for separators and control characters; never `.` or `..`. */
function fileName(name: string): string {
  const cleaned = name.normalize('NFC').replace(/[\u0000-\u001f\u007f\\/]+/g, '-').trim().slice(0, 200);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

/**
 * The file's own path in the source's repository, when the source gives it and it can be kept: inside the tree,
 * not Quire's or git's own folders, not a page's file, ending in the file's name.
 */
function keptPath(file: SourceFile, pages: Map<string, string | Buffer>): string | undefined {
  const path = file.gitPath === undefined ? undefined : normalizePath(file.gitPath);
  if (!path || path !== file.gitPath || !path.endsWith(`/${file.name}`) && path !== file.name) return undefined;
  if (/^\.(quire|git)(\/|$)/.test(path) || path.split('/').some((segment) => /[\u0000-\u001f\u007f\\]/.test(segment)) || pages.has(path) || path === 'SUMMARY.md') return undefined;
  return path;
}

/** `name` unless taken (case-insensitively), else `stem (1).ext`, `stem (2).ext`... */
function freeFileName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let candidate = name;
  for (let n = 1; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** The repository's files for `pages` (in order, nested) and `files`. */
export function treeOfPages(pages: SourcePage[], files: SourceFile[], summaryTitle = DEFAULT_SUMMARY_TITLE): Map<string, string | Buffer> {
  const out = new Map<string, string | Buffer>();
  const manifest: Manifest = { pages: {}, files: {} };
  const takenPaths = new Set<string>();

  const fileOf = (page: SourcePage, hasChildren: boolean): string => {
    const base = cleanPath(page.path);
    const make = (path: string) => (path === '' ? 'README.md' : hasChildren ? `${path}/README.md` : `${path}.md`);
    let candidate = make(base);
    for (let n = 2; takenPaths.has(candidate.toLowerCase()) || (candidate !== 'README.md' && takenPaths.has(`${candidate.replace(/(\/README)?\.md$/, '')}/readme.md`)); n++) {
      candidate = make(`${base || 'page'}-${n}`);
    }
    takenPaths.add(candidate.toLowerCase());
    takenPaths.add(`${candidate.replace(/(\/README)?\.md$/, '').toLowerCase()}/readme.md`);
    return candidate;
  };

  // Groups and link pages have no file: their ids are kept under the key the reader gives them (revision.ts), SUMMARY.md
  // and the page path: a group's path is the source's; a link's is its parent's path and its title's slug (a document
  // page holding that path would make the reader number the link further: such a link gets a new id).
  // Numbered as the reader numbers a path taken by an earlier group or link (`basic-configuration-2`).
  const summaryPaths = new Set<string>();
  const keepId = (pagePath: string, id: string) => {
    let candidate = pagePath;
    for (let n = 2; summaryPaths.has(candidate); n++) candidate = `${pagePath}-${n}`;
    summaryPaths.add(candidate);
    manifest.pages[summaryPageKey('SUMMARY.md', candidate)] = id;
  };
  // Every document page's file first: a link page may point at a page listed after it.
  const fileById = new Map<string, string>();
  const assign = (list: SourcePage[]): void => {
    for (const page of list) {
      if (isDocument(page) && !fileById.has(page.id)) fileById.set(page.id, fileOf(page, (page.pages ?? []).some(isDocument)));
      assign(page.pages ?? []);
    }
  };
  assign(pages);
  /** A link to a page of the space points at that page's file here (the source's href names its own paths). */
  const hrefOf = (page: SourcePage): string | undefined => {
    const target = page.target?.kind === 'page' || page.target?.kind === 'anchor' ? page.target : undefined;
    const file = target?.page ? fileById.get(target.page) : undefined;
    if (file) return `${file}${target?.anchor ? `#${target.anchor}` : ''}`;
    return page.href;
  };

  const items = (list: SourcePage[], parentPath: string): SummaryItem[] => {
    const result: SummaryItem[] = [];
    for (const page of list) {
      const children = page.pages ?? [];
      const title = page.title || 'Untitled';
      const href = page.type === 'link' ? hrefOf(page) : undefined;
      if (href) {
        const slug = slugify(title, 'link');
        keepId(parentPath ? `${parentPath}/${slug}` : slug, page.id);
        result.push({ type: 'link', title, href, children: items(children, parentPath) });
      } else if (isDocument(page)) {
        const file = fileById.get(page.id)!;
        const frontMatter: Record<string, unknown> = {
          ...(page.description ? { description: page.description } : {}),
          ...(page.emoji ? { emoji: page.emoji } : {}),
          ...(page.icon ? { icon: page.icon } : {}),
          ...(page.hidden ? { hidden: true } : {}),
        };
        // The markdown as the source gives it, to the byte (no newline added): it reads back the same.
        const body = `# ${title}\n${page.markdown ? `\n${page.markdown}` : ''}`;
        out.set(file, Object.keys(frontMatter).length > 0 ? `---\n${dumpYaml(frontMatter)}---\n\n${body}` : body);
        manifest.pages[file] = page.id;
        result.push({ type: 'page', title, path: file, children: items(children, page.path ?? '') });
      }
    }
    return result;
  };

  const entries: SummaryEntry[] = [];
  for (const page of pages) {
    if (page.type === 'group') {
      if (page.path) keepId(page.path, page.id);
      entries.push({ type: 'group', title: page.title || 'Untitled', items: items(page.pages ?? [], '') });
    } else entries.push(...items([page], ''));
  }
  out.set('SUMMARY.md', serializeSummary({ title: summaryTitle, entries }));

  const takenNames = new Set<string>();
  for (const file of files) {
    const kept = keptPath(file, out);
    if (kept?.startsWith(ASSETS)) takenNames.add(kept.slice(ASSETS.length).toLowerCase());
  }
  for (const file of files) {
    const path = keptPath(file, out) ?? `${ASSETS}${freeFileName(fileName(file.name), takenNames)}`;
    out.set(path, file.bytes);
    manifest.files[path] = file.id;
  }
  out.set(MANIFEST_PATH, serializeManifest(manifest));
  return out;
}
