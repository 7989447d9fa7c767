/**
 * A file replaced whole: written beside it under a name no other writer uses (this process's id and random bytes),
 * then renamed over it, so that a reader sees the old text or the new, never half, and two processes replacing the
 * same file at once each rename a temporary file of their own (the last rename wins).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';

function temporaryName(file: string): string {
  return `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
}

export async function replaceFile(file: string, text: string, mode?: number): Promise<void> {
  const temporary = temporaryName(file);
  try {
    await fs.promises.writeFile(temporary, text, mode === undefined ? {} : { mode });
    await fs.promises.rename(temporary, file);
  } catch (error) {
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
}

/** replaceFile, for the moments nothing may wait (a server recording that it listens). */
export function replaceFileSync(file: string, text: string, mode?: number): void {
  const temporary = temporaryName(file);
  try {
    fs.writeFileSync(temporary, text, mode === undefined ? {} : { mode });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
