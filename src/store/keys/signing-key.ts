/**
 * Signing key pairs kept in the data dir: `<dataDir>/keys/<name>.pem` (the private key, PKCS#8, mode 0600) and
 * `<dataDir>/keys/<name>.pub.pem` (the public key, SPKI, for whoever verifies what this instance signs).
 *
 * Why files and not the `instance_secrets` table: a private key belongs with file permissions of its own rather than in
 * every database dump and replica, and an operator can hand the public file to verifiers or rotate the pair by removing
 * both files. Several processes on one data dir agree on one pair (see `loadOrCreateSigningKey`); processes on several
 * machines need the data dir on the shared volume that also holds the repositories, or this file copied to each.
 */
import crypto, { type KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { keysFolder, readOrCreateKeyFile } from './key-files.js';
import { replaceFile } from '../replace-file.js';

export interface SigningKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Where the private key lives (for messages). */
  file: string;
}

/**
 * Reads the P-256 (ES256) key pair `name`, creating it on first start; several processes starting at once agree on
 * one pair (./key-files.ts).
 */
export async function loadOrCreateSigningKey(dataDir: string, name: string): Promise<SigningKeyPair> {
  const dir = await keysFolder(dataDir);
  const file = path.join(dir, `${name}.pem`);
  const pem = await readOrCreateKeyFile(file, () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  let privateKey: KeyObject;
  try {
    privateKey = crypto.createPrivateKey(pem);
  } catch (error) {
    throw new Error(`${file}: not a PEM private key (${(error as Error).message}); remove it to have a new key pair made`, { cause: error });
  }
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error(`${file}: must be a P-256 (ES256) private key`);
  }
  const publicKey = crypto.createPublicKey(privateKey);
  await writePublicKey(path.join(dir, `${name}.pub.pem`), publicKey);
  return { privateKey, publicKey, file };
}

/** The public half, rewritten when missing or different (its content follows from the private key). */
async function writePublicKey(file: string, publicKey: KeyObject): Promise<void> {
  const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const current = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (current === pem) return;
  await replaceFile(file, pem, 0o644);
}
