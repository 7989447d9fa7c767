/**
 * How git talks to a host of somebody else's over SSH with a deploy key (Git Sync), as ./pinned-http.ts does over
 * HTTP(S): the caller resolves and checks the host first and passes the address (PinnedAddress); ssh then connects to
 * that address only (`HostName`), whatever the name resolves to by then, and git speaks ssh only
 * (`protocol.allow=never` but for it).
 *
 * ssh is given nothing from outside: no configuration file (`-F /dev/null`), no agent (`SSH_AUTH_SOCK` unset,
 * `IdentityAgent=none`), no key but the deploy key (`IdentitiesOnly`), no prompt (`BatchMode`), no known hosts but the
 * connection's own. The deploy key and the known host key are files of a private folder made for one git command
 * (../keys/private-files.ts) and removed after it; the command line holds their paths, never the key.
 *
 * The host's key is trusted on first use: a connection with no host key yet accepts the one the host shows
 * (`StrictHostKeyChecking=accept-new` on an empty known-hosts file) and the transport keeps it (`hostKey`) for the
 * caller to store; later connections accept that key only (`StrictHostKeyChecking=yes`). Known-hosts lines are by the
 * host's name (`HostKeyAlias`), not the address it resolved to, so a host that moves to another address keeps its key.
 */
import fs from 'node:fs/promises';
import type { PinnedAddress } from './pinned-http.js';
import { withPrivateFolder, writePrivateFile } from '../keys/private-files.js';

/** A host reached by SSH with a deploy key. */
export interface SshTransport {
  kind: 'ssh';
  /** The host as the URL names it, its SSH port, and the checked address to connect to. */
  pin: PinnedAddress;
  /** The deploy key: an OpenSSH or PEM private key without passphrase, ending with a newline. */
  privateKey: string;
  /**
   * The host key trusted (`<type> <base64>`, as known-hosts lines hold it): the one stored for the connection, or
   * undefined before its first use; the first connection then sets it to the key the host showed (see the top).
   */
  hostKey: string | undefined;
}

/** Where the deploy key and the known-hosts file of one git command are. */
export interface SshFiles {
  identityFile: string;
  knownHostsFile: string;
}

const CONNECT_TIMEOUT_SECONDS = 30;
/** A host that answers no keepalive for this many intervals is given up (a stalled transfer does not hold its job). */
const SERVER_ALIVE = { interval: 15, count: 4 };
const HOST_KEY = /^[a-z0-9@.-]+ [A-Za-z0-9+/]+={0,3}$/;

/** The name known-hosts lines give the host: ssh's own form, `host` on port 22, `[host]:port` on another. */
export function knownHostName(pin: PinnedAddress): string {
  const host = pin.host.toLowerCase();
  return pin.port === 22 ? host : `[${host}]:${pin.port}`;
}

/** `word` as one word for the shell that runs GIT_SSH_COMMAND. */
const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The ssh command line (its words) for `pin` with the files of `files`: `trustOnFirstUse` when the known-hosts file is
 * empty and the host's key is to be recorded, otherwise only the key in it is accepted.
 */
export function sshCommand(pin: PinnedAddress, files: SshFiles, trustOnFirstUse: boolean): string[] {
  const options = [
    `HostName=${pin.address}`,
    `HostKeyAlias=${knownHostName(pin)}`,
    'BatchMode=yes',
    'IdentitiesOnly=yes',
    'IdentityAgent=none',
    `IdentityFile=${files.identityFile}`,
    'PreferredAuthentications=publickey',
    `UserKnownHostsFile=${files.knownHostsFile}`,
    'GlobalKnownHostsFile=/dev/null',
    `StrictHostKeyChecking=${trustOnFirstUse ? 'accept-new' : 'yes'}`,
    // The known-hosts file holds the one key stored for the host: ssh neither adds the host's other keys nor its address.
    'UpdateHostKeys=no',
    'CheckHostIP=no',
    `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`,
    `ServerAliveInterval=${SERVER_ALIVE.interval}`,
    `ServerAliveCountMax=${SERVER_ALIVE.count}`,
    'ForwardAgent=no',
    'ForwardX11=no',
    'ClearAllForwardings=yes',
    'ControlMaster=no',
    'ControlPath=none',
    'PermitLocalCommand=no',
  ];
  return ['ssh', '-F', '/dev/null', ...options.flatMap((option) => ['-o', option])];
}

/** The arguments before git's command and the environment for a transfer over SSH with the files of `files`. */
export function pinnedSshGit(pin: PinnedAddress, files: SshFiles, trustOnFirstUse: boolean): { args: string[]; env: Record<string, string | undefined> } {
  const config = ['protocol.allow=never', 'protocol.ssh.allow=always'];
  const env: Record<string, string | undefined> = {
    // git runs it with the shell, adding `-p <port>`, `<user>@<host>` and the remote command.
    GIT_SSH_COMMAND: sshCommand(pin, files, trustOnFirstUse).map(quoted).join(' '),
    GIT_SSH_VARIANT: 'ssh',
    GIT_SSH: undefined,
    SSH_AUTH_SOCK: undefined,
    SSH_ASKPASS: undefined,
    SSH_ASKPASS_REQUIRE: 'never',
    DISPLAY: undefined,
    GIT_CONFIG_COUNT: '0',
  };
  return { args: config.flatMap((c) => ['-c', c]), env };
}

/** The host key a known-hosts file holds for `name` (`<type> <base64>`), if any. */
function recordedHostKey(text: string, name: string): string | undefined {
  for (const line of text.split('\n')) {
    const [names, type, key] = line.trim().split(/\s+/);
    if (names === undefined || names.startsWith('#') || type === undefined || key === undefined) continue;
    if (names.split(',').includes(name) && HOST_KEY.test(`${type} ${key}`)) return `${type} ${key}`;
  }
  return undefined;
}

/**
 * Runs `work` (one git command) with the deploy key and known-hosts files of `transport` in a private folder, removed
 * afterwards; on first use, the host key ssh recorded becomes `transport.hostKey` (whether or not the command
 * succeeded: the host showed it).
 */
export async function withPinnedSsh<T>(transport: SshTransport, work: (git: { args: string[]; env: Record<string, string | undefined> }) => Promise<T>): Promise<T> {
  const known = transport.hostKey;
  if (known !== undefined && !HOST_KEY.test(known)) throw new Error('the stored SSH host key is not a known-hosts key ("<type> <base64>")');
  const name = knownHostName(transport.pin);
  return withPrivateFolder('quire-ssh-', async (folder) => {
    const files: SshFiles = {
      identityFile: await writePrivateFile(folder, 'deploy-key', transport.privateKey),
      knownHostsFile: await writePrivateFile(folder, 'known_hosts', known === undefined ? '' : `${name} ${known}\n`),
    };
    try {
      return await work(pinnedSshGit(transport.pin, files, known === undefined));
    } finally {
      if (known === undefined) transport.hostKey = recordedHostKey(await fs.readFile(files.knownHostsFile, 'utf8'), name);
    }
  });
}
