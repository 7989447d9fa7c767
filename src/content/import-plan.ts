/**
 * Where imported content goes in a space's tree (importContent, importContentInChangeRequest). Pure: the existing tree
 * and the converted import in, the files to write out. The importers (src/content/imports/) turn each source into an
 * ImportTree; this module places it beside what is there, without touching existing files other than the table of
 * contents.
 *
 * Decisions:
 * - Pages go under the content root at the paths their source gives them (`guide/install.md`; a page with children
 *   is its folder's `README.md`), so a page's path in Quire follows its path at the source.
 * - A name already taken gets a suffix: a page file `install.md` becomes `install-2.md` (`-3`, ...); a folder
 *   whose README.md is taken is renamed as a whole (`guide-2/`); the import's own top-level README.md, when the
 *   space has one (every new space does), is named after its title instead (`acme-docs.md`). `X.md` and
 *   `X/README.md` count as the same name, since both would be the page path `X`. Names compare without case (a
 *   checkout on macOS or Windows could not hold both).
 * - Files go to `.gitbook/assets/` under their own name, with " (1)", " (2)"... on a clash (the seen layout). A file
 *   identical to the one already at that name is not written again; identical files in one import are one file.
 * - The table of contents: SUMMARY.md gets the imported entries appended after its existing entries (text
 *   appended, the existing lines untouched). A space without SUMMARY.md gets one, listing its current pages in
 *   their current order, then the imported ones: without it the order of the import would be lost.
 * - Links between imported pages, and to imported files, are written as relative paths (`../guide/install.md`).
 *   The importers mark them with pageRef / assetRef while converting, before the final paths are known.
 */
import type { Root } from 'mdast';
import { blobOid } from './files.js';
import { stringifyFrontMatter } from './frontmatter.js';
import type { Page } from './model.js';
import { mapUrls, stringifyMarkdown } from './convert.js';
import { baseName, folderOf, normalizePath, relativePath, slugify } from './paths.js';
import { DEFAULT_SUMMARY_TITLE, type SummaryEntry, type SummaryItem } from './summary.js';
import { serializeSummary, serializeSummaryEntries } from './summary-writing.js';

const PAGE_REF = 'quire-import-page:';
const ASSET_REF = 'quire-import-asset:';

/** A link to the imported page `key` (optionally to an anchor in it), resolved to a relative path by planImport. */
export function pageRef(key: string, anchor?: string): string {
  return `${PAGE_REF}${encodeURIComponent(key)}${anchor ? `#${anchor}` : ''}`;
}

/** A link to the imported file `key`, resolved to a relative path by planImport. */
export function assetRef(key: string): string {
  return `${ASSET_REF}${encodeURIComponent(key)}`;
}

export interface ImportPageNode {
  kind: 'page';
  /** Identifies the page within the import (pageRef targets it). */
  key: string;
  /** Where the source puts it, relative to the import's top: `guide/install.md`, `guide/README.md`. */
  file: string;
  title: string;
  /** Front matter to write (description, or what a page in a zip had); asset references are resolved in `cover`. */
  frontMatter?: Record<string, unknown>;
  /** The body without its title, links marked with pageRef / assetRef where they point into the import. */
  body: Root;
  children: ImportNode[];
  /** Made by the importer (a parent page for a folder the source had no page for): not counted as imported. */
  generated?: boolean;
}

export interface ImportLinkNode {
  kind: 'link';
  title: string;
  href: string;
  children: ImportNode[];
}

/** A group of the table of contents (top level only, as in SUMMARY.md). */
export interface ImportGroupNode {
  kind: 'group';
  title: string;
  children: ImportNode[];
}

export type ImportNode = ImportPageNode | ImportLinkNode | ImportGroupNode;

export interface ImportAsset {
  key: string;
  /** The file name it had at the source. */
  name: string;
  bytes: Buffer;
}

/** A source converted: its pages in order (a tree), its files, and how many resources it had in all. */
export interface ImportTree {
  nodes: ImportNode[];
  assets: ImportAsset[];
  /** Resources found at the source, imported or not (pages and files skipped for limits, errors, robots.txt). */
  total: number;
}

