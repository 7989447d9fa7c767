/**
 * A real HTTP server on 127.0.0.1 serving files set by the test: what outbound fetches (OpenAPI documents, imports)
 * read in tests. A route can answer late, never, or with an error status; every request is counted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Route {
  body?: string;
  status?: number;
  contentType?: string;
  /** More headers (a `location` for redirects). */
  headers?: Record<string, string>;
  /** Answers after this many milliseconds. */
  delayMs?: number;
  /** Never answers (the connection stays open until the server closes). */
  hang?: boolean;
}

export interface FileServer {
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Serves `body` (or the route) at `path`; other paths answer 404. */
  set(path: string, route: string | Route): void;
  /** Requests received per path. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startFileServer(): Promise<FileServer> {
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (route.hang) return;
    const answer = () => res.writeHead(route.status ?? 200, { 'content-type': route.contentType ?? 'application/octet-stream', ...route.headers }).end(route.body ?? '');
    if (route.delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, route.delayMs);
      timers.add(timer);
    } else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set(path, route) {
      routes.set(path, typeof route === 'string' ? { body: route } : route);
    },
    hits(path) {
      return hits.get(path) ?? 0;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/openapi.json`;
}
