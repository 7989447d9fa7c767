/**
 * Where each page of a revision sits: the page structure (from SUMMARY.md, or inferred from the folders when there is
 * none; the decisions are at the top of ./revision.ts) and the pages' paths (from their files, or the titles of
 * groups and links; unique in the revision). Apart from analyzeTree, which builds pages on this structure.
 */
import { baseName, slugify } from './paths.js';
import type { ParsedSummary, SummaryItem } from './summary.js';
import { keepSummary, parseAndKeepSummary } from './summary-kept.js';
import type { TreeSource } from './tree-source.js';

/** The manifest / HistoryFacts key of a group or link page. */
export function summaryPageKey(summaryGitPath: string, pagePath: string): string {
  return `${summaryGitPath}#${pagePath}`;
}

export type StructureNode =
  | { kind: 'document'; gitPath: string; title?: string; tocTitle?: string; children: StructureNode[] }
  | { kind: 'link'; title: string; tocTitle?: string; href: string; pageGitPath?: string; anchor?: string; children: StructureNode[] }
  | { kind: 'computed'; title: string; computed: Record<string, unknown>; children: StructureNode[] }
  | { kind: 'group'; title: string; children: StructureNode[] };

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** SUMMARY.md texts this long (~1,000 items) are parsed on the source's parser when it has one: 10,000 items take ~100 ms. */
const SUMMARY_PARSED_ELSEWHERE_AT = 32 * 1024;

/** The parse of SUMMARY.md, kept in the source's store: a big one on the source's parser when it has one. */
export async function parseSummaryOf(
  source: Pick<TreeSource, 'parseSummary' | 'parsedSummaries'>,
  key: string,
  text: string,
  options: { path: string; root: string; exists: (gitPath: string) => boolean; paths: ReadonlySet<string> },
): Promise<ParsedSummary> {
  if (!source.parseSummary || text.length < SUMMARY_PARSED_ELSEWHERE_AT) return parseAndKeepSummary(source.parsedSummaries, key, text, options);
  const parse = await source.parseSummary({ text, path: options.path, root: options.root, paths: [...options.paths] });
  keepSummary(source.parsedSummaries, key, text, parse);
  return parse.parsed;
}

/** The structure SUMMARY.md gives: its groups, and its pages, links and computed items as nodes. */
export function summaryStructure(parsed: ParsedSummary): StructureNode[] {
  const toNode = (item: SummaryItem): StructureNode => {
    const children = item.children.map(toNode);
    const toc = item.type !== 'computed' && item.tocTitle !== undefined ? { tocTitle: item.tocTitle } : {};
    if (item.type === 'page') return { kind: 'document', gitPath: item.gitPath!, title: item.title, ...toc, children };
    if (item.type === 'computed') return { kind: 'computed', title: item.title, computed: item.source, children };
    return { kind: 'link', title: item.title, ...toc, href: item.href, pageGitPath: item.pageGitPath, anchor: item.anchor, children };
  };
  return parsed.structure.entries.map((entry) =>
    entry.type === 'group' ? { kind: 'group', title: entry.title, children: entry.items.map(toNode) } : toNode(entry),
  );
}

export function walk(nodes: StructureNode[], visit: (node: StructureNode) => void): void {
  for (const node of nodes) {
    visit(node);
    walk(node.children, visit);
  }
}

export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function uniquePath(path: string, used: Set<string>): string {
  let candidate = path;
  for (let n = 2; used.has(candidate); n++) candidate = `${path}-${n}`;
  used.add(candidate);
  return candidate;
}

/** `a/b.md` -> `a/b`; `a/README.md` -> `a`; the readme -> `readme`; every segment slugified. */
export function documentPath(gitPath: string, root: string, readmePath: string): string {
  if (gitPath === readmePath) return 'readme';
  const rel = gitPath.slice(root.length);
  const segments = rel.split('/');
  if (segments.length > 1 && segments[segments.length - 1].toLowerCase() === 'readme.md') segments.pop();
  else segments[segments.length - 1] = segments[segments.length - 1].replace(/\.md$/i, '');
  return segments.map((segment) => slugify(segment)).join('/');
}

/** The page structure of a tree without SUMMARY.md (see the decisions at the top of ./revision.ts). */
export function inferStructure(markdownPaths: string[], root: string, readmePath: string): StructureNode[] {
  interface Folder {
    files: string[];
    folders: Map<string, Folder>;
  }
  const top: Folder = { files: [], folders: new Map() };
  for (const gitPath of markdownPaths) {
    if (gitPath === readmePath) continue;
    const segments = gitPath.slice(root.length).split('/');
    if (segments.some((segment) => segment.startsWith('.'))) continue;
    let folder = top;
    for (const segment of segments.slice(0, -1)) {
      let next = folder.folders.get(segment);
      if (!next) {
        next = { files: [], folders: new Map() };
        folder.folders.set(segment, next);
      }
      folder = next;
    }
    folder.files.push(gitPath);
  }
  const build = (folder: Folder, isTop: boolean): { readme?: string; nodes: StructureNode[] } => {
    let readme: string | undefined;
    const items: { name: string; isFolder: boolean; nodes: () => StructureNode[] }[] = [];
    for (const gitPath of folder.files) {
      const name = baseName(gitPath);
      if (!isTop && name.toLowerCase() === 'readme.md' && readme === undefined) {
        readme = gitPath;
        continue;
      }
      items.push({ name: name.replace(/\.md$/i, ''), isFolder: false, nodes: () => [{ kind: 'document', gitPath, children: [] }] });
    }
    for (const [name, sub] of folder.folders) {
      items.push({
        name,
        isFolder: true,
        nodes: () => {
          const inner = build(sub, false);
          return inner.readme ? [{ kind: 'document', gitPath: inner.readme, children: inner.nodes }] : inner.nodes;
        },
      });
    }
    items.sort((a, b) => collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || Number(a.isFolder) - Number(b.isFolder));
    return { readme, nodes: items.flatMap((item) => item.nodes()) };
  };
  const nodes = build(top, true).nodes;
  return markdownPaths.includes(readmePath) ? [{ kind: 'document', gitPath: readmePath, children: [] }, ...nodes] : nodes;
}
