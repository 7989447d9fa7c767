/**
 * The one-document sources: `markdown` (a .md file), `html` (one page) and `docx` (a Word document, through
 * mammoth to HTML, then the HTML converter). Each becomes one page; its images become files.
 *
 * Decisions:
 * - The page's file name is the last segment of the URL without its extension (`/docs/Install.md` ->
 *   `install.md`), else the title's slug.
 * - Links stay links: relative ones are made absolute against the URL (nothing else of the source is imported);
 *   in-page anchors stay as written.
 * - markdown: front matter is read for `title` (used when the body has no H1) and `description`; its other keys
 *   (another tool's `layout`, `permalink`...) mean something else to Quire and are dropped.
 * - docx: Word's Title style is a heading 1 too; images inside the document become files `image-N.<ext>`.
 */
import mammoth from 'mammoth';
import mime from 'mime-types';
import type { Root } from 'mdast';
import { ImportRefused } from './import-refused.js';
import { convertHtml, mapUrls, parseMarkdown, urlsOf } from '../convert.js';
import { parseFrontMatter } from '../frontmatter.js';
import { splitTitle } from '../page-title.js';
import { assetRef, type ImportAsset, type ImportTree } from '../import-plan.js';
import { decodePath, slugify } from '../paths.js';
import { Budget, decodeText, downloadImages, fetchSource, mediaType, type ImportFetcher } from './fetching.js';
import { ArchiveTooLarge, megabytes, readArchive, type ArchiveLimits } from './archive.js';

/** Bytes and time for the images of one document. */
const DOCUMENT_BUDGET = { maxBytes: 100 * 1024 * 1024, timeMs: 60_000, concurrency: 4 };

/** The file name (without extension) the URL gives a page, or undefined when its path has no last segment. */
export function nameFromUrl(url: string): string | undefined {
  const path = new URL(url).pathname;
  const last = decodePath(path.slice(path.lastIndexOf('/') + 1)).replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return last === '' ? undefined : slugify(last);
}

function pageFile(url: string, title: string): string {
  return `${nameFromUrl(url) ?? slugify(title)}.md`;
}

function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/**
 * Makes relative links absolute against `base` and turns images into imported files (downloading those that are
 * URLs, through the guard). Returns the files.
 */
async function resolveDocumentUrls(fetcher: ImportFetcher, body: Root, base: string): Promise<ImportAsset[]> {
  const absolute = (raw: string): string | undefined => {
    try {
      return new URL(raw.trim(), base).toString();
    } catch {
      return undefined;
    }
  };
  const images = urlsOf(body).images.map((raw) => (raw.startsWith('data:') ? raw : absolute(raw))).filter((u): u is string => u !== undefined);
  const budget = new Budget(DOCUMENT_BUDGET.maxBytes, DOCUMENT_BUDGET.timeMs);
  const assets = await downloadImages(fetcher, images, { budget, concurrency: DOCUMENT_BUDGET.concurrency });
  mapUrls(body, (raw, kind) => {
    const trimmed = raw.trim();
    if (/^javascript:/i.test(trimmed)) return null;
    if (kind === 'image') {
      const url = trimmed.startsWith('data:') ? trimmed : absolute(trimmed);
      if (url && assets.has(url)) return assetRef(url);
      return trimmed.startsWith('data:') ? null : (url ?? raw);
    }
    if (trimmed.startsWith('#') || trimmed === '') return raw;
    return absolute(trimmed) ?? raw;
  });
  return [...assets.values()];
}

/** `markdown`: one markdown file at the URL. */
export async function importMarkdown(fetcher: ImportFetcher, url: string): Promise<ImportTree> {
  const fetched = await fetchSource(fetcher, url);
  if (looksBinary(fetched.body)) throw new ImportRefused(`url: ${url} is not a text file (it is ${mediaType(fetched) || 'binary'}); a markdown import needs a .md file`);
  // A page showing a markdown file (a repository browser's) is not the file.
  if (mediaType(fetched) === 'text/html') throw new ImportRefused(`url: ${url} is an HTML page, not a markdown file; use the raw file's URL, or source "html"`);
  const split = parseFrontMatter(decodeText(fetched), url);
  if (!split.ok) throw new ImportRefused(`url: ${url} line ${split.problem.line ?? 1}: ${split.problem.message}`);
  const { data, body } = split.value;
  const titled = splitTitle(body);
  const title = titled.title ?? (typeof data.title === 'string' && data.title.trim() !== '' ? data.title.trim() : undefined) ?? nameFromUrl(url) ?? 'Imported page';
  const tree = parseMarkdown(titled.markdown);
  const imagesFound = new Set(urlsOf(tree).images).size;
  const assets = await resolveDocumentUrls(fetcher, tree, fetched.url);
  const frontMatter = typeof data.description === 'string' && data.description.trim() !== '' ? { description: data.description.trim() } : undefined;
  return {
    nodes: [{ kind: 'page', key: fetched.url, file: pageFile(url, title), title, frontMatter, body: tree, children: [] }],
    assets,
    total: 1 + imagesFound,
  };
}