export interface ExistingContent {
  /** Every blob of the tree the import goes into. */
  entries: Array<{ path: string; oid: string }>;
  /** The content root ('' or `docs/`). */
  root: string;
  /** Path of SUMMARY.md from the repository root (whether or not it exists). */
  summaryPath: string;
  /** The text of SUMMARY.md, when there is one. */
  summaryText?: string;
  /** The current pages in order, as entries of SUMMARY.md (entriesOfPages): the start of the new one when there was none. */
  pageEntries: SummaryEntry[];
}

export interface ImportPlan {
  /** Files to write (path from the repository root -> bytes); existing paths among them are only SUMMARY.md. */
  files: Map<string, Buffer>;
  /** Pages and files of the source that the plan writes (or finds already there, for identical files). */
  pages: number;
  assets: number;
  /** Paths from the repository root of the pages written, by page key. */
  pagePaths: Map<string, string>;
}

const lower = (path: string): string => path.toLowerCase();

/** A path segment safe to write: no control characters, separators or leading dots; never empty. */
function safeSegment(segment: string, fallback: string): string {
  const cleaned = segment
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f\\/:*?"<>|]+/g, '-')
    .replace(/^[.\s]+/, '')
    .trimEnd()
    .slice(0, 120);
  return cleaned === '' ? fallback : cleaned;
}

/** A file name safe to write, its extension kept (the source's name otherwise, as the seen layout does). */
export function safeFileName(name: string): string {
  const base = baseName(name.replace(/\\/g, '/'));
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot).replace(/[^A-Za-z0-9.]/g, '').slice(0, 12) : '';
  const stem = safeSegment(dot > 0 ? base.slice(0, dot) : base, 'file').slice(0, 100);
  return `${stem}${ext}`;
}

function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
}

function walkPages(nodes: ImportNode[], visit: (page: ImportPageNode) => void): void {
  for (const node of nodes) {
    if (node.kind === 'page') visit(node);
    walkPages(node.children, visit);
  }
}

function isReadme(name: string): boolean {
  return name.toLowerCase() === 'readme.md';
}

