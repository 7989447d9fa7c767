/**
 * An HTTP proxy in front of a server that answers some requests itself: `refuse(url)` returns the status to answer
 * with (a 500 for one space, a 404 for every git URL of a source that serves no git), or undefined to forward the
 * request as it is. The upstream is read at each request, so the proxy can be started (and named as the upstream's
 * public URL) before the upstream itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultyProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  refuse: (url: string) => number | undefined;
  close(): Promise<void>;
}

export async function startFaultyProxy(upstream: () => string, refuse: (url: string) => number | undefined): Promise<FaultyProxy> {
  const proxy: FaultyProxy = { url: '', refuse, close: async () => {} };
  const server = http.createServer((req, res) => {
    const status = proxy.refuse(req.url ?? '');
    if (status) {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: status, message: 'refused by the test proxy' } }));
      return;
    }
    const target = new URL(upstream());
    const forwarded = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => new Promise((resolve) => server.close(() => resolve()));
  return proxy;
}

/** Refuses every git URL (`/git/...`) with a 404: a source that serves its content through the API only. */
export const NO_GIT = (url: string): number | undefined => (url.startsWith('/git/') ? 404 : undefined);