/** `html`: one HTML page at the URL, converted (main content, title, images downloaded). */
export async function importHtml(fetcher: ImportFetcher, url: string): Promise<ImportTree> {
  const fetched = await fetchSource(fetcher, url);
  const type = mediaType(fetched);
  if (looksBinary(fetched.body) || (type !== '' && !type.startsWith('text/') && !type.includes('html') && !type.includes('xml'))) {
    throw new ImportRefused(`url: ${url} is not an HTML page (it is ${type || 'binary'})`);
  }
  const document = convertHtml(decodeText(fetched), { url: fetched.url });
  const title = document.title ?? nameFromUrl(url) ?? 'Imported page';
  const imagesFound = new Set(urlsOf(document.body).images).size;
  const assets = await resolveDocumentUrls(fetcher, document.body, document.baseUrl);
  const frontMatter = document.description ? { description: document.description } : undefined;
  return {
    nodes: [{ kind: 'page', key: fetched.url, file: pageFile(url, title), title, frontMatter, body: document.body, children: [] }],
    assets,
    total: 1 + imagesFound,
  };
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * `docx`: a Word document, through mammoth to HTML and on to markdown; its images become files. A .docx is a zip: its
 * parts are inflated within `limits` before mammoth reads any (a document.xml of hundreds of megabytes in a file of
 * one is a zip bomb).
 */
export async function importDocx(fetcher: ImportFetcher, url: string, limits: ArchiveLimits): Promise<ImportTree> {
  const fetched = await fetchSource(fetcher, url);
  if (!fetched.body.subarray(0, 4).equals(ZIP_MAGIC)) throw new ImportRefused(`url: ${url} is not a Word document (.docx)`);
  try {
    readArchive(fetched.body, limits);
  } catch (error) {
    if (error instanceof ArchiveTooLarge) {
      throw new ImportRefused(
        `url: the document is too large: ${error.reason}; Quire imports Word documents of at most ${megabytes(limits.maxEntryBytes)} per part and ${megabytes(limits.maxBytes)} in all`,
      );
    }
    throw new ImportRefused(`url: ${url} is not a Word document (.docx) Quire can read: ${(error as Error).message}`);
  }
  const assets: ImportAsset[] = [];
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: fetched.body },
      {
        styleMap: ["p[style-name='Title'] => h1:fresh"],
        convertImage: mammoth.images.imgElement(async (image) => {
          const bytes = await image.readAsBuffer();
          const key = `docx-image-${assets.length + 1}`;
          assets.push({ key, name: `image-${assets.length + 1}.${mime.extension(image.contentType) || 'bin'}`, bytes });
          return { src: assetRef(key) };
        }),
      },
    );
    html = result.value;
  } catch (error) {
    throw new ImportRefused(`url: ${url} is not a Word document (.docx) Quire can read: ${(error as Error).message}`);
  }
  const document = convertHtml(html, { url: fetched.url });
  const title = document.title ?? nameFromUrl(url) ?? 'Imported document';
  // Only links may still be relative; the images are the document's own.
  mapUrls(document.body, (raw, kind) => {
    if (kind === 'image' || raw.startsWith('#')) return raw;
    if (/^javascript:/i.test(raw.trim())) return null;
    try {
      return new URL(raw, fetched.url).toString();
    } catch {
      return raw;
    }
  });
  return {
    nodes: [{ kind: 'page', key: fetched.url, file: pageFile(url, title), title, body: document.body, children: [] }],
    assets,
    total: 1 + assets.length,
  };
}
