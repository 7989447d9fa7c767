/**
 * A commit's tree -> Revision (docs/git-format.md). Pure: the tree comes in as a TreeSource, history facts (ids found by
 * rename detection, timestamps) as HistoryFacts; no git, no SQL.
 *
 * Decisions where the format is silent:
 * - Structure without SUMMARY.md, per folder: the readme first (`.gitbook.yaml` structure.readme at the root,
 *   README.md in a folder, any case), then `.md` files and folders by name (numeric-aware, case-insensitive; a file
 *   before a folder of the same name). A folder with a README.md is that README's page with the folder's other
 *   contents as children; a folder without one contributes its contents in its place. Files and folders whose name
 *   starts with `.` are not pages.
 * - With SUMMARY.md only listed files are pages; other `.md` files are files of the revision, so nothing is lost.
 * - Files: every blob under the root that is not a page, the SUMMARY.md, `.gitbook.yaml`, `.quire/*`,
 *   `.gitbook/includes/*.md` or `.gitbook/vars.yaml`. `.md` files SUMMARY.md does not list (those among
 *   `.gitbook/assets/` included) are files. Symbolic links and submodules are neither pages nor files
 *   (validateContent reports them). Reusable contents: `.gitbook/includes/*.md` under the root, and at the top of
 *   the repository when the content has a root of its own.
 * - Slug and path of a document page come from its file (relative to the root): `a/b.md` -> `b`, `a/b`;
 *   `a/README.md` -> `a`, `a`; the readme at the root -> `readme`. Each segment is slugified (lowercase; see
 *   slugify). Groups, link pages and computed items of SUMMARY.md: the slugified title (`group`/`link`/`computed`
 *   when empty); one nested under a page is under that page's path. Paths are unique in the revision: document pages claim theirs first (in page
 *   order), then groups and links; a clash appends `-2`, `-3`, ...
 * - Ids: front matter `id`, then `.quire/manifest.yaml`, then `facts.idOf('page', key)`. The key is the file's path
 *   for a document page and `<SUMMARY.md path>#<page path>` for groups and link pages. An id already taken by a page
 *   earlier in the page order (a copy) is not taken again. Reusable contents resolve the same way (kind 'page',
 *   keyed by their path); files use the manifest's `files`, then `facts.idOf('file', path)`.
 * - Title: the SUMMARY.md link text, else the page's `# H1`, else the file name without `.md` (a folder README: the
 *   folder name); see src/content/page.ts for what happens to the H1. The quoted link title is `tocTitle`. Reusable
 *   content title: front matter `title`, else the file name.
 * - A file SUMMARY.md lists again (with or without `#anchor`): its first listing is the page, the others are link
 *   pages to it (`pageId`, `anchor`).
 * - Redirects of `.gitbook.yaml` are resolved to pages (resolveRedirects).
 *
 * A tree that differs from an analyzed one only in the contents of page files (most pushes) is built from that
 * analysis by reviseTree (./revise-tree.ts), to the same result.
 *
 * This module reads the tree and assembles the revision; its parts are modules of their own beside it: the structure
 * and paths (./revision-structure.ts), the document pages (./revision-pages.ts), the ids (./revision-ids.ts) and the
 * redirects (./revision-redirects.ts).
 */
import { CONFIG_PATH, DEFAULT_CONFIG, parseGitbookConfig, parseVariables, type GitbookConfig } from './config.js';
import { contentTypeOf, hasDimensions, imageDimensions } from './files.js';
import { frontMatterKeyLine, parseFrontMatter } from './frontmatter.js';
import { MANIFEST_PATH, parseManifest, type Manifest } from './manifest.js';
import type {
  CommitInfo,
  ComputedBlockPage,
  ContentProblem,
  DocumentPage,
  GroupPage,
  HistoryFacts,
  LinkPage,
  Page,
  ReusableContent,
  Revision,
  RevisionFile,
  TreeEntry,
} from './model.js';
import type { TreeSource } from './tree-source.js';
import type { PageFileOptions } from './page.js';
import { baseName, isMarkdownPath, slugify } from './paths.js';
import { keptSummary, summaryKey } from './summary-kept.js';
import { Turns } from './turns.js';
import { fileIdClaims, pageIdClaims, type ManifestIds } from './revision-ids.js';
import { decode, documentPage, pageProblems, parseDocuments } from './revision-pages.js';
import { resolveRedirects } from './revision-redirects.js';
import {
  documentPath,
  inferStructure,
  lastSegment,
  parseSummaryOf,
  summaryPageKey,
  summaryStructure,
  uniquePath,
  walk,
  type StructureNode,
} from './revision-structure.js';

