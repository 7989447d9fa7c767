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
 * analysis by reviseTree, to the same result.
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
  RevisionRedirect,
  TreeEntry,
} from './model.js';
import type { TreeSource } from './tree-source.js';
import { parsedPageKey, parseHolds, parsePageFiles, type PageFields, type PageFileOptions, type PageFilesInput, type ParsedPage } from './page.js';
import { cutPageMessage, MAX_INDEXED_TEXT } from './bounded-markdown.js';
import { baseName, decodePath, isMarkdownPath, isUrl, normalizePath, slugify, trimSlashes } from './paths.js';
import { isAllowedUrl, WEB_SCHEMES } from './url-scheme.js';
import { keepSummary, keptSummary, parseAndKeepSummary, summaryKey, type ParsedSummary, type SummaryItem } from './summary.js';
import { Turns } from './turns.js';

export const INCLUDES_FOLDER = '.gitbook/includes/';
export const VARS_PATH = '.gitbook/vars.yaml';

const SYMLINK = '120000';
const SUBMODULE = '160000';

/** The manifest / HistoryFacts key of a group or link page. */
export function summaryPageKey(summaryGitPath: string, pagePath: string): string {
  return `${summaryGitPath}#${pagePath}`;
}

type StructureNode =
  | { kind: 'document'; gitPath: string; title?: string; tocTitle?: string; children: StructureNode[] }
  | { kind: 'link'; title: string; tocTitle?: string; href: string; pageGitPath?: string; anchor?: string; children: StructureNode[] }
  | { kind: 'computed'; title: string; computed: Record<string, unknown>; children: StructureNode[] }
  | { kind: 'group'; title: string; children: StructureNode[] };

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
 * The ids of `.quire/manifest.yaml` by path, as maps: a page's lookup is a map's (a plain object's is slow for paths
 * it does not hold, the usual case, and would answer for `constructor`).
 */
