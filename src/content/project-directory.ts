/**
 * A space's project directory (monorepos): the folder of its repository that holds the space's content, where its
 * `.gitbook.yaml` (if any) lives and against which that file's `root` is resolved. The hosted platform's Git Sync
 * has the same setting ("Project directory"; `repoProjectDirectory` of its importGitRepository operation). What
 * lies outside it is kept in the repository but is not the space's content.
 *
 * Form: '' for the repository's root, otherwise a relative path with one trailing '/' (`packages/api/`), so that
 * `directory + path` is a full path and `path.startsWith(directory)` tests membership.
 */

/**
 * The stored form of a project directory written as people write it (`./docs`, `/docs/`, `docs`, `.`, ''), or
 * undefined when it is not a folder inside the tree (a `..`, `.git` or empty segment, a backslash, a NUL).
 */
export function normalizeProjectDirectory(raw: string): string | undefined {
  const trimmed = raw.trim().replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  if (/[\\\0]/.test(trimmed)) return undefined;
  const segments = trimmed.split('/').filter((segment) => segment !== '.');
  if (segments.some((segment) => segment === '' || segment === '..' || segment.toLowerCase() === '.git')) return undefined;
  return segments.length === 0 ? '' : `${segments.join('/')}/`;
}

/**
 * The entries of a tree that lie under `directory`, with their paths made relative to it: the tree as the space
 * sees it. The root ('') gives the entries unchanged. Anything keyed by full path (history facts, push problems)
 * gets `directory + path` back.
 */
export function inProjectDirectory<T extends { path: string }>(entries: readonly T[], directory: string): T[] {
  if (directory === '') return entries as T[];
  const inside: T[] = [];
  for (const entry of entries) {
    if (entry.path.startsWith(directory)) inside.push({ ...entry, path: entry.path.slice(directory.length) });
  }
  return inside;
}
