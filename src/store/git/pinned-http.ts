/**
 * How git talks to a host of somebody else's over HTTP(S) (repository imports, migrations, Git Sync). Git's own
 * transport does not go through the guarded fetcher, so the caller resolves and checks the host first and passes the
 * address (PinnedAddress); git then connects to that address only (`http.curloptResolve`), follows no redirect,
 * speaks only http(s) (`protocol.allow=never` but for them), asks for no credentials, uses no credential helper and
 * ignores proxies (from its configuration and from the environment). Headers (an Authorization) reach git through
 * the environment (`GIT_CONFIG_COUNT`/`KEY`/`VALUE`: `http.extraHeader`), never its command line, which other users
 * of the machine can read with `ps`, nor a config file on disk.
 */

/** Where git may connect: `host:port` resolves to `address` (checked by the caller), and nothing else. */
export interface PinnedAddress {
  host: string;
  port: number;
  address: string;
}

/** The arguments before git's command and the environment for a transfer with `pin.host` only. */
export function pinnedHttpGit(
  pin: PinnedAddress,
  headers: Record<string, string>,
  speed: { lowSpeedLimit: number; lowSpeedTime: number },
): { args: string[]; env: Record<string, string> } {
  const address = pin.address.includes(':') ? `[${pin.address}]` : pin.address;
  const config = [
    `http.curloptResolve=${pin.host}:${pin.port}:${address}`,
    'http.followRedirects=false',
    'protocol.allow=never',
    'protocol.http.allow=always',
    'protocol.https.allow=always',
    'credential.helper=',
    'http.proxy=',
    // A transfer slower than this for that long gives up rather than holding its job.
    `http.lowSpeedLimit=${speed.lowSpeedLimit}`,
    `http.lowSpeedTime=${speed.lowSpeedTime}`,
  ];
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  const env: Record<string, string> = {
    http_proxy: '',
    https_proxy: '',
    HTTP_PROXY: '',
    HTTPS_PROXY: '',
    all_proxy: '',
    ALL_PROXY: '',
    GIT_ASKPASS: 'true',
    SSH_ASKPASS: 'true',
    GIT_CONFIG_COUNT: String(headerLines.length),
    ...Object.fromEntries(headerLines.flatMap((line, i) => [[`GIT_CONFIG_KEY_${i}`, 'http.extraHeader'], [`GIT_CONFIG_VALUE_${i}`, line]])),
  };
  return { args: config.flatMap((c) => ['-c', c]), env };
}