/** Places the import beside the existing content (see the decisions at the top of this file); `tree` is left as it was. */
export function planImport(existing: ExistingContent, tree: ImportTree): ImportPlan {
  const root = existing.root;
  const files = new Map<string, Buffer>();
  const existingByPath = new Map(existing.entries.map((e) => [lower(e.path), e]));
  const taken = new Set(existing.entries.map((e) => lower(e.path)));
  const isTaken = (path: string): boolean => taken.has(lower(path));

  // Files: .gitbook/assets/<name>, " (n)" on a clash, identical bytes written once.
  const assetFolder = `${root}.gitbook/assets/`;
  const assetPaths = new Map<string, string>();
  const byOid = new Map<string, string>();
  for (const asset of tree.assets) {
    const oid = blobOid(asset.bytes);
    const known = byOid.get(oid);
    if (known) {
      assetPaths.set(asset.key, known);
      continue;
    }
    const [stem, ext] = splitExtension(safeFileName(asset.name));
    for (let n = 0; ; n++) {
      const candidate = `${assetFolder}${n === 0 ? stem : `${stem} (${n})`}${ext}`;
      const there = existingByPath.get(lower(candidate));
      if (there && there.oid === oid && !files.has(candidate)) {
        assetPaths.set(asset.key, candidate);
        break;
      }
      if (!isTaken(candidate)) {
        taken.add(lower(candidate));
        files.set(candidate, asset.bytes);
        assetPaths.set(asset.key, candidate);
        break;
      }
    }
    byOid.set(oid, assetPaths.get(asset.key)!);
  }

  // Pages: normalized relative paths first.
  const pages: ImportPageNode[] = [];
  walkPages(tree.nodes, (page) => pages.push(page));
  const wanted = new Map<ImportPageNode, string>();
  for (const page of pages) {
    const normalized = normalizePath(page.file.replace(/\\/g, '/')) ?? '';
    const segments = normalized.split('/').filter((s) => s !== '');
    const name = segments.pop() ?? 'page.md';
    const folders = segments.map((s) => safeSegment(s, 'folder'));
    const file = safeSegment(/\.md$/i.test(name) ? name : `${name}.md`, 'page.md');
    wanted.set(page, [...folders, /^\.?md$/i.test(file) ? 'page.md' : file].join('/'));
  }

  // A page name is taken when the file, or its twin (`X.md` / `X/README.md`), exists or was claimed.
  const twin = (path: string): string => {
    const folder = folderOf(path);
    const name = baseName(path);
    if (isReadme(name)) return folder === '' ? path : `${folder.slice(0, -1)}.md`;
    return `${folder}${name.replace(/\.md$/i, '')}/README.md`;
  };
  const pageTaken = (relative: string): boolean => isTaken(root + relative) || isTaken(root + twin(relative));

  // Folders whose README.md (or twin) is taken are renamed as a whole, parents before children.
  const readmeFolders = [...new Set([...wanted.values()].filter((p) => isReadme(baseName(p)) && p.includes('/')).map((p) => folderOf(p).slice(0, -1)))];
  readmeFolders.sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  const renamed = new Map<string, string>();
  const mapFolder = (folder: string): string => {
    if (folder === '') return '';
    const direct = renamed.get(folder);
    if (direct !== undefined) return direct;
    const parent = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
    const mapped = mapFolder(parent);
    return mapped === '' ? baseName(folder) : `${mapped}/${baseName(folder)}`;
  };
  const claimedFolders = new Set<string>();
  for (const folder of readmeFolders) {
    const parent = folder.includes('/') ? mapFolder(folder.slice(0, folder.lastIndexOf('/'))) : '';
    const prefix = parent === '' ? '' : `${parent}/`;
    const name = baseName(folder);
    for (let n = 1; ; n++) {
      const candidate = `${prefix}${n === 1 ? name : `${name}-${n}`}`;
      if (!pageTaken(`${candidate}/README.md`) && !claimedFolders.has(lower(candidate))) {
        claimedFolders.add(lower(candidate));
        renamed.set(folder, candidate);
        break;
      }
    }
  }

  const pagePaths = new Map<string, string>();
  const placed = new Map<ImportPageNode, string>();
  for (const page of pages) {
    const relative = wanted.get(page)!;
    const folder = folderOf(relative);
    const mappedFolder = mapFolder(folder === '' ? '' : folder.slice(0, -1));
    const prefix = mappedFolder === '' ? '' : `${mappedFolder}/`;
    let name = baseName(relative);
    let candidate = `${prefix}${name}`;
    if (pageTaken(candidate)) {
      // The import's top-level readme is named after its title; any other page gets a number.
      if (isReadme(name) && prefix === '') name = `${slugify(page.title)}.md`;
      const [stem] = splitExtension(name);
      for (let n = 1; ; n++) {
        candidate = `${prefix}${n === 1 ? stem : `${stem}-${n}`}.md`;
        if (!pageTaken(candidate)) break;
      }
    }
    const full = root + candidate;
    taken.add(lower(full));
    placed.set(page, full);
    pagePaths.set(page.key, full);
  }

  // Links into the import become relative paths; then each page is written.
  const resolve = (from: string, url: string): string | null | undefined => {
    if (url.startsWith(PAGE_REF)) {
      const rest = url.slice(PAGE_REF.length);
      const hash = rest.indexOf('#');
      const key = decodeURIComponent(hash < 0 ? rest : rest.slice(0, hash));
      const target = pagePaths.get(key);
      if (!target) return null;
      return relativePath(folderOf(from), target) + (hash < 0 ? '' : rest.slice(hash));
    }
    if (url.startsWith(ASSET_REF)) {
      const target = assetPaths.get(decodeURIComponent(url.slice(ASSET_REF.length)));
      return target ? relativePath(folderOf(from), target) : null;
    }
    return undefined;
  };
  for (const page of pages) {
    const path = placed.get(page)!;
    // A copy: the same tree may be planned again (after a lost race for the ref) against other paths.
    const body = structuredClone(page.body);
    mapUrls(body, (url) => {
      const resolved = resolve(path, url);
      return resolved === undefined ? url : resolved;
    });
    const data: Record<string, unknown> = { ...page.frontMatter };
    for (const key of ['cover', 'coverDark']) {
      if (typeof data[key] !== 'string') continue;
      const resolved = resolve(path, data[key] as string);
      if (resolved === null) delete data[key];
      else if (resolved !== undefined) data[key] = resolved;
    }
    const title = page.title.replace(/\s+/g, ' ').trim() || baseName(path).replace(/\.md$/i, '');
    const markdown = stringifyMarkdown(body);
    // Markdown punctuation in a title is escaped, so the H1 reads back as the same text.
    const text = `# ${title.replace(/[\\`*_[\]<>]/g, '\\$&')}\n${markdown === '' ? '' : `\n${markdown}`}`;
    files.set(path, Buffer.from(Object.keys(data).length > 0 ? stringifyFrontMatter(data, `\n${text}`) : text, 'utf8'));
  }

  // The table of contents.
  if (pages.length > 0 || tree.nodes.length > 0) {
    const summaryFolder = folderOf(existing.summaryPath);
    const toItem = (node: ImportPageNode | ImportLinkNode): SummaryItem => {
      const children = itemsOf(node.children);
      return node.kind === 'page'
        ? { type: 'page', title: node.title.replace(/\s+/g, ' ').trim(), path: relativePath(summaryFolder, placed.get(node)!), children }
        : { type: 'link', title: node.title, href: node.href, children };
    };
    // A group below the top level has no SUMMARY.md form: its items take its place.
    const itemsOf = (nodes: ImportNode[]): SummaryItem[] => nodes.flatMap((n) => (n.kind === 'group' ? itemsOf(n.children) : [toItem(n)]));
    const imported: SummaryEntry[] = [
      ...itemsOf(tree.nodes.filter((n) => n.kind !== 'group')),
      ...tree.nodes.filter((n): n is ImportGroupNode => n.kind === 'group').map((g) => ({ type: 'group' as const, title: g.title, items: itemsOf(g.children) })),
    ];
    files.set(existing.summaryPath, Buffer.from(summaryWithEntries(existing, imported), 'utf8'));
  }

  let counted = 0;
  for (const page of pages) if (!page.generated) counted++;
  return { files, pages: counted, assets: tree.assets.length, pagePaths };
}

/**
 * SUMMARY.md with `added` after its entries: appended to its text, the existing lines untouched, when the space has
 * one; otherwise a new one listing the current pages (`pageEntries`) first.
 */
export function summaryWithEntries(existing: Pick<ExistingContent, 'summaryText' | 'pageEntries'>, added: SummaryEntry[]): string {
  if (existing.summaryText !== undefined && existing.summaryText.trim() !== '') {
    // Right after a list item, the new items continue the list; after anything else, a blank line first.
    const kept = existing.summaryText.trimEnd();
    const lastLine = kept.slice(kept.lastIndexOf('\n') + 1);
    const separator = added[0]?.type !== 'group' && /^\s*(?:[*+-]|\d{1,9}[.)])\s/.test(lastLine) ? '\n' : '\n\n';
    return `${kept}${separator}${serializeSummaryEntries(added).join('\n')}\n`;
  }
  return serializeSummary({ title: DEFAULT_SUMMARY_TITLE, entries: [...existing.pageEntries, ...added] });
}

/** A revision's pages as SUMMARY.md entries (document pages by path, links, groups), in their order. */
export function entriesOfPages(pages: Page[], summaryFolder: string): SummaryEntry[] {
  const item = (page: Page): SummaryItem[] => {
    const children = page.pages.flatMap(item);
    if (page.type === 'group') return children;
    if (page.type === 'link') return [{ type: 'link', title: page.title, href: page.href, children }];
    if (page.type === 'computed-block') return [{ type: 'computed', title: page.title, source: page.computed, children }];
    return [{ type: 'page', title: page.title, path: relativePath(summaryFolder, page.gitPath), children }];
  };
  return pages.flatMap((page): SummaryEntry[] => (page.type === 'group' ? [{ type: 'group', title: page.title, items: page.pages.flatMap(item) }] : item(page)));
}