export const INCLUDES_FOLDER = '.gitbook/includes/';
export const VARS_PATH = '.gitbook/vars.yaml';

const SYMLINK = '120000';
const SUBMODULE = '160000';

export interface TreeAnalysis {
  /**
   * The revision as far as it could be built: a page whose front matter does not parse is shown without it, a value
   * of the wrong type is left out, a SUMMARY.md item that names nothing is skipped (its nested items take its place).
   */
  revision: Revision;
  /** Errors (a push with one is refused) and warnings (see ContentProblem). */
  problems: ContentProblem[];
  /** Each document page file (page order), what it was parsed with, and its own problems (part of `problems`). */
  pageChecks: PageCheck[];
  /** The id of each file by path, as page parses looked them up (covers). */
  fileIdByPath: Map<string, string>;
  /** What building a later tree's revision from this analysis needs besides the above (reviseTree). */
  basis: RevisionBasis;
}

/**
 * The parts of an analysis that reviseTree needs and the revision does not show: the tree it was made of and what
 * decided its ids.
 */
export interface RevisionBasis {
  /** The analyzed tree's entries, in the source's order. */
  entries: readonly TreeEntry[];
  manifestIds: ManifestIds;
  /** SUMMARY.md's path from the repository root (ids of groups and link pages are keyed by it). */
  summaryPath: string;
  /** The id each document page's front matter claims, by git path (only pages that claim one). */
  claimedIds: ReadonlyMap<string, string>;
  /** The id each reusable content's front matter claims, in the order of `revision.reusableContents`. */
  includeClaims: ReadonlyArray<string | undefined>;
  /** How many of `problems` come before the pages' own (those of `pageChecks`, which follow in page order). */
  problemsBeforePages: number;
}

export interface PageCheck {
  oid: string;
  options: PageFileOptions;
  problems: ContentProblem[];
}

/**
 * Builds the Revision of a commit. Never fails on the content: git accepted the commit, so it must read. What the
 * pre-receive hook would have refused (a commit pushed before a rule existed, one written by another tool) is
 * built as far as it can be (see TreeAnalysis); validateContent lists the problems.
 */
export async function buildRevision(source: TreeSource, commit: CommitInfo, facts: HistoryFacts): Promise<Revision> {
  return (await analyzeTree(source, commit, facts)).revision;
}

/** Reads the `.gitbook.yaml` of a tree (defaults when there is none). */
export async function readConfig(source: TreeSource): Promise<{ config: GitbookConfig; problems: ContentProblem[] }> {
  const entry = source.entries.find((e) => e.path === CONFIG_PATH && e.mode !== SYMLINK && e.mode !== SUBMODULE);
  if (!entry) return { config: { ...DEFAULT_CONFIG, redirects: {}, redirectLines: {} }, problems: [] };
  return parseGitbookConfig(decode(await source.readBlob(entry.oid)), CONFIG_PATH);
}

