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
import { stringifyFrontMatter } from './frontmatter.js';
import { safeFileName } from './import-plan.js';
import { MANIFEST_PATH, serializeManifest, type Manifest } from './manifest.js';
import { DEFAULT_SUMMARY_TITLE, serializeSummary, type SummaryEntry, type SummaryItem } from './summary.js';

export interface SourcePage {
  id: string;
  title?: string;
  /** `document`, `group`, `link` (anything else, e.g. `computed`, is left out). */
  type?: string;
  path?: string;
  markdown?: string;
  href?: string;
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
}

const ASSETS = '.gitbook/assets/';

function cleanSegment(segment: string): string {
  return segment
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f\\:*?"<>|]+/g, '-')
    .replace(/^[.\s]+|\s+$/g, '')
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

  const items = (list: SourcePage[]): SummaryItem[] => {
    const result: SummaryItem[] = [];
    for (const page of list) {
      const children = page.pages ?? [];
      const title = page.title || 'Untitled';
      if (page.type === 'link' && page.href) {
        result.push({ type: 'link', title, href: page.href, children: items(children) });
      } else if (isDocument(page)) {
        const file = fileOf(page, children.some(isDocument));
        const frontMatter: Record<string, unknown> = {
          ...(page.description ? { description: page.description } : {}),
          ...(page.emoji ? { emoji: page.emoji } : {}),
          ...(page.icon ? { icon: page.icon } : {}),
          ...(page.hidden ? { hidden: true } : {}),
        };
        const body = `# ${title}\n${page.markdown ? `\n${page.markdown}` : ''}`;
        out.set(file, Object.keys(frontMatter).length > 0 ? stringifyFrontMatter(frontMatter, `\n${body}`) : body.endsWith('\n') ? body : `${body}\n`);
        manifest.pages[file] = page.id;
        result.push({ type: 'page', title, path: file, children: items(children) });
      }
    }
    return result;
  };

  const entries: SummaryEntry[] = [];
  for (const page of pages) {
    if (page.type === 'group') entries.push({ type: 'group', title: page.title || 'Untitled', items: items(page.pages ?? []) });
    else entries.push(...items([page]));
  }
  out.set('SUMMARY.md', serializeSummary({ title: summaryTitle, entries }));

  const takenNames = new Set<string>();
  for (const file of files) {
    const path = `${ASSETS}${freeFileName(safeFileName(file.name), takenNames)}`;
    out.set(path, file.bytes);
    manifest.files[path] = file.id;
  }
  out.set(MANIFEST_PATH, serializeManifest(manifest));
  return out;
}
