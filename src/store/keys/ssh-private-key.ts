/**
 * Deploy keys (Git Sync over SSH) checked when they are given rather than at the first run: OpenSSH's own reader
 * (`ssh-keygen -y`, which prints the public half of a private key) says whether ssh can use the text as a key without
 * a passphrase, whatever its format (OpenSSH's, or PEM: PKCS#1 RSA, SEC1 EC). The key reaches ssh-keygen as a private
 * file (./private-files.ts), never on its command line; the passphrase it is offered is the empty one, so it never
 * asks for one.
 */
import { execFile } from 'node:child_process';
import { withPrivateFolder, writePrivateFile } from './private-files.js';

/** Why a text is not a deploy key ssh can use: `passphrase` (it has one), `unreadable` (not a private key ssh reads). */
export class SshKeyRefused extends Error {
  constructor(
    readonly reason: 'passphrase' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

const CHECK_TIMEOUT_MS = 10_000;

/**
 * The key as ssh reads it: LF line ends and one at the end (ssh refuses a key without its last newline, which JSON
 * clients and web forms often drop), no blank lines around it.
 */
export function normalizedPrivateKey(text: string): string {
  return `${text.replace(/\r\n?/g, '\n').trim()}\n`;
}

/** The public half (`<type> <base64>`) of the private key `text` (as normalizedPrivateKey gives it); throws SshKeyRefused. */
export async function sshPublicKeyOf(text: string): Promise<string> {
  if (!/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\n/.test(text)) {
    throw new SshKeyRefused('unreadable', 'not a private key: an OpenSSH ("-----BEGIN OPENSSH PRIVATE KEY-----") or PEM private key is expected, not a public key or a fingerprint');
  }
  return withPrivateFolder('quire-key-check-', async (folder) => {
    const file = await writePrivateFile(folder, 'key', text);
    const { stdout, stderr, failed } = await new Promise<{ stdout: string; stderr: string; failed: boolean }>((resolve, reject) => {
      execFile(
        'ssh-keygen',
        ['-y', '-P', '', '-f', file],
        { timeout: CHECK_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
        (error, out, err) => {
          if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') reject(new Error('ssh-keygen (OpenSSH\'s client) is not installed: Git Sync over SSH needs it'));
          else resolve({ stdout: out, stderr: err, failed: error !== null });
        },
      ).stdin?.end();
    });
    if (/passphrase/i.test(stderr)) throw new SshKeyRefused('passphrase', 'the key is protected by a passphrase: give a deploy key without one (ssh-keygen -p -N "" -f <file> removes it)');
    const publicKey = /^(\S+) (\S+)/.exec(stdout.trim());
    if (failed || !publicKey) throw new SshKeyRefused('unreadable', `ssh cannot read it as a private key (${stderr.trim().replace(/^Load key "[^"]*": /, '') || 'no public key came out'})`);
    return `${publicKey[1]} ${publicKey[2]}`;
  });
}
