/**
 * Blobs of a repository written as files of a folder by git itself: an index of their own (`update-index
 * --index-info`, each blob at the path it is to have), then `checkout-index` into the folder. Their bytes never pass
 * through this process: a static export writes hundreds of MB of images, and piping them out of `cat-file` into
 * this process, then into files, costs several times what git takes to write them.
 *
 * Written as their bytes are: no setting of the machine's git (line endings, attributes files) may convert them,
 * and none of the paths is an attributes file. Each path is relative to the folder, without `.`/`..` segments.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ProcessLauncher } from './launcher.js';
import { runGit } from './run.js';

export interface BlobFile {
  oid: string;
  /** Where it goes, relative to the folder (`/`-separated). */
  path: string;
}

/** What no setting may change: bytes written as they are stored, whatever the user's or the machine's git says. */
const AS_STORED = ['-c', 'core.autocrlf=false', '-c', 'core.attributesFile=/dev/null'];

/**
 * Whether git writes a file at `relative` as it is: no segment git treats apart (empty, `.`, `..`, starting with
 * `.`, as `.git` and `.gitattributes` do), no character it cannot take in a path.
 */
export function writableByGit(relative: string): boolean {
  return relative.split('/').every((segment) => segment !== '' && !segment.startsWith('.') && !/[\0\\\n\r]/.test(segment));
}

/**
 * Writes each blob of `files` (all writableByGit, all blobs of the repository) at its path under `dir`, folders made
 * as needed. Rejects when git cannot: what it wrote of them is then to be written again.
 */
export async function writeBlobFiles(gitDir: string, dir: string, files: readonly BlobFile[], launcher?: ProcessLauncher): Promise<void> {
  if (files.length === 0) return;
  // git takes a work tree only when it exists.
  await fs.mkdir(dir, { recursive: true });
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-blob-files-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(scratch, 'index'), GIT_ATTR_NOSYSTEM: '1' };
    const entries = files.map((file) => `100644 ${file.oid} 0\t${file.path}\0`).join('');
    await runGit([...AS_STORED, 'update-index', '-z', '--index-info'], { gitDir, env, input: entries, launcher });
    await runGit([...AS_STORED, `--work-tree=${dir}`, 'checkout-index', '--all', '--force'], { gitDir, env, launcher });
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
