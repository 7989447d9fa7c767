/**
 * Git's pre-receive hook for every space repository (installed by src/store/git/repositories.ts, started as
 * src/git-hooks/launch.ts describes). Git runs it after receiving a push's objects into quarantine and before
 * moving any ref, with one `<old-oid> <new-oid> <ref>` line per ref update on stdin. Exit 0 lets the push through;
 * exit 1 refuses all of it, and what it prints on stderr reaches the git client as `remote: ...` lines.
 */
import path from 'node:path';
import { isError } from '../content/problems.js';
import { CHANGE_REQUESTS_VARIABLE, formatPushProblem, MAX_FILE_BYTES_VARIABLE, validatePush, type RefUpdate } from '../content/validate-push.js';
import { PROJECT_DIRECTORY_VARIABLE } from '../content/project-directory.js';

/** Warnings printed by one push, at most. */
const MAX_WARNINGS = 50;

/** The variables git gives hooks to read the incoming objects, and Quire's settings. */
const PASSED = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH', MAX_FILE_BYTES_VARIABLE, CHANGE_REQUESTS_VARIABLE, PROJECT_DIRECTORY_VARIABLE];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseUpdates(text: string): RefUpdate[] {
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const [oldOid, newOid, ref] = line.split(' ');
      return { ref, oldOid, newOid };
    });
}

async function main(): Promise<number> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const gitDir = path.resolve(process.env.GIT_DIR ?? '.');
  const problems = await validatePush({ gitDir, updates: parseUpdates(await readStdin()), env });
  const errors = problems.filter(isError);
  const warnings = problems.filter((problem) => !isError(problem));
  if (errors.length > 0) {
    const lines = errors.map((problem) => `  ${formatPushProblem(problem)}`);
    process.stderr.write(`Quire refused the push (nothing was changed):\n${lines.join('\n')}\n`);
  }
  // Warnings are worth knowing, never a reason to refuse; a long list is cut short (the same ones come back with
  // every push until they are fixed).
  const shown = warnings.slice(0, MAX_WARNINGS).map((problem) => `warning: ${formatPushProblem(problem)}`);
  if (warnings.length > MAX_WARNINGS) shown.push(`warning: ... and ${warnings.length - MAX_WARNINGS} more`);
  if (shown.length > 0) process.stderr.write(`${shown.join('\n')}\n`);
  return errors.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Quire could not check the push, so it was refused: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
