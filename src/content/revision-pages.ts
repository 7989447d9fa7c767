/**
 * The document pages of a revision: their files parsed (kept parses reused, the others on the source's parser in
 * parts), each made a DocumentPage at its place, and each one's problems. Apart from analyzeTree because reviseTree
 * (./revise-tree.ts) makes changed pages the same way.
 */
import type { ContentProblem, DocumentPage, HistoryFacts, Page } from './model.js';
import type { TreeSource } from './tree-source.js';
import { parsedPageKey, parseHolds, parsePageFiles, type PageFileOptions, type PageFilesInput, type ParsedPage } from './page.js';
import type { PageFields } from './page-front-matter.js';
import { cutPageMessage, MAX_INDEXED_TEXT } from './bounded-markdown.js';
import { lastSegment } from './revision-structure.js';
import { Turns } from './turns.js';

export function decode(bytes: Buffer): string {
  return bytes.toString('utf8');
}

/**
 * The parse of each page file: kept ones from `source.parsedPages`, the others read and parsed (on the source's
 * parser when it has one), then kept.
 */
export async function parseDocuments(
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

/** Page files parsed per task (see parseDocuments). */
const PAGES_PER_PARSE = 1000;

/** A document page from its file's parse, at its place in the revision (`pages`: its children). */
export function documentPage(
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
export function pageProblems(parsed: ParsedPage, gitPath: string): ContentProblem[] {
  // The page reads whole; search and the link index read its beginning (src/content/bounded-markdown.ts).
  const cut = parsed.page.markdown.length > MAX_INDEXED_TEXT;
  return cut ? [...parsed.problems, { path: gitPath, severity: 'warning', message: cutPageMessage(parsed.page.markdown.length) }] : parsed.problems;
}

export function walkPages(pages: Page[], visit: (page: Page) => void): void {
  for (const page of pages) {
    visit(page);
    walkPages(page.pages, visit);
  }
}
