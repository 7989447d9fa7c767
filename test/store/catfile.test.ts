/**
 * The long-lived `git cat-file --batch-command` process: answers are matched to reads in the order asked, through
 * many reads queued at once (a revision's build asks for thousands), missing objects among them, and reads asked
 * while earlier ones are still streaming back; started directly and through the launcher (src/store/git/launcher.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatFileProcess } from '../../src/store/git/catfile.js';
import { ProcessLauncher } from '../../src/store/git/launcher.js';

describe.each([
  ['started directly', Infinity],
  ['started through the launcher', 0],
])('CatFileProcess, %s', (_name, forkAboveBytes) => {
  const launcher = new ProcessLauncher(forkAboveBytes);
  let gitDir: string;
  let texts: string[];
  let oids: string[];
  let reader: CatFileProcess;

  beforeAll(() => {
    gitDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-catfile-'));
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    // 3,000 blobs of different sizes (some past a pipe's 64 KiB, so an answer arrives in several chunks).
    texts = Array.from({ length: 3000 }, (_, i) => `blob ${i}\n${'é'.repeat(i % 7 === 0 ? 40_000 : i % 300)}`);
    const files = texts.map((text, i) => {
      const file = path.join(gitDir, `input-${i}`);
      fs.writeFileSync(file, text);
      return file;
    });
    oids = [];
    for (let i = 0; i < files.length; i += 500) {
      oids.push(...execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', ...files.slice(i, i + 500)]).toString().trim().split('\n'));
    }
    for (const file of files) fs.rmSync(file);
    reader = new CatFileProcess(gitDir, {}, launcher);
    expect(launcher.launching).toBe(forkAboveBytes === 0);
  });
  afterAll(() => {
    reader.close();
    launcher.close();
    fs.rmSync(gitDir, { recursive: true, force: true });
  });

  it('answers thousands of reads asked at once, in order, with missing objects among them', async () => {
    const missing = '0'.repeat(40);
    const names = oids.flatMap((oid, i) => (i % 500 === 0 ? [missing, oid] : [oid]));
    const [objects, infos] = await Promise.all([reader.readMany(names), reader.infoMany(names)]);
    expect(objects).toHaveLength(names.length);
    let text = 0;
    for (const [i, name] of names.entries()) {
      if (name === missing) {
        expect(objects[i]).toBeUndefined();
        expect(infos[i]).toBeUndefined();
        continue;
      }
      expect(objects[i]?.data.toString('utf8')).toBe(texts[text]);
      expect(infos[i]).toEqual({ oid: name, type: 'blob', size: Buffer.byteLength(texts[text]) });
      text += 1;
    }
    expect(text).toBe(texts.length);
  });

  it('keeps answering single reads asked while a long read streams back', async () => {
    const many = reader.readMany(oids);
    const one = reader.read(oids[1234]);
    const info = reader.info(oids[7]);
    const [objects, single, singleInfo] = await Promise.all([many, one, info]);
    expect(objects.map((o) => o?.oid)).toEqual(oids);
    expect(single?.data.toString('utf8')).toBe(texts[1234]);
    expect(singleInfo?.size).toBe(Buffer.byteLength(texts[7]));
    expect(await reader.read('no-such-object')).toBeUndefined();
  });

  it('answers big binary objects arriving in many chunks, between small ones, byte for byte', async () => {
    // Every byte value, several MB (an image of a repository's assets), and sizes around a pipe's 64 KiB.
    const bigs = [5 * 1024 * 1024 + 3, 65536, 65535, 65537, 1].map((size, n) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + n) % 256)));
    const bigOids = bigs.map((data) => execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: data }).toString().trim());
    const names = bigOids.flatMap((oid, i) => [oids[i], oid, 'no-such-object']);
    const objects = await reader.readMany(names);
    bigs.forEach((data, i) => {
      expect(objects[i * 3]?.data.toString('utf8')).toBe(texts[i]);
      expect(objects[i * 3 + 1]?.size).toBe(data.length);
      expect(objects[i * 3 + 1]?.data.equals(data)).toBe(true);
      expect(objects[i * 3 + 2]).toBeUndefined();
    });
    expect((await reader.read(bigOids[0]))?.data.equals(bigs[0])).toBe(true);
    // Read in parts (never joined), between reads joined, the same bytes.
    const [parts, joined, small] = await Promise.all([reader.readParts(bigOids[0]), reader.read(bigOids[1]), reader.readParts(oids[3])]);
    expect(parts?.size).toBe(bigs[0].length);
    expect(parts?.parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts!.parts).equals(bigs[0])).toBe(true);
    expect(joined?.data.equals(bigs[1])).toBe(true);
    expect(Buffer.concat(small!.parts).toString('utf8')).toBe(texts[3]);
    expect(await reader.readParts('no-such-object')).toBeUndefined();
  });

  it('fails every read still waiting when the process goes away', async () => {
    const doomed = new CatFileProcess(gitDir, {}, launcher);
    const waiting = doomed.readMany(oids.slice(0, 2000));
    doomed.close();
    await expect(waiting).rejects.toThrow();
    await expect(doomed.read(oids[0])).rejects.toThrow(/closed/);
  });
});
