/**
 * A private folder for the little while a program needs a secret as a file (ssh takes a deploy key only from a file):
 * made by mkdtemp (mode 0700, a name nobody can guess), each file in it created new with mode 0600, and the folder
 * removed with what it holds however the work ends. The secret never goes on a command line, which every user of the
 * machine can read with `ps`; only the file's path does.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Runs `work` with a new private folder (see the top of this file), removed once it has settled. */
export async function withPrivateFolder<T>(prefix: string, work: (folder: string) => Promise<T>): Promise<T> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    // mkdtemp makes 0700 folders; said again so that no umask or platform leaves it open.
    await fs.chmod(folder, 0o700);
    return await work(folder);
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Writes `text` to a new file `name` of `folder`, readable by this user only; its path. */
export async function writePrivateFile(folder: string, name: string, text: string): Promise<string> {
  const file = path.join(folder, name);
  // `wx`: never an existing file (or a link planted in its place).
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  return file;
}
