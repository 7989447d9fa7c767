/**
 * Hostile archives built at test time, small on disk whatever they inflate to: a compressed stream of one chunk
 * repeated (hundreds of megabytes cost the deflating of one chunk), a zip written around such streams, and headers
 * that lie about sizes.
 */
import zlib from 'node:zlib';

/** A raw deflate stream and what it inflates to. */
export interface Deflated {
  data: Buffer;
  /** Bytes once inflated. */
  size: number;
  crc: number;
}

/**
 * `chunk` repeated `times` times, deflated: the chunk is compressed once with a full flush (a byte-aligned block that
 * refers to nothing before it), that block repeated, then a final empty block.
 */
export function deflatedRepeat(chunk: Buffer, times: number): Deflated {
  const block = zlib.deflateRawSync(chunk, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const end = zlib.deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < times; i++) crc = zlib.crc32(chunk, crc);
  return { data: Buffer.concat([...Array.from({ length: times }, () => block), end]), size: chunk.length * times, crc };
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
