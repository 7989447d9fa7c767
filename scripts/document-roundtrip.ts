/**
 * The markdown -> JSONDocument -> markdown round trip over real repositories, run by hand:
 * `node --import tsx scripts/document-roundtrip.ts REPO...` (a repository's path; its HEAD is read). For every
 * markdown file: markdown -> document (src/content/document.ts) -> markdown (src/content/document-markdown.ts) ->
 * document, and the two documents must be equal; the first must also be valid against the reference schema. Links stay as written (URLs both ways), so only the conversions
 * are tested, not a revision's lookups. Prints per repository the files read, the stable ones, the time, and the
 * first differences; exits 1 when any file is not stable.
 */
import { execFile } from 'node:child_process';
import { isDeepStrictEqual, promisify } from 'node:util';
import { markdownToDocument } from '../src/content/document.js';
import { documentToMarkdown } from '../src/content/document-markdown.js';
import { referenceSchemaErrors } from '../test/helpers/contract.js';

const exec = promisify(execFile);
const SHOWN = 5;

async function gitText(repo: string, args: string[]): Promise<string> {
  return (await exec('git', ['-C', repo, ...args], { maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' })).stdout;
}

/** The first path where two values differ, for the report. */
function firstDifference(a: unknown, b: unknown, at = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}/${key}`);
      if (found) return found;
    }
  }
  return `${at}: ${JSON.stringify(a)?.slice(0, 160)} != ${JSON.stringify(b)?.slice(0, 160)}`;
}

let failed = false;
for (const repo of process.argv.slice(2)) {
  const started = performance.now();
  const listing = await gitText(repo, ['ls-tree', '-r', '-z', 'HEAD']);
  const blobs = listing
    .split('\0')
    .map((line) => ({ oid: line.split(/\s+/)[2], path: line.slice(line.indexOf('\t') + 1) }))
    .filter((entry) => entry.oid && /\.md$/i.test(entry.path));
  const unstable: string[] = [];
  for (const blob of blobs) {
    const markdown = await gitText(repo, ['cat-file', 'blob', blob.oid]);
    const first = markdownToDocument(markdown);
    const invalid = referenceSchemaErrors('JSONDocument', first);
    if (invalid) {
      unstable.push(`${blob.path}: not a valid JSONDocument: ${invalid.split('\n')[0]}`);
      continue;
    }
    const second = markdownToDocument(documentToMarkdown(first));
    const difference = firstDifference(first, second);
    if (difference) unstable.push(`${blob.path}: ${difference}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${unstable.length === 0 ? 'PASS' : 'FAIL'}  ${repo}  ${blobs.length} markdown files, ${blobs.length - unstable.length} stable  (${seconds} s)`);
  for (const line of unstable.slice(0, SHOWN)) console.log(`  ${line}`);
  if (unstable.length > SHOWN) console.log(`  ... and ${unstable.length - SHOWN} more`);
  if (unstable.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);
