/**
 * A page file (docs/git-format.md "A page file") read: front matter keys -> DocumentPage fields
 * (./page-front-matter.ts), the title (./page-title.ts), the rest -> markdown, the cover resolved to a file; many
 * files at once, as plain data for a worker thread, and kept parses reused. Written back by ./page-writing.ts.
 */
import { parseFrontMatter, frontMatterKeyLine, type FrontMatter } from './frontmatter.js';
import type { ContentProblem, PageCover } from './model.js';
import { decodePath, folderOf, isUnder, isUrl, resolvePath } from './paths.js';
import { readFrontMatterFields, type PageFields } from './page-front-matter.js';
import { fileTitle, pageTitle, splitTitles, type TitleSplit } from './page-title.js';

export interface ParsePageOptions {
  /** Path of the file from the repository root. */
  gitPath: string;
  /** Content root ('' or a prefix ending with '/'): cover paths starting with `/` resolve against it. */
  root?: string;
  /** The SUMMARY.md link text of the page: its title, whatever its body's heading says. */
  summaryTitle?: string;
  /**
   * File id by path from the repository root; when given, `cover`/`coverDark` should name an existing file (a
   * warning otherwise: the hosted platform shows the page without its cover).
   */
  fileIdOf?: (gitPath: string) => string | undefined;
}

/**
 * The page as far as it could be read (a value of the wrong type is left out, front matter that does not parse
 * leaves the whole file as the body), and its problems; `ok` when there are none.
 */
export interface ParsedPage {
  ok: boolean;
  page: PageFields;
  problems: ContentProblem[];
  /**
   * The file ids the parse looked up (cover images), by path (null: no such file), when it looked any up: the
   * parse holds for another revision only where they are the same (see ParsedPageStore).
   */
  fileLookups?: Record<string, string | null>;
}

function resolveCover(
  written: string,
  key: string,
  frontMatter: FrontMatter,
  options: ParsePageOptions,
  problems: ContentProblem[],
): string | undefined {
  if (!options.fileIdOf) return undefined;
  const root = options.root ?? '';
  const candidates = [written, decodePath(written)];
  for (const candidate of candidates) {
    const gitPath = candidate.startsWith('/')
      ? resolvePath(root, candidate.replace(/^\/+/, ''))
      : resolvePath(folderOf(options.gitPath), candidate);
    if (gitPath === undefined || !isUnder(gitPath, root)) continue;
    const id = options.fileIdOf(gitPath);
    if (id !== undefined) return id;
  }
  problems.push({
    path: options.gitPath,
    line: frontMatterKeyLine(frontMatter, key),
    severity: 'warning',
    message: isUrl(written)
      ? `front matter \`${key}\` must be the path of an image in the repository, not a URL (${written})`
      : `front matter \`${key}\` names ${written}, which is not a file of the content (paths are relative to the page)`,
  });
  return undefined;
}

/** Parses a page file into its fields. */
export function parsePage(text: string, options: ParsePageOptions): ParsedPage {
  return parsePages([{ text, options }])[0];
}

/**
 * parsePage for many files, with their titles found in one pass (splitTitles). A file whose front matter does not
 * parse is read as a page without front matter (its whole text is the body), with that problem.
 */
export function parsePages(files: { text: string; options: ParsePageOptions }[]): ParsedPage[] {
  const problems: ContentProblem[][] = files.map(() => []);
  const frontMatters = files.map((file, i): FrontMatter => {
    const split = parseFrontMatter(file.text, file.options.gitPath);
    if (split.ok) return split.value;
    problems[i].push(split.problem);
    const body = file.text.charCodeAt(0) === 0xfeff ? file.text.slice(1) : file.text;
    return { data: {}, present: false, body, bodyLine: 1, yamlText: '' };
  });
  const titles = splitTitles(frontMatters.map((frontMatter) => frontMatter.body));
  return files.map((file, i) => pageFromParts(frontMatters[i], titles[i], file.options, problems[i]));
}

/** Page files as plain data (for a worker thread): `fileIds` is the file id by path that `fileIdOf` would give. */
export interface PageFilesInput {
  files: { text: string; options: PageFileOptions }[];
  fileIds: Record<string, string>;
}

export type PageFileOptions = Omit<ParsePageOptions, 'fileIdOf'>;

/** parsePages of plain data (see PageFilesInput), with the file ids each page looked up. */
export function parsePageFiles(input: PageFilesInput): ParsedPage[] {
  const lookups = input.files.map((): Record<string, string | null> => ({}));
  const parsed = parsePages(
    input.files.map((file, i) => ({
      text: file.text,
      options: {
        ...file.options,
        fileIdOf: (gitPath: string) => {
          const id = Object.hasOwn(input.fileIds, gitPath) ? input.fileIds[gitPath] : undefined;
          lookups[i][gitPath] = id ?? null;
          return id;
        },
      },
    })),
  );
  return parsed.map((page, i) => (Object.keys(lookups[i]).length > 0 ? { ...page, fileLookups: lookups[i] } : page));
}

/**
 * Parsed pages kept across builds (by a server: the container's cache): a page whose blob and options are the same
 * is the same parse, unless a cover it names became, or stopped being, a file (`fileLookups`).
 */
export interface ParsedPageStore {
  get(key: string): ParsedPage | undefined;
  set(key: string, page: ParsedPage): void;
}

/** The key of a page's parse in a ParsedPageStore: everything the parse reads but the file ids. */
export function parsedPageKey(blobOid: string, options: PageFileOptions): string {
  return `${blobOid}\n${options.gitPath}\n${options.root ?? ''}\n${options.summaryTitle === undefined ? '\u0000' : `=${options.summaryTitle}`}`;
}

/** True when a kept parse holds with these file ids. */
export function parseHolds(page: ParsedPage, fileIds: ReadonlyMap<string, string>): boolean {
  if (!page.fileLookups) return true;
  return Object.entries(page.fileLookups).every(([gitPath, id]) => (fileIds.get(gitPath) ?? null) === id);
}

function pageFromParts(frontMatter: FrontMatter, titleSplit: TitleSplit, options: ParsePageOptions, problems: ContentProblem[]): ParsedPage {
  const fields = readFrontMatterFields(frontMatter, options.gitPath, problems);
  const page: PageFields = {
    ...fields,
    ...pageTitle(frontMatter.body, titleSplit, options.summaryTitle, fileTitle(options.gitPath)),
  };
  if (fields.coverPath !== undefined || fields.coverDarkPath !== undefined) {
    const cover: PageCover = { yPos: fields.coverY };
    if (fields.coverPath !== undefined) {
      const file = resolveCover(fields.coverPath, 'cover', frontMatter, options, problems);
      if (file !== undefined) cover.file = file;
    }
    if (fields.coverDarkPath !== undefined) {
      const file = resolveCover(fields.coverDarkPath, 'coverDark', frontMatter, options, problems);
      if (file !== undefined) cover.fileDark = file;
    }
    page.cover = cover;
  }
  return { ok: problems.length === 0, page, problems };
}
