/**
 * In-memory trees for the content tests: blobs hashed as git hashes them (`sha1("blob <len>\0" + bytes)`), history
 * facts with predictable ids and dates, and a real PNG encoder for image files.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { CommitInfo, HistoryFacts, TreeEntry } from '../../src/content/model.js';
import type { TreeSource } from '../../src/content/tree-source.js';

export type MemoryFile = string | Buffer | { content: string | Buffer; mode: string };

/** The blob oid git gives these bytes. */
export function gitBlobOid(bytes: Buffer): string {
  return crypto.createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export interface MemoryTree extends TreeSource {
  /** How many blobs were read, and which. */
  reads: string[];
}

/** A TreeSource over `{path: content}`; a value may carry its git mode (`120000` for a symlink). */
export function memoryTree(files: Record<string, MemoryFile>): MemoryTree {
  const blobs = new Map<string, Buffer>();
  const entries: TreeEntry[] = [];
  for (const [path, file] of Object.entries(files)) {
    const raw = typeof file === 'string' || Buffer.isBuffer(file) ? file : file.content;
    const mode = typeof file === 'string' || Buffer.isBuffer(file) ? '100644' : file.mode;
    const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8');
    const oid = gitBlobOid(bytes);
    blobs.set(oid, bytes);
    entries.push({ path, mode, oid, size: bytes.length });
  }
  const reads: string[] = [];
  return {
    entries,
    reads,
    async readBlob(oid: string): Promise<Buffer> {
      const bytes = blobs.get(oid);
      if (!bytes) throw new Error(`no blob ${oid}`);
      reads.push(oid);
      return bytes;
    },
  };
}

/** Facts whose ids are `new-<kind>-<slugged path>` and dates fixed per path. */
export function memoryFacts(ids: Record<string, string> = {}): HistoryFacts & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    idOf(kind, path) {
      asked.push(`${kind}:${path}`);
      return ids[`${kind}:${path}`] ?? `new-${kind}-${path.replace(/[^a-zA-Z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
    },
    createdAt: (path) => `2024-01-01T00:00:00.000Z#${path}`,
    updatedAt: (path) => `2024-02-01T00:00:00.000Z#${path}`,
  };
}

export const TEST_COMMIT: CommitInfo = {
  oid: 'c0ffee0000000000000000000000000000000000',
  parents: [],
  message: 'Test commit',
  authorName: 'Ada',
  authorEmail: 'ada@example.com',
  createdAt: '2024-03-01T12:00:00.000Z',
  createdByQuire: false,
};

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real, valid PNG of `width` x `height` gray pixels. */
export function tinyPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter type None
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
