import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateSigningKey } from '../../src/store/keys/signing-key.js';

const exec = promisify(execFile);

const publicPem = (pair: Awaited<ReturnType<typeof loadOrCreateSigningKey>>) => pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('signing keys in the data dir', () => {
  const dirs: string[] = [];
  async function tempDir(): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-keys-'));
    dirs.push(dir);
    return dir;
  }
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
  });

  it('creates a P-256 pair on first use (private 0600, public beside it) and reads the same pair afterwards', async () => {
    const dir = await tempDir();
    const first = await loadOrCreateSigningKey(dir, 'test-key');
    expect(first.privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect((await fs.stat(path.join(dir, 'keys', 'test-key.pem'))).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(path.join(dir, 'keys', 'test-key.pub.pem'), 'utf8')).toBe(publicPem(first));
    const again = await loadOrCreateSigningKey(dir, 'test-key');
    expect(publicPem(again)).toBe(publicPem(first));
    expect((await fs.readdir(path.join(dir, 'keys'))).sort()).toEqual(['test-key.pem', 'test-key.pub.pem']);
  });

  it('agrees on one pair when many loads race on a new data dir, in one process and across processes', async () => {
    const dir = await tempDir();
    const pairs = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSigningKey(dir, 'raced')));
    expect(new Set(pairs.map(publicPem)).size).toBe(1);

    const fresh = await tempDir();
    const script = `import { loadOrCreateSigningKey } from ${JSON.stringify(path.resolve('src/store/keys/signing-key.ts'))};
const pair = await loadOrCreateSigningKey(${JSON.stringify(fresh)}, 'shared');
process.stdout.write(pair.publicKey.export({ type: 'spki', format: 'pem' }));`;
    const scriptFile = path.join(await tempDir(), 'load-key.mts');
    await fs.writeFile(scriptFile, script);
    const tsx = path.resolve('node_modules/.bin/tsx');
    const outputs = await Promise.all(Array.from({ length: 3 }, () => exec(tsx, [scriptFile])));
    const keys = new Set(outputs.map((o) => o.stdout));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toBe(publicPem(await loadOrCreateSigningKey(fresh, 'shared')));
    expect((await fs.readdir(path.join(fresh, 'keys'))).sort()).toEqual(['shared.pem', 'shared.pub.pem']);
  }, 30_000);

  it('refuses a key file that is not a P-256 private key, saying which file', async () => {
    const dir = await tempDir();
    await fs.mkdir(path.join(dir, 'keys'));
    await fs.writeFile(path.join(dir, 'keys', 'broken.pem'), 'not a key');
    await expect(loadOrCreateSigningKey(dir, 'broken')).rejects.toThrow(/broken\.pem: not a PEM private key/);
  });
});
