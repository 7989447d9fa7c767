/**
 * SSH remotes as Git Sync takes them: `ssh://[user@]host[:port]/path` and git's scp-like `user@host:path`, kept in
 * one form, `ssh://user@host[:port]/path` (the user `git` when none is given, as hosts name it; no port when it is
 * 22). An scp-like relative path is written absolute, as the hosts that serve by SSH (GitHub, GitLab, Bitbucket,
 * Gitea) take both alike; a plain server that serves from the user's home folder takes `ssh://user@host/~/path`.
 *
 * Only what ssh cannot mistake for one of its options passes: a user and a host of letters, digits, `.`, `_` and
 * `-` not starting with `-`, a path of plain characters. Nothing of a password: a deploy key is given apart.
 */
import { InvalidArgument } from '../errors.js';

export interface SshRemote {
  /** `ssh://user@host[:port]/path` */
  url: string;
  user: string;
  /** The host name or address (IPv6 without brackets). */
  host: string;
  port: number;
}

const SCP_LIKE = /^([^@/:\s]+)@([^/:\s[\]]+|\[[0-9A-Fa-f:.]+\]):(?!\/\/)(.*)$/;
const USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;
const HOST_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,252}$/;
const PATH = /^\/[A-Za-z0-9._~@+/-]*[A-Za-z0-9._~@+-]$/;
const DEFAULT_USER = 'git';
const SSH_PORT = 22;

/** Whether `raw` is written as an SSH remote (`ssh://` or scp-like), whether or not it is a valid one. */
export function looksLikeSsh(raw: string): boolean {
  return /^ssh:\/\//i.test(raw) || (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) && SCP_LIKE.test(raw));
}

/** The SSH remote `raw` (see looksLikeSsh) in the connection's form; InvalidArgument naming `url` otherwise. */
export function sshRemote(raw: string): SshRemote {
  let user: string | undefined;
  let host: string;
  let port = SSH_PORT;
  let path: string;
  const scp = /^ssh:\/\//i.test(raw) ? null : SCP_LIKE.exec(raw);
  if (scp) {
    [, user, host, path] = scp;
    host = host.replace(/^\[|\]$/g, '');
    path = path.startsWith('/') ? path : `/${path}`;
  } else {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidArgument('url: is not a valid ssh URL (ssh://git@host/owner/name.git or git@host:owner/name.git)');
    }
    if (url.password) throw new InvalidArgument('url: must not carry a password; SSH takes a deploy key, given as auth.sshPrivateKey');
    if (url.search || url.hash) throw new InvalidArgument('url: must not have a query or a fragment');
    user = url.username || undefined;
    host = url.hostname.replace(/^\[|\]$/g, '');
    if (url.port) port = Number(url.port);
    path = url.pathname;
  }
  user ??= DEFAULT_USER;
  if (!USER.test(user)) throw new InvalidArgument('url: the SSH user must be letters, digits, ".", "_" or "-", not starting with "-"');
  const ipv6 = host.includes(':');
  if (!(ipv6 ? /^[0-9A-Fa-f:.]+$/.test(host) : HOST_NAME.test(host))) throw new InvalidArgument('url: the host must be a host name or an address');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidArgument('url: the port must be a number from 1 to 65535');
  if (!PATH.test(path)) throw new InvalidArgument('url: the repository path must be letters, digits and ./_~@+- (such as /owner/name.git)');
  const hostInUrl = ipv6 ? `[${host}]` : host.toLowerCase();
  return { url: `ssh://${user}@${hostInUrl}${port === SSH_PORT ? '' : `:${port}`}${path}`, user, host: ipv6 ? host : host.toLowerCase(), port };
}
