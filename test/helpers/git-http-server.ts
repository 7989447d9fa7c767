/**
 * A real git smart-HTTP server on 127.0.0.1 (git's own `git http-backend` behind node's http server, as CGI): the
 * remote repositories that repository imports fetch and Git Sync reads and writes in tests. Serves every bare
 * repository under `root`. With `auth`, as a git host does: every request needs HTTP Basic credentials (401 with a
 * challenge otherwise), and pushes are taken (http-backend serves receive-pack to an authenticated user).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Requests seen (method and path). */
  requests: string[];
  /**
   * The paths of the upload-pack requests that asked for objects (a fetch or a clone: protocol v0's only kind of
   * upload-pack request, v2's `command=fetch`), as they were answered; v2's `command=ls-refs` (a ref read, as
   * `ls-remote` makes) is not one.
   */
  fetches: string[];
  /** The Authorization headers of the requests seen (to check what a client sent). */
  authorizations: string[];
  /** Holds every request from now on (seen, not answered) until the function returned is called: a host that hangs. */
  hold(): () => void;
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** The only credentials the host takes. */
  auth?: { username: string; password: string };
  /** The port to listen on (a host coming back where it was); default a free one. */
  port?: number;
}

export async function startGitHttpServer(root: string, options: GitHttpServerOptions = {}): Promise<GitHttpServer> {
  const requests: string[] = [];
  const fetches: string[] = [];
  const authorizations: string[] = [];
  const expected = options.auth && `Basic ${Buffer.from(`${options.auth.username}:${options.auth.password}`).toString('base64')}`;
  let held: Promise<void> | undefined;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method} ${url.pathname}`);
    if (request.headers.authorization !== undefined) authorizations.push(request.headers.authorization);
    if (held) void held.then(() => answer(request, response, url));
    else answer(request, response, url);
  });
  const answer = (request: http.IncomingMessage, response: http.ServerResponse, url: URL) => {
    if (expected !== undefined && request.headers.authorization !== expected) {
      request.resume();
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git host"', 'content-type': 'text/plain' }).end('authentication required\n');
      return;
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: String(request.headers['content-type'] ?? ''),
        GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
        HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
        REMOTE_ADDR: '127.0.0.1',
        ...(options.auth ? { REMOTE_USER: options.auth.username } : {}),
      },
    });
    // The request's first bytes, to tell a v2 ref read (`command=ls-refs` in its first pkt-line) from a fetch.
    let start = Buffer.alloc(0);
    request.on('data', (chunk: Buffer) => {
      if (start.length < 64) start = Buffer.concat([start, chunk]);
    });
    request.pipe(child.stdin);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, split).toString('latin1');
      let status = 200;
      for (const line of head.split('\r\n')) {
        const at = line.indexOf(':');
        const name = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else if (name) response.setHeader(name, value);
      }
      response.statusCode = status;
      response.end(out.subarray(split + 4));
      if (request.method === 'POST' && url.pathname.endsWith('/git-upload-pack') && status === 200 && !start.subarray(4, 19).equals(Buffer.from('command=ls-refs'))) {
        fetches.push(url.pathname);
      }
    });
  };
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fetches,
    authorizations,
    hold() {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // A host going down drops its clients too (git keeps connections alive).
        server.closeAllConnections();
      }),
  };
}
