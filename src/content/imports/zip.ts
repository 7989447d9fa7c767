/**
 * The `zip` source: an archive of markdown, either a plain folder of .md files or a docs repository in the GitBook
 * layout (SUMMARY.md, `.gitbook.yaml` with its root, `.gitbook/assets`). The archive is read with the same rules as
 * a pushed repository (src/content/revision.ts), so its structure comes out the way a push of it would show.
 *
 * Safety: nothing is ever written to disk. An entry whose path is absolute or climbs out with `..` (zip-slip)
 * refuses the whole archive (naming `url` and the entry); symbolic links are skipped (never followed); the
 * number of entries, the size of each and their size together are capped as they inflate (zip bombs:
 * src/content/imports/archive.ts).
 *
 * Decisions:
 * - A single top folder holding everything (`repo-main/...`, as GitHub's archives have) is dropped.
 * - Pages keep their paths under the content root, their front matter and their SUMMARY.md structure (groups and
 *   link items included); links between them stay links between them wherever they end up.
 * - Files of the archive are imported when a page links to them (images, downloads, covers): into
 *   `.gitbook/assets/`. Other files (a package.json, CI settings...) are counted in `totalResources`, not imported.
 */
import { ImportRefused } from './import-refused.js';
import { blobOid } from '../files.js';
import { mapUrls, parseMarkdown } from '../convert.js';
import { assetRef, pageRef, type ImportAsset, type ImportNode, type ImportTree } from '../import-plan.js';
import type { CommitInfo, Page, TreeEntry } from '../model.js';
import { baseName, decodePath, folderOf, isUrl, normalizePath, resolvePath } from '../paths.js';
import { formatProblem, isError } from '../problems.js';
import { analyzeTree } from '../revision.js';
import { fetchSource, type ImportFetcher } from './fetching.js';
import { ARCHIVE_LIMITS, ArchiveTooLarge, megabytes, readArchive, type ArchiveEntry, type ArchiveLimits } from './archive.js';

export interface ZipEntry {
  path: string;
  bytes: Buffer;
}

/** Unix mode of each entry, from the central directory (fflate does not report it): symbolic links are 0o120000. */
function unixModes(data: Uint8Array): Map<string, number> {
  const modes = new Map<string, number>();
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let end = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return modes;
  const count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  const decoder = new TextDecoder();
  for (let n = 0; n < count && offset + 46 <= data.length; n++) {
    if (view.getUint32(offset, true) !== 0x02014b50) break;
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const external = view.getUint32(offset + 38, true);
    const name = decoder.decode(data.subarray(offset + 46, offset + 46 + nameLength));
    if (madeBy === 3) modes.set(name, (external >>> 16) & 0o177777);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return modes;
}

function unsafeArchive(entry: string): ImportRefused {
  return new ImportRefused(`url: the archive holds an entry whose path leaves the archive (${entry}); Quire refuses such archives`);
}

const JUNK = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$)/;

/**
 * The files of a zip archive, checked (see the safety notes at the top of this file). `skipped` counts entries left
 * out (symbolic links).
 */
export function readZip(bytes: Uint8Array, url: string, limits: ArchiveLimits = ARCHIVE_LIMITS): { files: ZipEntry[]; skipped: number } {
  const magic = bytes.length >= 4 ? (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 0 : 0;
  if (magic !== 0x04034b50 && magic !== 0x06054b50) throw new ImportRefused(`url: ${url} is not a zip archive`);
  const modes = unixModes(bytes);
  let unsafe: string | undefined;
  let skipped = 0;
  const accept = (entry: string): boolean => {
    const name = entry.replace(/\\/g, '/');
    if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.split('/').includes('..')) {
      unsafe ??= entry;
      return false;
    }
    if (unsafe || name.endsWith('/') || JUNK.test(name)) return false;
    if (((modes.get(entry) ?? 0) & 0o170000) === 0o120000) {
      skipped++;
      return false;
    }
    return true;
  };
  let unzipped: ArchiveEntry[];
  try {
    unzipped = readArchive(bytes, limits, accept);
  } catch (error) {
    if (unsafe) throw unsafeArchive(unsafe);
    if (error instanceof ArchiveTooLarge) {
      throw new ImportRefused(
        `url: the archive is too large: ${error.reason}; Quire imports archives of at most ${limits.maxEntries} files, ${megabytes(limits.maxEntryBytes)} per file and ${megabytes(limits.maxBytes)} in all`,
      );
    }
    throw new ImportRefused(`url: ${url} is not a zip archive Quire can read: ${(error as Error).message}`);
  }
  if (unsafe) throw unsafeArchive(unsafe);
  const files: ZipEntry[] = [];
  for (const { name, bytes: data } of unzipped) {
    const path = normalizePath(name.replace(/\\/g, '/'));
    if (path) files.push({ path, bytes: Buffer.from(data.buffer, data.byteOffset, data.byteLength) });
  }
  // One folder around everything (GitHub's archives) is not part of the content.
  const tops = new Set(files.map((f) => (f.path.includes('/') ? f.path.slice(0, f.path.indexOf('/')) : '')));
  if (tops.size === 1 && !tops.has('')) {
    const prefix = `${[...tops][0]}/`;
    for (const file of files) file.path = file.path.slice(prefix.length);
  }
  return { files, skipped };
}

