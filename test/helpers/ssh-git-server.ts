/**
 * A real git host over SSH on 127.0.0.1: Debian's OpenSSH server (`/usr/sbin/sshd`, package openssh-server) on a
 * free port, with a configuration of its own in a temp folder (no PAM, no password, public keys only: the deploy
 * keys given), serving the bare repositories of the machine by absolute path, as `root` (the tests run as root):
 * `ssh://root@127.0.0.1:PORT/<absolute path>.git`. Its host key is made at start; `restart({ newHostKey: true })`
 * starts it again on the same port with another one (a host whose key changed). `close()` stops it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait.js';

const exec = promisify(execFile);
export const SSHD = '/usr/sbin/sshd';

export interface SshGitServer {
  port: number;
  /** The public host key it shows (`<type> <base64>`). */
  hostKey: string;
  /** The ssh URL of the bare repository at `repository` (an absolute path). */
  url(repository: string): string;
  /** What sshd wrote (connections, refusals), for a failing test's message. */
  log(): string;
  restart(options?: { newHostKey?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** A new key pair of `type` in `folder`: the private key's text and the public key (`<type> <base64>`). */
export async function sshKeyPair(folder: string, name: string, options: { type?: 'ed25519' | 'rsa'; passphrase?: string; pem?: boolean } = {}): Promise<{ file: string; privateKey: string; publicKey: string }> {
  const file = path.join(folder, name);
  const type = options.type ?? 'ed25519';
  await exec('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), ...(options.pem ? ['-m', 'PEM'] : []), '-N', options.passphrase ?? '', '-C', name, '-f', file]);
  const publicKey = (await fs.readFile(`${file}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ');
  return { file, privateKey: await fs.readFile(file, 'utf8'), publicKey };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts sshd taking the public keys `authorizedKeys` (`<type> <base64>` lines). */
export async function startSshGitServer(authorizedKeys: string[]): Promise<SshGitServer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sshd-'));
  // sshd running as root wants its privilege separation folder, which the package's service would have made.
  await fs.mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const hostKeyFile = path.join(dir, 'host-key');
  const authorized = path.join(dir, 'authorized_keys');
  await fs.writeFile(authorized, authorizedKeys.map((key) => `${key}\n`).join(''), { mode: 0o600 });
  const config = path.join(dir, 'sshd_config');
  await fs.writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKeyFile}`,
      `AuthorizedKeysFile ${authorized}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'AcceptEnv GIT_PROTOCOL',
      'AllowAgentForwarding no',
      'X11Forwarding no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  let output = '';
  let child: ChildProcess | undefined;
  let hostKey = '';

  async function newHostKey(): Promise<void> {
    await fs.rm(hostKeyFile, { force: true });
    await fs.rm(`${hostKeyFile}.pub`, { force: true });
    hostKey = (await sshKeyPair(dir, 'host-key')).publicKey;
  }

  async function start(): Promise<void> {
    const started = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    let exited = false;
    started.once('exit', () => (exited = true));
    child = started;
    await waitFor(async () => {
      if (exited) throw new Error(`sshd exited at start: ${output}`);
      return (await accepts(port)) || undefined;
    }, { what: `sshd to listen on 127.0.0.1:${port}`, timeoutMs: 10_000, intervalMs: 50 });
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
    // The port is free again once sshd has exited; the connections it forked end with their clients.
  }

  await newHostKey();
  await start();
  return {
    port,
    get hostKey() {
      return hostKey;
    },
    url: (repository) => `ssh://root@127.0.0.1:${port}${repository}`,
    log: () => output,
    async restart(options = {}) {
      await stop();
      if (options.newHostKey) await newHostKey();
      await start();
    },
    async close() {
      await stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
