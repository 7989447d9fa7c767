/**
 * Path and slug helpers of the git format. Paths inside a tree are POSIX, relative, without a leading `./`.
 * Folder prefixes (a content root) are '' or end with '/'.
 */

/**
 * Normalizes a relative POSIX path: removes `.` segments, empty segments and resolves `..`.
 * Returns undefined when `..` climbs above the start (the path escapes).
 */
export function normalizePath(path: string): string | undefined {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return out.join('/');
}

/** The folder of a path, as a prefix ('' or ending with '/'). */
export function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

/** The last segment of a path. */
export function baseName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}

/** Resolves `relative` against the folder prefix `folder` (both POSIX); undefined when it escapes the tree. */
export function resolvePath(folder: string, relative: string): string | undefined {
  if (relative.startsWith('/')) return normalizePath(relative);
  return normalizePath(folder + relative);
}

/** True when `path` lies inside the folder prefix `root` ('' is the whole tree). */
export function isUnder(path: string, root: string): boolean {
  return root === '' || path.startsWith(root);
}

/** `path` written relative to the folder prefix `from` (`../` as needed). */
export function relativePath(from: string, path: string): string {
  if (path.startsWith(from) && (from === '' || from.endsWith('/'))) return path.slice(from.length);
  const fromParts = from.split('/').filter((s) => s !== '');
  const toParts = path.split('/');
  let common = 0;
  while (common < fromParts.length && common < toParts.length - 1 && fromParts[common] === toParts[common]) common++;
  return [...fromParts.slice(common).map(() => '..'), ...toParts.slice(common)].join('/');
}

/** Percent-decodes a path written in markdown (`%20`); a malformed escape leaves the text as written. */
export function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** A URL with a scheme (`https:`, `mailto:`) or protocol-relative (`//host`). */
export function isUrl(target: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(target) || target.startsWith('//');
}

export function isMarkdownPath(path: string): boolean {
  return /\.md$/i.test(path);
}

/**
 * `text` without the run of `chars` at its end. A loop: a regular expression such as `/[-.]+$/` tries every run of
 * those characters inside the text from each of its characters, quadratic in a long run that does not end the text.
 */
export function trimTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

/** A path without its leading and trailing slashes. */
export function trimSlashes(path: string): string {
  return trimTrailing(path.replace(/^\/+/, ''), '/');
}

/**
 * A slug: lowercase, letters and digits of any script, `.`, `_`, `~` and `-`; every other run of characters
 * becomes one `-`. Accents on Latin letters are dropped (`Café` -> `cafe`); other scripts are kept whole.
 * Never empty (`fallback`).
 */
export function slugify(text: string, fallback = 'page'): string {
  const slug = text
    .normalize('NFKD')
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}._~-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+/, '');
  const trimmed = trimTrailing(slug, '-.');
  return trimmed === '' ? fallback : trimmed;
}
