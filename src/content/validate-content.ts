/**
 * validateContent: every problem of a tree, for a push hook to print (`path:line: reason`, see formatProblem)
 * before any ref moves: errors refuse the push, warnings are printed (see ContentProblem). Runs the same analysis
 * as buildRevision (front matter and its field types, SUMMARY.md, `.gitbook.yaml`, `.gitbook/vars.yaml`, includes,
 * the manifest, cover references, redirects), plus what buildRevision skips: symbolic links under the content root
 * (an error: a page behind one would silently not show) and submodules (a warning: their content is not part of
 * the space, as on the hosted platform).
 */
import type { CommitInfo, ContentProblem, HistoryFacts } from './model.js';
import type { TreeSource } from './tree-source.js';
import { sortProblems } from './problems.js';
import { analyzeTree, readConfig, type TreeAnalysis } from './revision.js';

const NO_COMMIT: CommitInfo = {
  oid: '',
  parents: [],
  message: '',
  authorName: '',
  authorEmail: '',
  createdAt: '',
  createdByQuire: false,
};

/** Validation needs no real ids or dates: every id is distinct, every date empty. */
function placeholderFacts(): HistoryFacts {
  let next = 0;
  return {
    idOf: () => `validate-${next++}`,
    createdAt: () => '',
    updatedAt: () => '',
  };
}

/**
 * A tree's check: its problems and what finding them again for a tree that differs only in page contents needs
 * (reanalyzePages). Kept by a server from one push to the next.
 */
export type ContentCheck = Pick<TreeAnalysis, 'problems' | 'pageChecks' | 'fileIdByPath'>;

/** The problems of a tree (errors and warnings), sorted by path and line; [] when buildRevision builds it whole. */
export async function validateContent(source: TreeSource): Promise<ContentProblem[]> {
  return sortProblems((await checkContent(source)).problems);
}

/** validateContent, with what a later check of a changed tree builds on (problems unsorted). */
export async function checkContent(source: TreeSource): Promise<ContentCheck> {
  const { problems, pageChecks, fileIdByPath } = await analyzeTree(source, NO_COMMIT, placeholderFacts());
  const { config } = await readConfig(source);
  for (const entry of source.entries) {
    if (!entry.path.startsWith(config.root)) continue;
    if (entry.mode === '120000') {
      problems.push({ path: entry.path, message: 'symbolic links are not supported: commit the file itself' });
    } else if (entry.mode === '160000') {
      problems.push({ path: entry.path, message: 'a submodule: its content is not part of the space', severity: 'warning' });
    }
  }
  return { problems, pageChecks, fileIdByPath };
}
