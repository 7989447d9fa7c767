/**
 * The content of one commit of a space, as Quire understands it (docs/git-format.md). Built by src/content/revision.ts
 * from the commit's tree (read through ./tree-source.ts); presented as the API's Revision / Page / File by
 * src/http/routes/content. Plain data, immutable once built (cached by commit oid).
 */

/** A blob of the commit's tree, with its full path from the repository root. */
export interface TreeEntry {
  path: string;
  /** git mode: 100644, 100755, 120000 (symlink), 160000 (submodule). Trees are not listed. */
  mode: string;
  oid: string;
  size: number;
}

/**
 * Facts that come from history rather than from the tree: ids of pages and files found neither in front matter
 * nor in the manifest (rename detection, ids Quire assigned earlier), and when each path was created and last
 * changed. Keyed by path from the repository root.
 */
export interface HistoryFacts {
  idOf(kind: 'page' | 'file', path: string): string;
  createdAt(path: string): string;
  updatedAt(path: string): string;
}

export type PageLayoutKey = 'cover' | 'title' | 'description' | 'tableOfContents' | 'outline' | 'pagination';

export interface PageLayout {
  width: 'default' | 'wide';
  cover: boolean;
  coverSize: 'hero' | 'full';
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
}

export interface PageCover {
  /** File id of the cover image (light), and of the dark variant. */
  file?: string;
  fileDark?: string;
  yPos: number;
}

interface PageBase {
  id: string;
  /** The SUMMARY.md link text; else the page's own `# H1`; else its file name. */
  title: string;
  /** The quoted link title of its SUMMARY.md item (the hosted platform's "page link title", shown in the sidebar). */
  tocTitle?: string;
  /** Last segment of `path`. */
  slug: string;
  /** Slug chain from the root, e.g. `getting-started/install`. */
  path: string;
  pages: Page[];
}

export interface DocumentPage extends PageBase {
  type: 'document' | 'computed';
  /** Path of the markdown file from the repository root, and its blob oid. */
  gitPath: string;
  blobOid: string;
  /** The body after the first `# H1` (the whole body when there is none). */
  markdown: string;
  description?: string;
  emoji?: string;
  icon?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  variables?: Record<string, string>;
  layout: PageLayout;
  cover?: PageCover;
  computed?: Record<string, unknown>;
  computedSeed?: string;
  /** Front matter as written, unknown keys included, in order. */
  frontMatter: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface GroupPage extends PageBase {
  type: 'group';
}

export interface LinkPage extends PageBase {
  type: 'link';
  /** The URL (or anchor, or page path) the SUMMARY.md item points at, as written. */
  href: string;
  /**
   * For a file SUMMARY.md lists again (its first listing is the page): the id of that page, and the `#anchor` of
   * this listing, if any.
   */
  pageId?: string;
  anchor?: string;
}

/**
 * A computed page declared in SUMMARY.md by a fenced ```` ```yaml ```` item (`type: builtin:openapi`, its `props`
 * and `dependencies`): it has no file; the block is its source. Shown by the API as a page of type `computed`.
 */
export interface ComputedBlockPage extends PageBase {
  type: 'computed-block';
  /** The block's YAML mapping, as written (`type`, `props`, `dependencies`, ...). */
  computed: Record<string, unknown>;
}

export type Page = DocumentPage | GroupPage | LinkPage | ComputedBlockPage;

/** A `.gitbook.yaml` redirect: an old page path of the space and where it now leads. */
export interface RevisionRedirect {
  /** The old path, as a page path (no leading or trailing `/`), percent-decoded. */
  source: string;
  /** The page it leads to; a URL; or a path that names no page of the revision. */
  target: { kind: 'page'; pageId: string } | { kind: 'url'; url: string } | { kind: 'missing'; path: string };
}

export interface RevisionFile {
  id: string;
  /** File name (last path segment). */
  name: string;
  /** Path from the repository root. */
  gitPath: string;
  blobOid: string;
  size: number;
  contentType: string;
  dimensions?: { width: number; height: number };
}

export interface ReusableContent {
  id: string;
  title: string;
  markdown: string;
  gitPath: string;
  blobOid: string;
}

export interface CommitInfo {
  oid: string;
  parents: string[];
  message: string;
  authorName: string;
  authorEmail: string;
  /** ISO-8601 committer date. */
  createdAt: string;
  /** True for commits Quire made itself (committer is Quire). */
  createdByQuire: boolean;
}

export interface Revision {
  commit: CommitInfo;
  /** Top-level pages in order (groups hold their pages). */
  pages: Page[];
  files: RevisionFile[];
  reusableContents: ReusableContent[];
  variables: Record<string, string>;
  /** The content root inside the repository ('' or e.g. `docs/`), from .gitbook.yaml `root`. */
  root: string;
  /** `.gitbook.yaml` `redirects`, in the order written. */
  redirects: RevisionRedirect[];
}

/**
 * A problem with a file of the tree, printed by pushes as `path:line: message`. An error (no `severity`, or
 * `'error'`) is something that would break Quire (YAML it must read that does not parse, a path leaving the tree):
 * a push with one is refused. A warning is something the hosted platform tolerates (a listed file that does not
 * exist, a file listed twice, a missing cover): the push goes through and prints it. Neither ever stops a revision
 * from being read: the builder shows what it can.
 */
export interface ContentProblem {
  path: string;
  line?: number;
  message: string;
  severity?: 'error' | 'warning';
}
