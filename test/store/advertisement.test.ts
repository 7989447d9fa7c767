/**
 * The ref advertisements Quire makes without starting git (src/store/git/advertisement.ts) are byte for byte what
 * git makes, on repositories shaped as real ones are: packed and loose refs, a loose ref newer than its packed
 * line, a symbolic ref, names git sorts bytewise, a lock file of a ref being written, and no ref at all.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitStore } from '../../src/store/git/repositories.js';
import { GitReader } from '../../src/store/git/reader.js';
import { createEmptyRepository } from '../../src/store/git/transfer.js';

const exec = promisify(execFile);

let dataDir: string;
let store: GitStore;
let reader: GitReader;

async function gitOutput(args: string[], env: Record<string, string> = {}): Promise<Buffer> {
  const { stdout } = await exec('git', args, { encoding: 'buffer', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...env } });
  return stdout;
}

/** What git itself advertises, started as the server starts it (with the server's settings for the service). */
function gitAdvertisement(spaceId: string, service: 'receive-pack' | 'upload-pack', env: Record<string, string> = {}): Promise<Buffer> {
  const child = store.spawnService(spaceId, service, { advertiseRefs: true, env });
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stdin.end();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${service} exited with ${code}`))));
  });
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-advertisement-'));
  store = new GitStore(dataDir);
  reader = new GitReader(store);
});

afterAll(async () => {
  reader.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('ref advertisements made without git', () => {
  it('equal git receive-pack and upload-pack v2, byte for byte', async () => {
    const spaceId = 'sp_advertised';
    const main = await store.createRepository(spaceId, [{ path: 'README.md', content: '# Hi\n' }], 'First', { name: 'A', email: 'a@example.com' });
    const gitDir = store.repositoryPath(spaceId);
    const second = (await gitOutput(['--git-dir', gitDir, 'commit-tree', `${main}^{tree}`, '-p', main, '-m', 'Second'], {
      GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com',
    })).toString().trim();
    const update = (ref: string, oid: string) => gitOutput(['--git-dir', gitDir, 'update-ref', ref, oid]);
    for (const ref of ['refs/heads/change-requests/1', 'refs/heads/change-requests/10', 'refs/heads/change-requests/2', 'refs/quire/import']) await update(ref, main);
    await gitOutput(['--git-dir', gitDir, 'pack-refs', '--all']);
    // Loose refs besides packed ones, one of them newer than its packed line; names that sort bytewise.
    await update('refs/heads/change-requests/1', second);
    await update('refs/heads/change-requests/3', second);
    await update('refs/heads/Zeta', second);
    await update('refs/heads/ümlaut', second);
    await gitOutput(['--git-dir', gitDir, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
    // A ref being written by another process at this instant.
    await fs.writeFile(path.join(gitDir, 'refs/heads/change-requests/4.lock'), `${second}\n`);

    const ours = await reader.advertisement(spaceId, 'receive-pack', 0);
    expect(ours?.toString('utf8')).toBe((await gitAdvertisement(spaceId, 'receive-pack')).toString('utf8'));
    const v2 = await reader.advertisement(spaceId, 'upload-pack', 2);
    // Partial clones: upload-pack takes object filters.
    expect(v2?.toString('utf8')).toContain('fetch=shallow wait-for-done filter');
    expect(v2?.toString('utf8')).toBe((await gitAdvertisement(spaceId, 'upload-pack', { GIT_PROTOCOL: 'version=2' })).toString('utf8'));
    // Before protocol v2, upload-pack's advertisement (refs, HEAD, peeled tags) stays git's to make.
    expect(await reader.advertisement(spaceId, 'upload-pack', 0)).toBeUndefined();

    // Fresh on every call: a ref moved by anyone shows at once.
    await update('refs/heads/main', second);
    expect((await reader.advertisement(spaceId, 'receive-pack', 0))?.toString('utf8')).toBe((await gitAdvertisement(spaceId, 'receive-pack')).toString('utf8'));
  });

  it('equal git receive-pack for a repository without any ref', async () => {
    await createEmptyRepository(store, 'sp_empty');
    const ours = await reader.advertisement('sp_empty', 'receive-pack', 0);
    expect(ours?.toString('utf8')).toContain('capabilities^{}');
    expect(ours?.toString('utf8')).toBe((await gitAdvertisement('sp_empty', 'receive-pack')).toString('utf8'));
  });
});
