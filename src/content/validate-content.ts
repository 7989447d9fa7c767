/**
 * validateContent: every problem that would make buildRevision fail or silently lose data, for a push hook to
 * print (`path:line: reason`, see formatProblem) before any ref moves. Runs the same analysis as buildRevision
 * (front matter and its field types, SUMMARY.md, `.gitbook.yaml`, `.gitbook/vars.yaml`, includes, the manifest,
 * cover references), plus what buildRevision skips without failing: symbolic links and submodules under the
 * content root, which would be neither pages nor files.
 */
import type { CommitInfo, ContentProblem, HistoryFacts, TreeSource } from './model.js';
import { sortProblems } from './problems.js';
import { analyzeTree, readConfig } from './revision.js';

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

/** The problems of a tree, sorted by path and line; [] when buildRevision would build it whole. */
export async function validateContent(source: TreeSource): Promise<ContentProblem[]> {
  const { problems } = await analyzeTree(source, NO_COMMIT, placeholderFacts());
  const { config } = await readConfig(source);
  for (const entry of source.entries) {
    if (!entry.path.startsWith(config.root)) continue;
    if (entry.mode === '120000') {
      problems.push({ path: entry.path, message: 'symbolic links are not supported: commit the file itself' });
    } else if (entry.mode === '160000') {
      problems.push({ path: entry.path, message: 'submodules are not supported: their content would not be part of the space' });
    }
  }
  return sortProblems(problems);
}
