/**
 * Files of a revision (docs/git-format.md): content type from the file name's extension (mime-types), image
 * dimensions from the image header (image-size). Only images are read.
 */
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import mime from 'mime-types';

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The content type of a file name (`hero.png` -> `image/png`); `application/octet-stream` when unknown. */
export function contentTypeOf(name: string): string {
  return mime.lookup(name) || DEFAULT_CONTENT_TYPE;
}

/**
 * Content types a browser runs script in when it opens or loads a file of that type from a site: HTML, every XML
 * (SVG, XHTML, MathML, feeds: XML may carry XHTML script), JavaScript, and the plug-in formats. A site must never
 * serve user files of these types as themselves on its origin.
 */
export function runsScript(contentType: string): boolean {
  return /^text\/html$|xml|^text\/mathml$|javascript|ecmascript|jsx|^application\/node$|^application\/x-shockwave-flash$/i.test(contentType);
}

const MEASURED = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/svg+xml',
  'image/webp',
  'image/bmp',
  'image/x-ms-bmp',
  'image/avif',
  'image/heic',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'image/tiff',
]);

/** True for content types whose dimensions imageDimensions can read (so their blobs are worth reading). */
export function hasDimensions(contentType: string): boolean {
  return MEASURED.has(contentType);
}

/** Width and height from an image's bytes; undefined when they cannot be read (corrupt or unsized image). */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const size = imageSize(bytes);
    if (!size.width || !size.height) return undefined;
    // EXIF orientations 5-8 rotate by 90 degrees: the image is shown with width and height swapped.
    if (size.orientation !== undefined && size.orientation >= 5) return { width: size.height, height: size.width };
    return { width: size.width, height: size.height };
  } catch {
    return undefined;
  }
}

/**
 * Image types found by their first bytes whose size is in a header at a fixed place in their first 40 bytes: a
 * beginning of the file gives the same answer as the whole file. (Not JPEG, whose frame comes after blocks of any
 * length, found by a scan that a cut file can lead astray; nor SVG, TIFF, ICO, HEIF, whose size may be anywhere in
 * the file, or the largest of several images.)
 */
const SIZED_AT_START = new Set(['png', 'gif', 'bmp', 'webp']);

/** How much of a big image is looked at alone first. */
const HEAD_BYTES = 64 * 1024;

/**
 * imageDimensions of an image read in parts (as it came from git), without joining a big one: its first parts are
 * looked at alone when its type's size is at its start (SIZED_AT_START); the whole image otherwise, or when they do
 * not give it. The answer is imageDimensions' of the whole bytes.
 */
export function imageDimensionsOfParts(parts: Buffer[]): { width: number; height: number } | undefined {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  if (total > HEAD_BYTES) {
    const head: Buffer[] = [];
    let length = 0;
    for (const part of parts) {
      if (length >= HEAD_BYTES) break;
      head.push(part);
      length += part.length;
    }
    const bytes = Buffer.concat(head, length);
    let type: string | undefined;
    try {
      type = imageSize(bytes).type;
    } catch {
      type = undefined;
    }
    const found = type !== undefined && SIZED_AT_START.has(type) ? imageDimensions(bytes) : undefined;
    if (found) return found;
  }
  return imageDimensions(parts.length === 1 ? parts[0] : Buffer.concat(parts, total));
}

/** The oid git gives a blob of these bytes (`sha1("blob <length>\0" + bytes)`): equal bytes, equal oid. */
export function blobOid(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
