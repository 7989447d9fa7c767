/**
 * The content of one commit of a space, as Quire understands it (git-format.md). Built by src/content/revision.ts
 * from the commit's tree; presented as the API's Revision / Page / File by src/http/routes/content.
 * Plain data, immutable once built (cached by commit oid).
 */

/** A blob of the commit's tree, with its full path from the repository root. */
export interface TreeEntry {
  path: string;
  /** git mode: 100644, 100755, 120000 (symlink), 160000 (submodule). Trees are not listed. */
  mode: string;
  oid: string;
  size: number;
}

/** How the builder reads what it needs from the commit. */
export interface TreeSource {
  /** Every blob of the commit, in any order. */
  entries: TreeEntry[];
  readBlob(oid: string): Promise<Buffer>;
  /**
   * An image's width and height by blob oid, when the caller keeps them (images are read whole to find them, and a
   * repository's assets change rarely); without it, every image blob is read.
   */
  dimensionsOf?(oid: string): Promise<{ width: number; height: number } | undefined>;
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
  title: string;
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
  /** The URL (or anchor) the SUMMARY.md item points at. */
  href: string;
}

export type Page = DocumentPage | GroupPage | LinkPage;

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
}

/** A problem with a file of the tree: refused pushes print these, as `path:line: message`. */
export interface ContentProblem {
  path: string;
  line?: number;
  message: string;
}
