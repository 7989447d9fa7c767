/**
 * Zip archives read within limits: zip imports, Word documents (a .docx is a zip) and repository uploads. An archive
 * of a megabyte can inflate to gigabytes (a zip bomb), so sizes are counted as each entry inflates, a few kilobytes
 * of input at a time, and reading stops at the first limit passed: the sizes an archive's headers declare are
 * checked too, but never trusted (a header may claim a kilobyte for an entry of gigabytes).
 */
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';

export interface ArchiveLimits {
  /** Entries at most (those read; entries left out are not counted). */
  maxEntries: number;
  /** Uncompressed bytes of one entry at most. */
  maxEntryBytes: number;
  /** Uncompressed bytes of all entries together at most. */
  maxBytes: number;
}

export const ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({ maxEntries: 10_000, maxEntryBytes: 32 * 1024 * 1024, maxBytes: 128 * 1024 * 1024 });

/** An archive past one of its limits: `reason` says which, in words ("word/document.xml inflates past 32 MB"). */
export class ArchiveTooLarge extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ArchiveTooLarge';
  }
}

/** An archive that does not read as zip. */
export class ArchiveUnreadable extends Error {}

export interface ArchiveEntry {
  name: string;
  bytes: Uint8Array;
}

/** Compressed bytes given to the inflater at once: what one step may inflate is bounded by ~1,000 times this. */
const STEP = 8 * 1024;

/** Whether the archive ends with its end of central directory record (within the last 64 KB, its comment's room). */
function hasEndRecord(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 22; i >= 0 && i >= bytes.length - 22 - 65535; i--) {
    if (bytes[i] === 0x50 && bytes[i + 1] === 0x4b && bytes[i + 2] === 0x05 && bytes[i + 3] === 0x06) return true;
  }
  return false;
}

/** `bytes` in megabytes, for messages ("32 MB", "0.5 MB"). */
export function megabytes(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(2))} MB`;
}

/**
 * The entries of a zip archive, in the archive's order, each inflated and counted as it inflates (ArchiveTooLarge at
 * the first limit passed, ArchiveUnreadable when it is not a zip). `accept` leaves entries out before anything of
 * them is inflated (folders, junk, symbolic links); it is asked about every entry, in order.
 */
export function readArchive(bytes: Uint8Array, limits: ArchiveLimits, accept: (name: string) => boolean = () => true): ArchiveEntry[] {
  if (!hasEndRecord(bytes)) throw new ArchiveUnreadable('it has no end of central directory record (a truncated or damaged archive)');
  const entries: ArchiveEntry[] = [];
  let started = 0;
  let total = 0;
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
  };
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (file: UnzipFile) => {
    if (failure || !accept(file.name)) return;
    if (entries.length >= limits.maxEntries) return fail(new ArchiveTooLarge(`the archive holds more than ${limits.maxEntries} files`));
    // A declared size past a limit refuses at once; a smaller one is checked against what actually comes out.
    if ((file.originalSize ?? 0) > limits.maxEntryBytes) return fail(new ArchiveTooLarge(`${file.name} inflates past ${megabytes(limits.maxEntryBytes)}`));
    const chunks: Uint8Array[] = [];
    let size = 0;
    started++;
    file.ondata = (error, chunk, final) => {
      if (failure) return;
      if (error) return fail(new ArchiveUnreadable(`${file.name}: ${error.message}`));
      size += chunk.length;
      total += chunk.length;
      if (size > limits.maxEntryBytes) {
        file.terminate();
        return fail(new ArchiveTooLarge(`${file.name} inflates past ${megabytes(limits.maxEntryBytes)}`));
      }
      if (total > limits.maxBytes) {
        file.terminate();
        return fail(new ArchiveTooLarge(`the archive inflates past ${megabytes(limits.maxBytes)} in all`));
      }
      chunks.push(chunk);
      if (final) entries.push({ name: file.name, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
    };
    try {
      file.start();
    } catch (error) {
      fail(new ArchiveUnreadable(`${file.name}: ${(error as Error).message}`));
    }
  };
  try {
    for (let offset = 0; offset < bytes.length && !failure; offset += STEP) {
      unzip.push(bytes.subarray(offset, offset + STEP), offset + STEP >= bytes.length);
    }
  } catch (error) {
    fail(new ArchiveUnreadable((error as Error).message));
  }
  if (failure) throw failure;
  if (entries.length < started) throw new ArchiveUnreadable('the archive ends in the middle of an entry');
  return entries;
}