interface ManifestIds {
  pages: ReadonlyMap<string, string>;
  files: ReadonlyMap<string, string>;
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

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function decode(bytes: Buffer): string {
  return bytes.toString('utf8');
}

/**
 * Builds the Revision of a commit. Never fails on the content: git accepted the commit, so it must read. What the
 * pre-receive hook would have refused (a commit pushed before a rule existed, one written by another tool) is
 * built as far as it can be (see TreeAnalysis); validateContent lists the problems.
 */
export async function buildRevision(source: TreeSource, commit: CommitInfo, facts: HistoryFacts): Promise<Revision> {
  return (await analyzeTree(source, commit, facts)).revision;
}

/**
 * The parse of each page file: kept ones from `source.parsedPages`, the others read and parsed (on the source's
 * parser when it has one), then kept.
 */
async function parseDocuments(
  source: Pick<TreeSource, 'readBlob' | 'parsePages' | 'parsedPages'>,
  files: Array<{ oid: string; options: PageFileOptions }>,
  fileIdByPath: Map<string, string>,
): Promise<ParsedPage[]> {
  const turns = new Turns();
  const keys: string[] = [];
  const parsed: Array<ParsedPage | undefined> = [];
  for (const file of files) {
    if (turns.due()) await turns.take();
    const key = parsedPageKey(file.oid, file.options);
    const kept = source.parsedPages?.get(key);
    keys.push(key);
    parsed.push(kept && parseHolds(kept, fileIdByPath) ? kept : undefined);
  }
  const missing = files.map((_, i) => i).filter((i) => parsed[i] === undefined);
  if (missing.length === 0) return parsed as ParsedPage[];
  const texts = await Promise.all(missing.map((i) => source.readBlob(files[i].oid).then(decode)));
  // In parts: each part's copy to a thread (or its parse here) is a turn of its own, and parts run on every thread.
  const fileIds = Object.fromEntries(fileIdByPath);
  const parts: Array<Promise<ParsedPage[]>> = [];
  for (let start = 0; start < missing.length; start += PAGES_PER_PARSE) {
    if (turns.due()) await turns.take();
    const input: PageFilesInput = {
      files: missing.slice(start, start + PAGES_PER_PARSE).map((i, n) => ({ text: texts[start + n], options: files[i].options })),
      fileIds,
    };
    const part = source.parsePages ? source.parsePages(input) : Promise.resolve(parsePageFiles(input));
    // Observed at once: a part that fails while a later one waits for its turn is reported by Promise.all below.
    part.catch(() => undefined);
    parts.push(part);
  }
  const fresh = (await Promise.all(parts)).flat();
  for (const [n, i] of missing.entries()) {
    if (turns.due()) await turns.take();
    parsed[i] = fresh[n];
    source.parsedPages?.set(keys[i], fresh[n]);
  }
  return parsed as ParsedPage[];
}

/** SUMMARY.md texts this long (~1,000 items) are parsed on the source's parser when it has one: 10,000 items take ~100 ms. */
const SUMMARY_PARSED_ELSEWHERE_AT = 32 * 1024;

/** The parse of SUMMARY.md, kept in the source's store: a big one on the source's parser when it has one. */
async function parseSummaryOf(
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

/** Page files parsed per task (see parseDocuments). */
const PAGES_PER_PARSE = 1000;

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
    const toNode = (item: SummaryItem): StructureNode => {
      const children = item.children.map(toNode);
      const toc = item.type !== 'computed' && item.tocTitle !== undefined ? { tocTitle: item.tocTitle } : {};
      if (item.type === 'page') return { kind: 'document', gitPath: item.gitPath!, title: item.title, ...toc, children };
      if (item.type === 'computed') return { kind: 'computed', title: item.title, computed: item.source, children };
      return { kind: 'link', title: item.title, ...toc, href: item.href, pageGitPath: item.pageGitPath, anchor: item.anchor, children };
    };
    structure = parsed.structure.entries.map((entry) =>
      entry.type === 'group' ? { kind: 'group', title: entry.title, children: entry.items.map(toNode) } : toNode(entry),
    );
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
  // Ids in page order: pass 1 assigned document ids in order already; groups and links take theirs here, after
  // every document, so a front matter id is never lost to a group's manifest entry.
  const pages = build(structure, '');

  // Reusable contents.
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

/**
 * Page (and reusable content) ids as analyzeTree hands them out, in page order: the first claimed id not taken yet
 * (front matter, then the manifest), else the history's id for the key. `claimable`, when known: every id that will
 * be claimed; only those need remembering (no other id is ever asked about), which spares a set of every page's id.
 */
function pageIdClaims(facts: HistoryFacts, claimable?: ReadonlySet<string>): (key: string, ...claimed: (string | undefined)[]) => string {
  const used = new Set<string>();
  const take = (id: string): string => {
    if (!claimable || claimable.has(id)) used.add(id);
    return id;
  };
  return (key, ...claimed) => {
    for (const id of claimed) {
      if (id !== undefined && !used.has(id)) return take(id);
    }
    return take(facts.idOf('page', key));
  };
}

/** File ids as analyzeTree hands them out, in path order: the manifest's when not taken yet, else the history's. */
function fileIdClaims(manifestIds: ManifestIds, facts: HistoryFacts): (path: string) => string {
  const used = new Set<string>();
  return (path) => {
    const fromManifest = manifestIds.files.get(path);
    const id = fromManifest !== undefined && !used.has(fromManifest) ? fromManifest : facts.idOf('file', path);
    used.add(id);
    return id;
  };
}

/** A document page from its file's parse, at its place in the revision (`pages`: its children). */
function documentPage(
  fields: PageFields,
  place: { id: string; path: string; gitPath: string; blobOid: string; tocTitle: string | undefined; facts: HistoryFacts },
  pages: Page[] = [],
): DocumentPage {
  const page: DocumentPage = {
    id: place.id,
    type: fields.type,
    title: fields.title,
    slug: lastSegment(place.path),
    path: place.path,
    pages,
    gitPath: place.gitPath,
    blobOid: place.blobOid,
    markdown: fields.markdown,
    layout: fields.layout,
    frontMatter: fields.frontMatter,
    createdAt: place.facts.createdAt(place.gitPath),
    updatedAt: place.facts.updatedAt(place.gitPath),
  };
  if (place.tocTitle !== undefined) page.tocTitle = place.tocTitle;
  if (fields.description !== undefined) page.description = fields.description;
  if (fields.emoji !== undefined) page.emoji = fields.emoji;
  if (fields.icon !== undefined) page.icon = fields.icon;
  if (fields.hidden !== undefined) page.hidden = fields.hidden;
  if (fields.noIndex !== undefined) page.noIndex = fields.noIndex;
  if (fields.noRobotsIndex !== undefined) page.noRobotsIndex = fields.noRobotsIndex;
  if (fields.variables !== undefined) page.variables = fields.variables;
  if (fields.cover !== undefined) page.cover = fields.cover;
  if (fields.computed !== undefined) page.computed = fields.computed;
  if (fields.computedSeed !== undefined) page.computedSeed = fields.computedSeed;
  return page;
}

/** The problems of one page file: its parse's, and a warning when it is longer than what the indexes read. */
function pageProblems(parsed: ParsedPage, gitPath: string): ContentProblem[] {
  // The page reads whole; search and the link index read its beginning (src/content/bounded-markdown.ts).
  const cut = parsed.page.markdown.length > MAX_INDEXED_TEXT;
  return cut ? [...parsed.problems, { path: gitPath, severity: 'warning', message: cutPageMessage(parsed.page.markdown.length) }] : parsed.problems;
}

/**
 * The problems of a tree that differs from an analyzed one only in the contents of some of its page files (same
 * paths, same structure, same other files): the analysis's other problems, and the pages' own, those of the changed
 * pages found again (read and parsed as analyzeTree does). No other problem depends on a page file's content.
 */
export async function reanalyzePages(
  before: Pick<TreeAnalysis, 'problems' | 'pageChecks' | 'fileIdByPath'>,
  changed: ReadonlyMap<string, string>,
  source: Pick<TreeSource, 'readBlob' | 'parsePages' | 'parsedPages'>,
): Promise<Pick<TreeAnalysis, 'problems' | 'pageChecks' | 'fileIdByPath'>> {
  const { pageChecks, redone } = await reparsePages(before, changed, source);
  const old = new Set(redone.flatMap((page) => page.before.problems));
  const problems = [...before.problems.filter((problem) => !old.has(problem)), ...redone.flatMap((page) => page.after.problems)];
  return { problems, pageChecks, fileIdByPath: before.fileIdByPath };
}

/**
 * The page checks of an analysis with those of the changed page files (git path -> new blob) made again, and the
 * changed pages' checks before and after with their new parses (page order). Paths that are no page are skipped.
 */
async function reparsePages(
  before: Pick<TreeAnalysis, 'pageChecks' | 'fileIdByPath'>,
  changed: ReadonlyMap<string, string>,
  source: Pick<TreeSource, 'readBlob' | 'parsePages' | 'parsedPages'>,
): Promise<{ pageChecks: PageCheck[]; redone: Array<{ before: PageCheck; after: PageCheck; parsed: ParsedPage }> }> {
  const redo = changed.size === 0 ? [] : before.pageChecks.filter((check) => changed.has(check.options.gitPath));
  const files = redo.map((check) => ({ oid: changed.get(check.options.gitPath)!, options: check.options }));
  const parsed = await parseDocuments(source, files, before.fileIdByPath);
  const redone = redo.map((check, i) => ({
    before: check,
    after: { ...files[i], problems: pageProblems(parsed[i], files[i].options.gitPath) },
    parsed: parsed[i],
  }));
  const fresh = new Map(redone.map((page) => [page.before, page.after]));
  const pageChecks = redone.length === 0 ? before.pageChecks : before.pageChecks.map((check) => fresh.get(check) ?? check);
  return { pageChecks, redone };
}

/**
 * The analysis of a tree built from the analysis of an earlier one (`before`, typically the first parent's) when
 * the two differ only in the contents of some document page files: same paths and modes, same SUMMARY.md,
 * `.gitbook.yaml`, manifest, includes, variables and files. Equal to analyzeTree's, in time proportional to the
 * changed pages plus a few cheap passes over the pages: only the changed files are parsed; paths, slugs, structure,
 * files, reusable contents, variables and redirects come from `before`; ids and dates are asked of `facts` again
 * for every page and file (they are this commit's, e.g. after a merge).
 *
 * Undefined, and then analyzeTree must build it, when anything else differs: a file added, removed or renamed, a
 * mode or another blob changed, a changed page claiming another front matter id (ids are handed out in page order,
 * so one claim moves others), or any id that `facts` now gives differently. `before` is not modified: the pages
 * that did not change, nor any of theirs below, are shared with it.
 */
export async function reviseTree(
  before: TreeAnalysis,
  source: TreeSource,
  commit: CommitInfo,
  facts: HistoryFacts,
): Promise<TreeAnalysis | undefined> {
  const { basis, revision: previous } = before;
  const changed = blobChanges(basis.entries, source.entries);
  if (!changed) return undefined;
  // File ids: every file's again, as analyzeTree hands them out (covers parsed before looked them up).
  const fileIdOf = fileIdClaims(basis.manifestIds, facts);
  if (previous.files.some((file) => fileIdOf(file.gitPath) !== file.id)) return undefined;

  // Only document pages' files may have changed (a page is a regular file: a symlink or a submodule never is one).
  const { pageChecks, redone } = await reparsePages(before, changed, source);
  if (redone.length !== changed.size) return undefined;
  if (redone.some((page) => page.parsed.page.id !== basis.claimedIds.get(page.after.options.gitPath))) return undefined;

  // Page ids, in analyzeTree's order: document pages, then groups, links and computed items, then reusable contents.
  const documents: DocumentPage[] = [];
  const others: Page[] = [];
  walkPages(previous.pages, (page) => (page.type === 'document' || page.type === 'computed' ? documents.push(page) : others.push(page)));
  const { claimedIds, includeClaims, manifestIds } = basis;
  const claimable = new Set([...claimedIds.values(), ...manifestIds.pages.values()]);
  for (const id of includeClaims) if (id !== undefined) claimable.add(id);
  const pageIdFor = pageIdClaims(facts, claimable);
  const idsMoved =
    documents.some((page) => pageIdFor(page.gitPath, claimedIds.get(page.gitPath), manifestIds.pages.get(page.gitPath)) !== page.id) ||
    others.some((page) => {
      const key = summaryPageKey(basis.summaryPath, page.path);
      return pageIdFor(key, manifestIds.pages.get(key)) !== page.id;
    }) ||
    previous.reusableContents.some((content, i) => pageIdFor(content.gitPath, includeClaims[i], manifestIds.pages.get(content.gitPath)) !== content.id);
  if (idsMoved) return undefined;

  // The pages: a changed file's page made from its new parse; a page whose dates moved, or below which a page
  // changed, copied; the others shared.
  const parsedByPath = new Map(redone.map((page) => [page.after.options.gitPath, { parsed: page.parsed, oid: page.after.oid }]));
  const revise = (pages: Page[]): Page[] => {
    let copy: Page[] | undefined;
    pages.forEach((page, i) => {
      const children = revise(page.pages);
      let next: Page = page;
      if (page.type === 'document' || page.type === 'computed') {
        const fresh = parsedByPath.get(page.gitPath);
        if (fresh) {
          const place = { id: page.id, path: page.path, gitPath: page.gitPath, blobOid: fresh.oid, tocTitle: page.tocTitle, facts };
          next = documentPage(fresh.parsed.page, place, children);
        } else {
          const createdAt = facts.createdAt(page.gitPath);
          const updatedAt = facts.updatedAt(page.gitPath);
          if (children !== page.pages || createdAt !== page.createdAt || updatedAt !== page.updatedAt) next = { ...page, createdAt, updatedAt, pages: children };
        }
      } else if (children !== page.pages) {
        next = { ...page, pages: children };
      }
      if (next !== page) (copy ??= [...pages])[i] = next;
    });
    return copy ?? pages;
  };
  const pages = revise(previous.pages);

  // The pages' problems take the place of the changed pages' old ones (analyzeTree's order).
  const pageProblemCount = before.pageChecks.reduce((count, check) => count + check.problems.length, 0);
  const problems = [
    ...before.problems.slice(0, basis.problemsBeforePages),
    ...pageChecks.flatMap((check) => check.problems),
    ...before.problems.slice(basis.problemsBeforePages + pageProblemCount),
  ];
  return {
    revision: { ...previous, commit, pages },
    problems,
    pageChecks,
    fileIdByPath: before.fileIdByPath,
    basis: { ...basis, entries: source.entries },
  };
}

/**
 * The blobs that changed between two listings of a tree (path -> new blob), when only blobs did: the same paths in
 * the same order, with the same modes. Undefined otherwise.
 */
function blobChanges(before: readonly TreeEntry[], after: readonly TreeEntry[]): Map<string, string> | undefined {
  if (before.length !== after.length) return undefined;
  const changed = new Map<string, string>();
  for (let i = 0; i < after.length; i++) {
    const old = before[i];
    const now = after[i];
    if (old.path !== now.path || old.mode !== now.mode) return undefined;
    if (old.oid !== now.oid) changed.set(now.path, now.oid);
    else if (old.size !== now.size) return undefined;
  }
  return changed;
}

/**
 * `.gitbook.yaml` redirects, resolved: the source as a page path (leading and trailing `/` removed, percent-decoded);
 * the target a URL, or a file relative to the content root (`page.md`, `folder/README.md`; `folder`, `folder/` and
 * a path without `.md` are tried too, as people write them) that is a page. A target that names no page is kept
 * (kind `missing`) with a warning: the hosted platform tolerates it. A URL other than http(s) (`javascript:`, ...) is
 * left out, with a warning: a redirect sends readers to a page or to the web, never runs anything.
 */
function resolveRedirects(config: GitbookConfig, pages: Page[], problems: ContentProblem[]): RevisionRedirect[] {
  const byGitPath = new Map<string, string>();
  walkPages(pages, (page) => {
    if (page.type === 'document' || page.type === 'computed') byGitPath.set(page.gitPath, page.id);
  });
  const nowhere: string[] = [];
  const unsafe: string[] = [];
  const redirects = Object.entries(config.redirects).flatMap(([from, to]): RevisionRedirect[] => {
    const source = trimSlashes(decodePath(from));
    if (isUrl(to)) {
      if (isAllowedUrl(to, WEB_SCHEMES)) return [{ source, target: { kind: 'url', url: to } }];
      unsafe.push(from);
      return [];
    }
    const written = normalizePath(decodePath(to).replace(/^\/+/, ''));
    const base = written === undefined ? undefined : config.root + written;
    const candidates = base === undefined ? [] : [base, `${base}.md`, `${base}/README.md`];
    for (const candidate of candidates) {
      const pageId = byGitPath.get(candidate);
      if (pageId !== undefined) return [{ source, target: { kind: 'page', pageId } }];
    }
    nowhere.push(from);
    return [{ source, target: { kind: 'missing', path: written ?? to } }];
  });
  // Stale redirects are common in synced repositories (dozens, after pages moved): one warning for all of them.
  if (nowhere.length > 0) {
    const named = nowhere.slice(0, 3).map((from) => `${from} -> ${config.redirects[from]}`).join(', ');
    problems.push({
      path: CONFIG_PATH,
      line: config.redirectLines[nowhere[0]],
      severity: 'warning',
      message: `${nowhere.length === 1 ? 'a redirect leads' : `${nowhere.length} redirects lead`} to no page of the table of contents: ${named}${nowhere.length > 3 ? ', ...' : ''}`,
    });
  }
  if (unsafe.length > 0) {
    problems.push({
      path: CONFIG_PATH,
      line: config.redirectLines[unsafe[0]],
      severity: 'warning',
      message: `a redirect may lead only to a page or an http(s) URL: ignored ${unsafe.slice(0, 3).map((from) => `${from} -> ${config.redirects[from]}`).join(', ')}${unsafe.length > 3 ? ', ...' : ''}`,
    });
  }
  return redirects;
}

function walkPages(pages: Page[], visit: (page: Page) => void): void {
  for (const page of pages) {
    visit(page);
    walkPages(page.pages, visit);
  }
}

function walk(nodes: StructureNode[], visit: (node: StructureNode) => void): void {
  for (const node of nodes) {
    visit(node);
    walk(node.children, visit);
  }
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function uniquePath(path: string, used: Set<string>): string {
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

/** The page structure of a tree without SUMMARY.md (see the decisions at the top of this file). */
function inferStructure(markdownPaths: string[], root: string, readmePath: string): StructureNode[] {
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
