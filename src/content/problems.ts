import type { ContentProblem } from './model.js';

/** `path:line: message` (or `path: message` without a line), as a refused push prints it. */
export function formatProblem(problem: ContentProblem): string {
  return problem.line === undefined
    ? `${problem.path}: ${problem.message}`
    : `${problem.path}:${problem.line}: ${problem.message}`;
}

/** True for a problem that refuses a push (see ContentProblem). */
export function isError(problem: { severity?: 'error' | 'warning' }): boolean {
  return problem.severity !== 'warning';
}

/** The same problem as a warning. */
export function asWarning<T extends ContentProblem>(problem: T): T {
  return { ...problem, severity: 'warning' };
}

/** Problems by path, then line. */
export function sortProblems(problems: ContentProblem[]): ContentProblem[] {
  return [...problems].sort(
    (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)),
  );
}

/** Thrown by buildRevision (and the parsers' `...OrThrow` forms) when the tree does not follow the format. */
export class ContentError extends Error {
  readonly code = 'content_invalid';
  readonly problems: ContentProblem[];

  constructor(problems: ContentProblem[]) {
    const sorted = sortProblems(problems);
    const head = sorted.slice(0, 5).map(formatProblem).join('\n');
    const more = sorted.length > 5 ? `\n... and ${sorted.length - 5} more` : '';
    super(`The content does not follow the format:\n${head}${more}`);
    this.name = 'ContentError';
    this.problems = sorted;
  }
}