const NO_COMMIT: CommitInfo = { oid: '', parents: [], message: '', authorName: '', authorEmail: '', createdAt: '', createdByQuire: false };

/** `zip`: the archive at the URL (see the decisions at the top of this file). */
export async function importZip(fetcher: ImportFetcher, url: string, limits: ArchiveLimits): Promise<ImportTree> {
  const fetched = await fetchSource(fetcher, url);
  const { files, skipped } = readZip(fetched.body, url, limits);
  const byOid = new Map<string, Buffer>();
  const entries: TreeEntry[] = files.map((file) => {
    const oid = blobOid(file.bytes);
    byOid.set(oid, file.bytes);
    return { path: file.path, mode: '100644', oid, size: file.bytes.length };
  });
  const source = { entries, readBlob: async (oid: string) => byOid.get(oid) ?? Buffer.alloc(0) };
  let next = 0;
  const analysis = await analyzeTree(source, NO_COMMIT, { idOf: () => `zip-${next++}`, createdAt: () => '', updatedAt: () => '' });
  const { revision } = analysis;
  // Warnings (a missing cover, a file listed twice) are what the hosted platform tolerates: imported as they are.
  const problems = analysis.problems.filter(isError);
  if (problems.length > 0) {
    const shown = problems.slice(0, 3).map(formatProblem).join('; ');
    throw new ImportRefused(`url: the archive's content does not parse: ${shown}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`);
  }
  const root = revision.root;
  const pagePaths = new Set<string>();
  const collect = (pages: Page[]): void => {
    for (const page of pages) {
      if (page.type === 'document' || page.type === 'computed') pagePaths.add(page.gitPath);
      collect(page.pages);
    }
  };
  collect(revision.pages);
  if (pagePaths.size === 0) throw new ImportRefused(`url: the archive holds no markdown pages`);
  const fileBytes = new Map(files.map((f) => [f.path, f.bytes]));
  const assets = new Map<string, ImportAsset>();

  /** A link of the page at `from` into the archive: a page reference, a file reference, or undefined. */
  const target = (from: string, raw: string, kind: 'link' | 'image' | 'cover'): string | undefined => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || isUrl(trimmed)) return undefined;
    const hash = trimmed.indexOf('#');
    const pathPart = decodePath(hash < 0 ? trimmed : trimmed.slice(0, hash));
    const anchor = hash < 0 ? undefined : trimmed.slice(hash + 1);
    const resolved = pathPart.startsWith('/') ? resolvePath(root, pathPart.replace(/^\/+/, '')) : resolvePath(folderOf(from), pathPart);
    if (resolved === undefined) return undefined;
    const asReadme = resolved.endsWith('/') || resolved === '' ? `${resolved}README.md` : resolved;
    if (kind === 'link' && pagePaths.has(asReadme)) return pageRef(asReadme, anchor);
    if (kind === 'link' && pagePaths.has(`${resolved}/README.md`)) return pageRef(`${resolved}/README.md`, anchor);
    const bytes = fileBytes.get(resolved);
    if (!bytes || pagePaths.has(resolved)) return undefined;
    if (!assets.has(resolved)) assets.set(resolved, { key: resolved, name: baseName(resolved), bytes });
    return assetRef(resolved);
  };

  const convert = (pages: Page[], topLevel: boolean): ImportNode[] =>
    pages.flatMap((page): ImportNode[] => {
      const children = convert(page.pages, false);
      if (page.type === 'group') return topLevel ? [{ kind: 'group', title: page.title, children }] : children;
      if (page.type === 'link') return [{ kind: 'link', title: page.title, href: page.href, children }];
      // A computed page of SUMMARY.md has no file to import; its nested pages take its place.
      if (page.type === 'computed-block') return children;
      const body = parseMarkdown(page.markdown);
      mapUrls(body, (raw, kind) => target(page.gitPath, raw, kind) ?? raw);
      const frontMatter: Record<string, unknown> = { ...page.frontMatter };
      for (const key of ['cover', 'coverDark']) {
        if (typeof frontMatter[key] === 'string') frontMatter[key] = target(page.gitPath, frontMatter[key] as string, 'cover') ?? frontMatter[key];
      }
      return [{ kind: 'page', key: page.gitPath, file: page.gitPath.slice(root.length), title: page.title, frontMatter, body, children }];
    });
  const nodes = convert(revision.pages, true);
  return { nodes, assets: [...assets.values()], total: files.length + skipped };
}
