/**
 * Hostile archives built at test time, small on disk whatever they inflate to: a compressed stream of one chunk
 * repeated (hundreds of megabytes cost the deflating of one chunk), a zip written around such streams, and headers
 * that lie about sizes.
 */
import zlib from 'node:zlib';
import { DOCX_CONTENT_TYPES, DOCX_PACKAGE_RELATIONSHIPS, W } from './web.js';

/** A raw deflate stream and what it inflates to. */
export interface Deflated {
  data: Buffer;
  /** Bytes once inflated. */
  size: number;
  crc: number;
}

/**
 * `head`, then `chunk` repeated `times` times, then `tail`, deflated: each part is compressed once with a full flush
 * (a byte-aligned block that refers to nothing before it), the chunk's block repeated, and the tail's block ends the
 * stream.
 */
export function deflatedRepeat({ head = '', chunk, times, tail = '' }: { head?: string; chunk: string; times: number; tail?: string }): Deflated {
  const flushed = (text: string) => zlib.deflateRawSync(Buffer.from(text), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const repeated = flushed(chunk);
  const chunkBytes = Buffer.from(chunk);
  let crc = zlib.crc32(head);
  for (let i = 0; i < times; i++) crc = zlib.crc32(chunkBytes, crc);
  crc = zlib.crc32(tail, crc);
  return {
    data: Buffer.concat([flushed(head), ...Array.from({ length: times }, () => repeated), zlib.deflateRawSync(Buffer.from(tail))]),
    size: Buffer.byteLength(head) + chunkBytes.length * times + Buffer.byteLength(tail),
    crc,
  };
}

function deflated(content: string | Buffer): Deflated {
  const bytes = Buffer.from(content);
  return { data: zlib.deflateRawSync(bytes), size: bytes.length, crc: zlib.crc32(bytes) };
}

/** A zip archive (deflated entries) of `entries`: contents, or streams made by deflatedRepeat. */
export function zipOfStreams(entries: Record<string, string | Buffer | Deflated>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const entry = typeof content === 'string' || Buffer.isBuffer(content) ? deflated(content) : content;
    const nameBytes = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(entry.crc >>> 0, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.size, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, entry.data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** `zip` with every entry's uncompressed size, in its local header and in the central directory, claimed to be `size`. */
export function declaringSizes(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = 0; at + 4 <= out.length; at++) {
    const signature = out.readUInt32LE(at);
    if (signature === 0x04034b50 && at + 30 <= out.length) out.writeUInt32LE(size, at + 22);
    else if (signature === 0x02014b50 && at + 46 <= out.length) out.writeUInt32LE(size, at + 24);
  }
  return out;
}

/** A .docx whose document.xml holds `paragraphs` paragraphs of `text` (built deflated: any number costs one). */
export function docxOfParagraphs(text: string, paragraphs: number): Buffer {
  // Paragraphs go by the ten thousand into the repeated chunk, so that each flushed block compresses well.
  const perChunk = Math.min(paragraphs, 10_000);
  const times = Math.ceil(paragraphs / perChunk);
  const document = deflatedRepeat({
    head: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="${W}"><w:body>`,
    chunk: `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`.repeat(perChunk),
    times,
    tail: '</w:body></w:document>',
  });
  return zipOfStreams({ '[Content_Types].xml': DOCX_CONTENT_TYPES, '_rels/.rels': DOCX_PACKAGE_RELATIONSHIPS, 'word/document.xml': document });
}

/** The Word zip bomb of the field: a document.xml of ~340 MB of paragraphs in a .docx of about a megabyte and a half. */
export function wordZipBomb(): Buffer {
  return docxOfParagraphs('All work and no play makes Jack a dull boy.', 5_800_000);
}

/**
 * The markdown zip bomb of the field: 120 MB of markdown (inside the 128 MB an archive may hold) in 8 pages of one
 * paragraph each, in a zip of about half a megabyte.
 */
export function markdownZipBomb(): Buffer {
  const line = 'Some *text* with [a link](other.md) and `code`, **again** and again. ';
  const page = deflatedRepeat({ head: '# A long page\n\n', chunk: line.repeat(1000), times: Math.round((15 * 1024 * 1024) / (line.length * 1000)) });
  return zipOfStreams(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`docs/page-${i + 1}.md`, page])));
}
