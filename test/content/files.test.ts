import { describe, expect, it } from 'vitest';
import { contentTypeOf, hasDimensions, imageDimensions, imageDimensionsOfParts } from '../../src/content/files.js';
import { gitBlobOid, tinyPng } from '../helpers/content.js';

function gif(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(13);
  bytes.write('GIF89a', 0, 'ascii');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes;
}

/** SOI, a JFIF APP0 segment and a baseline SOF0 frame header. */
function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof0 = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

/** RIFF/WEBP with an extended (VP8X) header. */
function webp(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(30);
  bytes.write('RIFF', 0, 'ascii');
  bytes.writeUInt32LE(22, 4);
  bytes.write('WEBPVP8X', 8, 'ascii');
  bytes.writeUInt32LE(10, 16);
  bytes.writeUIntLE(width - 1, 24, 3);
  bytes.writeUIntLE(height - 1, 27, 3);
  return bytes;
}

describe('contentTypeOf', () => {
  it('maps extensions to content types', () => {
    expect(contentTypeOf('hero.png')).toBe('image/png');
    expect(contentTypeOf('photo.JPG')).toBe('image/jpeg');
    expect(contentTypeOf('diagram.svg')).toBe('image/svg+xml');
    expect(contentTypeOf('anim.webp')).toBe('image/webp');
    expect(contentTypeOf('guide.pdf')).toBe('application/pdf');
    expect(contentTypeOf('notes.md')).toBe('text/markdown');
    expect(contentTypeOf('openapi.yaml')).toBe('text/yaml');
    expect(contentTypeOf('LICENSE')).toBe('application/octet-stream');
    expect(contentTypeOf('archive.unknownext')).toBe('application/octet-stream');
  });

  it('measures only image types', () => {
    expect(hasDimensions('image/png')).toBe(true);
    expect(hasDimensions('image/svg+xml')).toBe(true);
    expect(hasDimensions('application/pdf')).toBe(false);
    expect(hasDimensions('text/markdown')).toBe(false);
  });
});

describe('imageDimensions', () => {
  it('reads a real PNG', () => {
    const png = tinyPng(7, 3);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(imageDimensions(png)).toEqual({ width: 7, height: 3 });
  });

  it('reads JPEG, GIF, WebP and SVG headers', () => {
    expect(imageDimensions(jpeg(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageDimensions(gif(16, 9))).toEqual({ width: 16, height: 9 });
    expect(imageDimensions(webp(1200, 630))).toEqual({ width: 1200, height: 630 });
    expect(imageDimensions(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"></svg>'))).toEqual({ width: 120, height: 40 });
    expect(imageDimensions(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 150"></svg>'))).toEqual({ width: 300, height: 150 });
  });

  it('gives nothing for bytes that are not an image', () => {
    expect(imageDimensions(Buffer.from('not an image'))).toBeUndefined();
    expect(imageDimensions(Buffer.alloc(0))).toBeUndefined();
    expect(imageDimensions(tinyPng(2, 2).subarray(0, 12))).toBeUndefined();
  });
});

describe('imageDimensionsOfParts', () => {
  /** `bytes` padded to `size` and cut into parts of 64 KiB, as git's pipe gives them. */
  const parts = (bytes: Buffer, size: number) => {
    const whole = Buffer.concat([bytes, Buffer.alloc(Math.max(0, size - bytes.length), 7)]);
    return Array.from({ length: Math.ceil(whole.length / 65536) }, (_, i) => whole.subarray(i * 65536, (i + 1) * 65536));
  };

  it('answers as imageDimensions of the whole bytes, big or small, whatever the type', () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">');
    for (const image of [tinyPng(7, 3), gif(16, 9), webp(1200, 630), jpeg(640, 480), svg]) {
      for (const size of [0, 100_000, 3_000_000]) {
        const cut = parts(image, size);
        expect(imageDimensionsOfParts(cut)).toEqual(imageDimensions(Buffer.concat(cut)));
      }
    }
    expect(imageDimensionsOfParts(parts(tinyPng(7, 3), 3_000_000))).toEqual({ width: 7, height: 3 });
    expect(imageDimensionsOfParts([])).toBeUndefined();
  });

  it('reads a big JPEG whole: its frame may come after blocks longer than any beginning looked at', () => {
    // An APP1 block of 64 KiB less a byte, then another, then the frame: past the first 64 KiB.
    const block = Buffer.concat([Buffer.from([0xff, 0xe1, 0xff, 0xff]), Buffer.alloc(0xffff - 2, 0)]);
    const image = jpeg(640, 480);
    const big = Buffer.concat([image.subarray(0, 2), block, block, image.subarray(2)]);
    expect(imageDimensions(big)).toEqual({ width: 640, height: 480 });
    expect(imageDimensionsOfParts(parts(big, 0))).toEqual({ width: 640, height: 480 });
  });
});

describe('test helpers', () => {
  it('hash blobs as git does', () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitBlobOid(Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(gitBlobOid(Buffer.alloc(0))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });
});
