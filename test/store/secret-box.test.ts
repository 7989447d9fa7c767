/**
 * Secrets sealed for the database (src/store/keys/secret-box.ts): what is sealed opens with the same key and context
 * only; the data dir's key is made once, private, and the same for processes racing to make it.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/store/keys/secret-box.js';

const exec = promisify(execFile);

describe('the secret box', () => {
  it('fingerprints a text the same way each time, per key and context, without telling it', () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const box = SecretBox.withKey(Buffer.alloc(32, 1));
    const fingerprint = box.fingerprint(token, 'git-sync-reader');
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(box.fingerprint(token, 'git-sync-reader')).toBe(fingerprint);
    expect(SecretBox.withKey(Buffer.alloc(32, 1)).fingerprint(token, 'git-sync-reader')).toBe(fingerprint);
    // Another text, another context or another key: another fingerprint; and not the text's plain hash.
    expect(box.fingerprint(`${token}x`, 'git-sync-reader')).not.toBe(fingerprint);
    expect(box.fingerprint(token, 'elsewhere')).not.toBe(fingerprint);
    expect(SecretBox.withKey(Buffer.alloc(32, 2)).fingerprint(token, 'git-sync-reader')).not.toBe(fingerprint);
    expect(fingerprint).not.toBe(crypto.createHash('sha256').update(token).digest('hex'));
  });

  it('opens what it sealed, for the same context only, and never leaves the secret readable', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-secrets-'));
    const box = await SecretBox.ofDataDir(dataDir, 'credentials');
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const sealed = box.seal(token, 'space:one');
    expect(sealed).not.toContain(token);
    expect(sealed).not.toContain(Buffer.from(token).toString('base64'));
    expect(box.open(sealed, 'space:one')).toBe(token);
    // A fresh IV each time: the same secret never seals to the same text.
    expect(box.seal(token, 'space:one')).not.toBe(sealed);
    expect(() => box.open(sealed, 'space:two')).toThrow(/does not open/);
    const [version, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([version, iv, tag, flipped.toString('base64url')].join('.'), 'space:one')).toThrow(/does not open/);
    expect(() => SecretBox.withKey(Buffer.alloc(32, 7)).open(sealed, 'space:one')).toThrow(/does not open/);
    expect(() => box.open('ghp_plain', 'space:one')).toThrow(/not a sealed secret/);

    const file = path.join(dataDir, 'keys', 'credentials.key');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.join(dataDir, 'keys'))).mode & 0o777).toBe(0o700);
    // Opened again (a restart), the same key.
    expect((await SecretBox.ofDataDir(dataDir, 'credentials')).open(sealed, 'space:one')).toBe(token);
    expect(() => SecretBox.withKey(Buffer.alloc(16))).toThrow(/32 bytes/);
  });

  it('gives processes that make the key at the same moment one key', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-secrets-race-'));
    const module = path.resolve('src/store/keys/secret-box.ts');
    const script = `const { SecretBox } = await import(${JSON.stringify(module)}); const box = await SecretBox.ofDataDir(${JSON.stringify(dataDir)}, 'credentials'); process.stdout.write(box.seal('s', 'c'));`;
    const sealed = await Promise.all(Array.from({ length: 4 }, () => exec(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then((r) => r.stdout)));
    const box = await SecretBox.ofDataDir(dataDir, 'credentials');
    for (const text of sealed) expect(box.open(text, 'c')).toBe('s');
  });
});
