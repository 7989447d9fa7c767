/**
 * A real git smart-HTTP server on 127.0.0.1 (git's own `git http-backend` behind node's http server, as CGI): the
 * remote repositories that repository imports fetch and Git Sync reads and writes in tests. Serves every bare
 * repository under `root`. With `auth`, as a git host does: every request needs HTTP Basic credentials (401 with a
 * challenge otherwise), and pushes are taken (only from an authenticated user).
 *
 * With `direct`, the smart protocol's three calls (the ref advertisement and the two stateless-RPC posts) are
 * answered as Gitea and GitLab answer them: one `git upload-pack` / `git receive-pack --stateless-rpc` process per
 * request, started directly, where http-backend starts it (two processes per request); the dumb protocol still goes
 * to http-backend. For benchmarks of hundreds of repositories, where the host shares the machine's cores with Quire
 * and would otherwise be most of what is measured.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createGunzip } from 'node:zlib';

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
  /** Answer the smart protocol's calls with the service's own process, not through `git http-backend`. */
  direct?: boolean;
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
    const smart = options.direct ? smartCall(request.method ?? 'GET', url) : undefined;
    if (smart) {
      serveSmart(request, response, url, smart);
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
  /** The service's process in the repository named by the path; 404 when the path names none under `root`. */
  const serveSmart = (request: http.IncomingMessage, response: http.ServerResponse, url: URL, call: SmartCall) => {
    // As git's `enter_repo`: the path as named, else with `.git` added.
    const named = path.resolve(root, `.${decodeURIComponent(url.pathname.slice(0, -call.suffix.length))}`);
    const directory = [named, `${named}.git`].find((candidate) => existsSync(path.join(candidate, 'HEAD')));
    if (directory === undefined || !named.startsWith(path.resolve(root) + path.sep)) {
      request.resume();
      response.writeHead(404, { 'content-type': 'text/plain' }).end('repository not found\n');
      return;
    }
    if (call.service === 'receive-pack' && expected === undefined) {
      request.resume();
      response.writeHead(403, { 'content-type': 'text/plain' }).end('pushes need an authenticated user\n');
      return;
    }
    const protocol = String(request.headers['git-protocol'] ?? '');
    const child = spawn('git', [call.service, '--stateless-rpc', ...(call.advertise ? ['--advertise-refs'] : []), directory], {
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_PROTOCOL: protocol },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    response.writeHead(200, {
      'content-type': `application/x-git-${call.service}-${call.advertise ? 'advertisement' : 'result'}`,
      'cache-control': 'no-cache, max-age=0, must-revalidate',
      expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
      pragma: 'no-cache',
    });
    if (call.advertise) {
      request.resume();
      // http-backend's header for protocol v0/v1 clients; v2 clients read the capability list that follows directly.
      if (!/version=2/.test(protocol)) response.write(`${pktLine(`# service=git-${call.service}\n`)}0000`);
      child.stdin.end();
    } else {
      // Git clients compress large requests; http-backend inflates them, and so does this.
      const body = request.headers['content-encoding'] === 'gzip' ? request.pipe(createGunzip()) : request;
      let inflated = Buffer.alloc(0);
      body.on('data', (chunk: Buffer) => {
        if (inflated.length < 64) inflated = Buffer.concat([inflated, chunk]);
      });
      body.on('error', () => child.kill());
      body.pipe(child.stdin);
      child.on('close', (code) => {
        if (call.service === 'upload-pack' && code === 0 && !inflated.subarray(4, 19).equals(Buffer.from('command=ls-refs'))) fetches.push(url.pathname);
      });
    }
    child.stdin.on('error', () => undefined);
    // git that cannot start answers as a host that fails: the connection dropped, the test server alive.
    child.on('error', () => response.destroy());
    child.stdout.pipe(response);
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

interface SmartCall {
  service: 'upload-pack' | 'receive-pack';
  /** The ref advertisement (`GET info/refs?service=...`) rather than a stateless-RPC post. */
  advertise: boolean;
  /** What follows the repository's path in the URL. */
  suffix: string;
}

function smartCall(method: string, url: URL): SmartCall | undefined {
  if (method === 'GET' && url.pathname.endsWith('/info/refs')) {
    const service = url.searchParams.get('service');
    if (service === 'git-upload-pack' || service === 'git-receive-pack') return { service: service === 'git-upload-pack' ? 'upload-pack' : 'receive-pack', advertise: true, suffix: '/info/refs' };
    return undefined;
  }
  if (method === 'POST' && url.pathname.endsWith('/git-upload-pack')) return { service: 'upload-pack', advertise: false, suffix: '/git-upload-pack' };
  if (method === 'POST' && url.pathname.endsWith('/git-receive-pack')) return { service: 'receive-pack', advertise: false, suffix: '/git-receive-pack' };
  return undefined;
}

function pktLine(text: string): string {
  return (Buffer.byteLength(text) + 4).toString(16).padStart(4, '0') + text;
}