/** Builds as much of the Revision as the tree allows, and lists the problems found on the way. */
export async function analyzeTree(source: TreeSource, commit: CommitInfo, facts: HistoryFacts): Promise<TreeAnalysis> {
  // A tree of 10,000 pages costs hundreds of milliseconds in the loops below: other requests run between turns.
  const turns = new Turns();
  const problems: ContentProblem[] = [];
  const { config, problems: configProblems } = await readConfig(source);
  problems.push(...configProblems);
  const root = config.root;
  const summaryPath = root + config.summary;
  const readmePath = root + config.readme;
  const varsPath = root + VARS_PATH;
  const includesFolder = root + INCLUDES_FOLDER;
  // Reusable contents also live at the repository's own `.gitbook/includes/` when the content has a root of its own
  // (the hosted platform writes them there for every space of a repository).
  const isInclude = (path: string): boolean => (path.startsWith(includesFolder) || path.startsWith(INCLUDES_FOLDER)) && isMarkdownPath(path);

  // Classify the blobs under the root.
  const byPath = new Map<string, TreeEntry>();
  const markdown: TreeEntry[] = [];
  const includes: TreeEntry[] = [];
  const others: TreeEntry[] = [];
  let summaryEntry: TreeEntry | undefined;
  let varsEntry: TreeEntry | undefined;
  let manifestEntry: TreeEntry | undefined;
  for (const entry of source.entries) {
    if (turns.due()) await turns.take();
    if (entry.mode === SYMLINK || entry.mode === SUBMODULE) continue;
    if (entry.path === MANIFEST_PATH) manifestEntry = entry;
    if (!entry.path.startsWith(root)) {
      if (isInclude(entry.path)) includes.push(entry);
      continue;
    }
    const rel = entry.path.slice(root.length);
    if (entry.path === CONFIG_PATH || entry.path.startsWith('.quire/') || rel.startsWith('.quire/')) continue;
    byPath.set(entry.path, entry);
    if (entry.path === summaryPath) summaryEntry = entry;
    else if (entry.path === varsPath) varsEntry = entry;
    else if (isInclude(entry.path)) includes.push(entry);
    else if (isMarkdownPath(entry.path)) markdown.push(entry);
    else others.push(entry);
  }

  // Read every blob needed, concurrently.
  const texts = new Map<string, string>();
  const dimensionsByPath = new Map<string, { width: number; height: number } | undefined>();
  const reads: Promise<void>[] = [];
  const readText = (entry: TreeEntry | undefined): void => {
    if (entry) reads.push(source.readBlob(entry.oid).then((bytes) => void texts.set(entry.path, decode(bytes))));
  };
  // SUMMARY.md: an earlier parse of the same blob holds when the page files it looked for are still (or still not)
  // there, and then the text is not read.
  const markdownPaths = new Set(markdown.map((e) => e.path));
  const exists = (gitPath: string) => markdownPaths.has(gitPath);
  const keyOfSummary = summaryEntry && summaryKey(summaryEntry.oid, { path: summaryPath, root });
  const summaryKept = keyOfSummary === undefined ? undefined : keptSummary(source.parsedSummaries, keyOfSummary, exists);
  // Page files are read later, once the structure says which are pages and only when no earlier parse is kept.
  [summaryKept ? undefined : summaryEntry, varsEntry, manifestEntry, ...includes].forEach(readText);
  for (const entry of others) {
    if (hasDimensions(contentTypeOf(entry.path))) {
      const dimensions = source.dimensionsOf ? source.dimensionsOf(entry.oid) : source.readBlob(entry.oid).then((bytes) => imageDimensions(bytes));
      reads.push(dimensions.then((found) => void dimensionsByPath.set(entry.path, found)));
    }
  }
  await Promise.all(reads);

  // Manifest.
  let manifest: Manifest = { pages: {}, files: {} };
  if (manifestEntry) {
    const parsed = parseManifest(texts.get(MANIFEST_PATH) ?? '', MANIFEST_PATH);
    manifest = parsed.manifest;
    problems.push(...parsed.problems);
  }
  const manifestIds: ManifestIds = { pages: new Map(Object.entries(manifest.pages)), files: new Map(Object.entries(manifest.files)) };

  // Structure.
  let structure: StructureNode[];
  if (keyOfSummary !== undefined) {
    const parsed = summaryKept ?? (await parseSummaryOf(source, keyOfSummary, texts.get(summaryPath) ?? '', { path: summaryPath, root, exists, paths: markdownPaths }));
    problems.push(...parsed.problems);
    structure = summaryStructure(parsed);
  } else {
    structure = inferStructure(markdown.map((e) => e.path), root, readmePath);
  }
  const pagePaths = new Set<string>();
  walk(structure, (node) => {
    if (node.kind === 'document') pagePaths.add(node.gitPath);
  });

  // Files: every other blob under the root.
  const fileIdOf = fileIdClaims(manifestIds, facts);
  const fileIdByPath = new Map<string, string>();
  const fileEntries = [...others, ...markdown.filter((e) => !pagePaths.has(e.path))].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const files: RevisionFile[] = [];
  for (const entry of fileEntries) {
    if (turns.due()) await turns.take();
    const id = fileIdOf(entry.path);
    fileIdByPath.set(entry.path, id);
    const contentType = contentTypeOf(entry.path);
    const file: RevisionFile = { id, name: baseName(entry.path), gitPath: entry.path, blobOid: entry.oid, size: entry.size, contentType };
    const dimensions = dimensionsByPath.get(entry.path);
    if (dimensions) file.dimensions = dimensions;
    files.push(file);
  }

  // Pages.
  const usedPaths = new Set<string>();
  const pageIdFor = pageIdClaims(facts);

  // Pass 1, in page order: document pages (their paths come from their files, so they claim paths first).
  const documentNodes: Extract<StructureNode, { kind: 'document' }>[] = [];
  walk(structure, (node) => {
    if (node.kind === 'document') documentNodes.push(node);
  });
  const pageFiles = documentNodes.map((node) => ({
    oid: byPath.get(node.gitPath)!.oid,
    options: { gitPath: node.gitPath, root, ...(node.title !== undefined ? { summaryTitle: node.title } : {}) },
  }));
  const parsedPages = await parseDocuments(source, pageFiles, fileIdByPath);
  const documents = new Map<StructureNode, DocumentPage>();
  const pageIdByGitPath = new Map<string, string>();
  const pageChecks: PageCheck[] = [];
  const claimedIds = new Map<string, string>();
  const problemsBeforePages = problems.length;
  for (const [index, node] of documentNodes.entries()) {
    if (turns.due()) await turns.take();
    const entry = byPath.get(node.gitPath)!;
    const parsed = parsedPages[index];
    const check = { oid: entry.oid, options: pageFiles[index].options, problems: pageProblems(parsed, node.gitPath) };
    pageChecks.push(check);
    problems.push(...check.problems);
    const fields = parsed.page;
    if (fields.id !== undefined) claimedIds.set(node.gitPath, fields.id);
    const pagePath = uniquePath(documentPath(node.gitPath, root, readmePath), usedPaths);
    const page = documentPage(fields, {
      id: pageIdFor(node.gitPath, fields.id, manifestIds.pages.get(node.gitPath)),
      path: pagePath,
      gitPath: node.gitPath,
      blobOid: entry.oid,
      tocTitle: node.tocTitle,
      facts,
    });
    documents.set(node, page);
    pageIdByGitPath.set(node.gitPath, page.id);
  }

  // Pass 2, in page order: groups, links and computed items, then assemble the tree.
  const pages = assemblePages(structure, { documents, pageIdByGitPath, usedPaths, summaryPath, manifestIds, pageIdFor });

  // Reusable contents.
  const { reusableContents, includeClaims } = readReusableContents(includes, texts, { pageIdFor, manifestIds }, problems);

  // Variables.
  let variables: Record<string, string> = {};
  if (varsEntry) {
    const parsed = parseVariables(texts.get(varsPath) ?? '', varsPath);
    variables = parsed.variables;
    problems.push(...parsed.problems);
  }

  // Redirects.
  const redirects = resolveRedirects(config, pages, problems);

  return {
    revision: { commit, pages, files, reusableContents, variables, root, redirects },
    problems,
    pageChecks,
    fileIdByPath,
    basis: { entries: source.entries, manifestIds, summaryPath, claimedIds, includeClaims, problemsBeforePages },
  };
}

