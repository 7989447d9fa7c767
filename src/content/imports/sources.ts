/**
 * The sources an import reads (`source` and `url` of a content import) and the conversion of each into an ImportTree,
 * fetching through the fetcher it is given.
 */
import { ImportRefused } from './import-refused.js';
import type { ImportTree } from '../import-plan.js';
import type { ArchiveLimits } from './archive.js';
import type { ImportFetcher } from './fetching.js';
import { importWebsite, type ImportProgress } from './website.js';
import { importDocx, importHtml, importMarkdown } from './documents.js';
import { importZip } from './zip.js';

/** Every source value of the API (ImportContentSource). */
export const IMPORT_SOURCES = ['website', 'docx', 'markdown', 'html', 'zip', 'confluence', 'github-wiki', 'notion', 'google-docs'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** Why Quire does not import from the sources it knows but cannot read. */
const UNSUPPORTED: Partial<Record<ImportSource, string>> = {
  confluence: 'Confluence is read through its API with an account, which Quire does not have; export the space as HTML (a zip) and import that with source "zip"',
  'github-wiki': 'a GitHub wiki is a git repository; clone it and import it as a zip of markdown with source "zip"',
  notion: 'Notion is read through its API with an integration token, which Quire does not have; export the pages as markdown (a zip) and import that with source "zip"',
  'google-docs': 'Google Docs needs a Google account to read; download the document as .docx and import it with source "docx"',
};

export function requireImportableSource(source: string): void {
  const reason = UNSUPPORTED[source as ImportSource];
  if (reason) throw new ImportRefused(`source: Quire cannot import from "${source}": ${reason}`);
  if (!(IMPORT_SOURCES as readonly string[]).includes(source)) throw new ImportRefused(`source: must be one of: ${IMPORT_SOURCES.join(', ')}`);
}

/** `url` is an absolute http(s) URL without credentials (a refusal naming `url` otherwise). */
export function requireHttpUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ImportRefused('url: must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ImportRefused(`url: must be an http or https URL, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new ImportRefused('url: must not carry a user name or password');
}

/** Converts `source` at `url` into pages and files; archives (zip, docx) are read within `limits`. */
export async function convertSource(
  fetcher: ImportFetcher,
  source: string,
  url: string,
  limits: ArchiveLimits,
  progress?: (counts: ImportProgress) => void,
): Promise<ImportTree> {
  requireImportableSource(source);
  requireHttpUrl(url);
  switch (source as ImportSource) {
    case 'website':
      return importWebsite(fetcher, url, undefined, progress);
    case 'markdown':
      return importMarkdown(fetcher, url);
    case 'html':
      return importHtml(fetcher, url);
    case 'zip':
      return importZip(fetcher, url, limits);
    case 'docx':
      return importDocx(fetcher, url, limits);
    default:
      throw new ImportRefused(`source: Quire cannot import from "${source}"`);
  }
}
