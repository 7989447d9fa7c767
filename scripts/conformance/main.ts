/**
 * `npm run conformance -- [--json] [--keep-data] [--fill-missing] [--parallel N] [--search-timeout-ms MS] REPO...`
 *
 * REPO: a bare repository (any git directory), a folder with a `.git`, or a folder of content without git. Prints one
 * line per repository as it finishes (PASS/FAIL, pages, files, commits, the time of each step, the first reasons of
 * a failure), a progress line on stderr when it is a terminal, and exits 1 when any repository fails (2 on bad usage).
 * `--json` prints the results as one JSON array instead of the lines.
 */
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { runConformance, STEPS, type RepositoryResult, type Step } from './harness.js';

/** How many failure reasons a line shows. */
const REASONS_SHOWN = 3;

const STEP_LABELS: Record<Step, string> = {
  space: 'space',
  push: 'push',
  revision: 'revision',
  firstRead: 'first read',
  clone: 'clone',
  pages: 'reads',
  summary: 'summary',
  links: 'links',
  search: 'search',
  files: 'files',
  site: 'site',
  edit: 'edit',
};

function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

/** The one line of a repository. */
export function formatResult(result: RepositoryResult): string {
  const facts = [
    result.pages === undefined ? undefined : `pages ${result.pages}${result.expectedPages !== undefined && result.expectedPages !== result.pages ? `/${result.expectedPages}` : ''}`,
    result.files === undefined ? undefined : `files ${result.files}`,
    result.commits === undefined ? undefined : `commits ${result.commits} (${result.merges} merges)`,
    result.warnings.length ? `${result.warnings.length} push warnings` : undefined,
    result.notes.some((note) => note.includes('placeholders')) ? 'copy with placeholders' : undefined,
    result.site === undefined
      ? undefined
      : `site ${result.site.pages} pages, ${result.site.images} images, ${result.site.files} files, ${result.site.markedBroken} links shown broken, ${result.site.failed} failing`,
  ].filter(Boolean);
  const times = STEPS.filter((step) => result.timings[step] !== undefined && !['space', 'summary'].includes(step)).map(
    (step) => `${STEP_LABELS[step]} ${duration(result.timings[step]!)}`,
  );
  let line = `${result.status}  ${result.name}  ${facts.join('  ')}  |  ${times.join(', ')}`;
  if (result.failures.length) {
    const more = result.failures.length - REASONS_SHOWN;
    line += `  |  ${result.failures.slice(0, REASONS_SHOWN).join('; ')}${more > 0 ? `; and ${more} more failing steps` : ''}`;
  }
  return line;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** The command line: runs the harness, prints, and answers the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('conformance')
    .description('push repositories into a temporary Quire and check that they read as they are')
    .argument('<repo...>', 'bare repositories, folders with a .git, or folders of content')
    .option('--json', 'print the results as JSON')
    .option('--keep-data', 'keep the temporary data dir (printed at the end)')
    .option('--fill-missing', 'push a copy with placeholder blobs of a repository that lacks objects (a partial mirror)')
    .option('--parallel <n>', 'repositories checked at the same time (their timings then share the machine)', parsePositive, 1)
    .option('--search-timeout-ms <ms>', 'how long to wait for search to find a page', parsePositive, 60_000)
    .exitOverride();
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  const options = program.opts<{ json?: boolean; keepData?: boolean; fillMissing?: boolean; parallel: number; searchTimeoutMs: number }>();
  const terminal = process.stderr.isTTY;
  const clearProgress = () => terminal && process.stderr.write('\r\x1b[K');
  const results = await runConformance(program.args, {
    searchTimeoutMs: options.searchTimeoutMs,
    keepData: options.keepData,
    fillMissing: options.fillMissing,
    parallel: options.parallel,
    onProgress: (text) => {
      if (text.startsWith('data kept')) process.stderr.write(`${terminal ? '\r\x1b[K' : ''}${text}\n`);
      else if (terminal) process.stderr.write(`\r\x1b[K${text.slice(0, (process.stderr.columns || 100) - 1)}`);
    },
    onResult: (result) => {
      clearProgress();
      if (!options.json) process.stdout.write(`${formatResult(result)}\n`);
    },
  });
  clearProgress();
  if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  return results.every((result) => result.status === 'PASS') ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`conformance: ${error.stack ?? error.message}\n`);
      process.exit(2);
    },
  );
}