/** How analyzeTree hands out page ids, in page order (./revision-ids.ts pageIdClaims). */
type PageIdFor = ReturnType<typeof pageIdClaims>;

/**
 * Pass 2 of analyzeTree, in page order: groups, links and computed items take their paths and ids, and the tree is
 * assembled from the document pages pass 1 made. Ids in page order: pass 1 assigned document ids in order already;
 * groups and links take theirs here, after every document, so a front matter id is never lost to a group's manifest
 * entry.
 */
function assemblePages(
  structure: StructureNode[],
  made: {
    documents: ReadonlyMap<StructureNode, DocumentPage>;
    pageIdByGitPath: ReadonlyMap<string, string>;
    usedPaths: Set<string>;
    summaryPath: string;
    manifestIds: ManifestIds;
    pageIdFor: PageIdFor;
  },
): Page[] {
  const { documents, pageIdByGitPath, usedPaths, summaryPath, manifestIds, pageIdFor } = made;
  const build = (nodes: StructureNode[], parentPath: string): Page[] => {
    const pages: Page[] = [];
    for (const node of nodes) {
      if (node.kind === 'document') {
        const page = documents.get(node)!;
        page.pages = build(node.children, page.path);
        pages.push(page);
        continue;
      }
      const slugBase = slugify(node.title, node.kind);
      const pagePath = uniquePath(parentPath ? `${parentPath}/${slugBase}` : slugBase, usedPaths);
      const key = summaryPageKey(summaryPath, pagePath);
      const base = { id: pageIdFor(key, manifestIds.pages.get(key)), title: node.title, slug: lastSegment(pagePath), path: pagePath };
      if (node.kind === 'group') {
        const group: GroupPage = { ...base, type: 'group', pages: build(node.children, '') };
        pages.push(group);
      } else if (node.kind === 'computed') {
        const computed: ComputedBlockPage = { ...base, type: 'computed-block', computed: node.computed, pages: [] };
        computed.pages = build(node.children, pagePath);
        pages.push(computed);
      } else {
        const link: LinkPage = { ...base, type: 'link', href: node.href, pages: [] };
        if (node.tocTitle !== undefined) link.tocTitle = node.tocTitle;
        const pageId = node.pageGitPath !== undefined ? pageIdByGitPath.get(node.pageGitPath) : undefined;
        if (pageId !== undefined) link.pageId = pageId;
        if (pageId !== undefined && node.anchor !== undefined) link.anchor = node.anchor;
        link.pages = build(node.children, pagePath);
        pages.push(link);
      }
    }
    return pages;
  };
  return build(structure, '');
}

