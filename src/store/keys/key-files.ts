/**
 * Key files in the data dir (`<dataDir>/keys/`, mode 0700; each file 0600), made once whatever the number of
 * processes starting at the same moment: a key is written in full to a private temporary file, then hard-linked to
 * its final name; `link` fails when the name exists, so a process that loses the race discards its own key and reads
 * the winner's. (A rename would replace the winner's file after it had been read, leaving two processes with
 * different keys.)
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

/** The folder of the data dir's key files, made private if it is new. */
export async function keysFolder(dataDir: string): Promise<string> {
  const dir = path.join(dataDir, 'keys');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The text of the key file `file`, made with `make` when there is none (see the top of this file). */
export async function readOrCreateKeyFile(file: string, make: () => string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
  const text = make();
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  const handle = await fs.open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.link(temporary, file);
    return text;
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    return fs.readFile(file, 'utf8');
  } finally {
    await fs.rm(temporary, { force: true });
  }
}
