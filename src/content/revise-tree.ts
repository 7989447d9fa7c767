/**
 * A tree's analysis from an earlier one's when only the contents of page files changed (most pushes): reviseTree,
 * equal to analyzeTree's (./revision.ts) in time proportional to the changed pages, and reanalyzePages, the problems
 * of such a tree for a push's check. Apart from analyzeTree: a second way to the same result, with its own rules for
 * when it may be taken.
 */
import type { CommitInfo, DocumentPage, HistoryFacts, Page, TreeEntry } from './model.js';
import type { TreeSource } from './tree-source.js';
import type { ParsedPage } from './page.js';
import type { PageCheck, TreeAnalysis } from './revision.js';
import { fileIdClaims, pageIdClaims } from './revision-ids.js';
import { documentPage, pageProblems, parseDocuments, walkPages } from './revision-pages.js';
import { summaryPageKey } from './revision-structure.js';

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
