/**
 * Commits from the host go through the checks of a push (as imports do): a space never shows, on main or in a change
 * request, what a push would refuse. What is refused is kept under a ref of the sync's, never dropped.
 */
import type { Context } from '../context.js';
import { inProjectDirectory } from '../../content/project-directory.js';
import { validateContent } from '../../content/validate-content.js';
import { formatProblem } from '../../content/problems.js';

/** Why the space cannot take `commit` (its content in the project directory does not read), or undefined. */
export async function contentRefusal(ctx: Context, spaceId: string, commit: string, directory: string, keptUnder: string): Promise<string | undefined> {
  const read = await ctx.reader.readCommit(spaceId, commit);
  if (!read) return `commit ${commit} cannot be read`;
  const entries = await ctx.reader.listBlobs(spaceId, read.tree);
  const problems = await validateContent({ entries: inProjectDirectory(entries, directory), readBlob: (oid) => ctx.reader.readBlob(spaceId, oid) });
  if (problems.length === 0) return undefined;
  const shown = problems.slice(0, 3).map((problem) => formatProblem({ ...problem, path: directory + problem.path })).join('; ');
  return `the host's commit ${commit.slice(0, 12)} does not read as a push to the space must (${shown}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}): it is kept under ${keptUnder}; fix it on the host and push again`;
}