/** The reusable contents of a tree (`.gitbook/includes/*.md`), by path, with the ids their front matter claims. */
function readReusableContents(
  includes: readonly TreeEntry[],
  texts: ReadonlyMap<string, string>,
  ids: { pageIdFor: PageIdFor; manifestIds: ManifestIds },
  problems: ContentProblem[],
): { reusableContents: ReusableContent[]; includeClaims: (string | undefined)[] } {
  const { pageIdFor, manifestIds } = ids;
  const reusableContents: ReusableContent[] = [];
  const includeClaims: (string | undefined)[] = [];
  for (const entry of [...includes].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const split = parseFrontMatter(texts.get(entry.path) ?? '', entry.path);
    if (!split.ok) {
      problems.push(split.problem);
      continue;
    }
    const data = split.value.data;
    let title = baseName(entry.path).replace(/\.md$/i, '');
    if (typeof data.title === 'string') title = data.title;
    else if (data.title !== undefined && data.title !== null) {
      problems.push({ path: entry.path, line: frontMatterKeyLine(split.value, 'title'), message: 'front matter `title` must be a string', severity: 'warning' });
    }
    let claimed: string | undefined;
    if (typeof data.id === 'string' && /^[a-zA-Z0-9_-]+$/.test(data.id)) claimed = data.id;
    else if (data.id !== undefined && data.id !== null) {
      problems.push({ path: entry.path, line: frontMatterKeyLine(split.value, 'id'), message: 'front matter `id` may hold only letters, digits, `_` and `-`' });
    }
    includeClaims.push(claimed);
    reusableContents.push({
      id: pageIdFor(entry.path, claimed, manifestIds.pages.get(entry.path)),
      title,
      markdown: split.value.body.replace(/^(?:[ \t]*\r?\n)+/, ''),
      gitPath: entry.path,
      blobOid: entry.oid,
    });
  }
  return { reusableContents, includeClaims };
}
