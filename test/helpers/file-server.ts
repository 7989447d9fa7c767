/**
 * A real HTTP server on 127.0.0.1 serving what the test sets: the websites, documents and OpenAPI files that
 * outbound fetches (imports, OpenAPI specifications) read in tests and benchmarks. A route can answer late, never,
 * or with an error status; every request is recorded.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import mime from 'mime-types';

export interface Route {
  body?: string | Buffer;
  status?: number;
  /** Default: from the path's extension; `text/html` for a path without one. */
  contentType?: string;
  /** More headers (a `location` for redirects). */
  headers?: Record<string, string>;
  /** Answers after this many milliseconds. */
  delayMs?: number;
  /**
   * Answers once this promise settles (and `delayMs` passed): a fetch the test holds under way as long as it needs,
   * then lets finish.
   */
  release?: Promise<unknown>;
  /** Never answers (the connection stays open until the server closes). */
  hang?: boolean;
}

export interface FileServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  base: string;
  /** Paths requested so far, in order (query strings left out). */
  requests: string[];
  /** Serves `route` (or a body) at `path`; other paths answer 404. */
  set(path: string, route: string | Route): void;
  /** Requests received for `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

function contentTypeOf(path: string): string {
  const type = mime.lookup(path);
  if (!type) return 'text/html; charset=utf-8';
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

export async function startFileServer(initial: Record<string, string | Route> = {}): Promise<FileServer> {
  const routes = new Map<string, Route>();
  const requests: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push(path);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
      return;
    }
    if (route.hang) return;
    const answer = () =>
      res.writeHead(route.status ?? 200, { 'content-type': route.contentType ?? contentTypeOf(path), ...route.headers }).end(route.body ?? '');
    // A held request whose client went away meanwhile (or the server closed) is not answered.
    const answerIfOpen = () => (res.destroyed ? undefined : answer());
    const answerWhenReleased = route.release ? () => void route.release!.then(answerIfOpen, answerIfOpen) : answer;
    if (route.delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answerWhenReleased();
      }, route.delayMs);
      timers.add(timer);
    } else answerWhenReleased();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fileServer: FileServer = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    set(path, route) {
      routes.set(path, typeof route === 'string' ? { body: route } : route);
    },
    hits(path) {
      return requests.filter((requested) => requested === path).length;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  for (const [path, route] of Object.entries(initial)) fileServer.set(path, route);
  return fileServer;
}

/**
 * A directory served as a plain static host serves it (nginx, GitHub Pages, S3): the content type from the file's
 * extension (application/octet-stream when unknown), no other header; a folder's `index.html` for the folder, and a
 * folder asked without its trailing slash redirected to it (its query kept); anything else missing answers the
 * folder's `404.html` with status 404 when there is one (GitHub Pages, Netlify, Cloudflare Pages), else a plain 404.
 */
export async function startStaticHost(dir: string): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const asked = new URL(req.url ?? '/', 'http://host');
    const url = decodeURIComponent(asked.pathname);
    const file = path.resolve(dir, `.${url}`);
    if (file !== dir && !file.startsWith(`${dir}${path.sep}`)) return void res.writeHead(404).end();
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat?.isDirectory() && !url.endsWith('/')) return void res.writeHead(301, { location: `${asked.pathname}/${asked.search}` }).end();
    const served = stat?.isDirectory() ? path.join(file, 'index.html') : file;
    if (!fs.existsSync(served) || !fs.statSync(served).isFile()) {
      const notFound = path.join(dir, '404.html');
      if (fs.existsSync(notFound)) return void res.writeHead(404, { 'content-type': 'text/html' }).end(fs.readFileSync(notFound));
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    }
    res.writeHead(200, { 'content-type': mime.lookup(served) || 'application/octet-stream' }).end(fs.readFileSync(served));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port of 127.0.0.1 nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
