import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchFailure, GuardedFetcher } from '../../src/store/net/guarded-fetch.js';

// A real server on 127.0.0.1; no test sends a packet anywhere else (refusals happen before any connection).
describe('guarded outbound fetches', () => {
  let server: http.Server;
  let base: string;
  const open: GuardedFetcher[] = [];
  const fetcher = (options: ConstructorParameters<typeof GuardedFetcher>[0]) => {
    const f = new GuardedFetcher(options);
    open.push(f);
    return f;
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/ok') res.end('hello');
      else if (req.url === '/to-private') res.writeHead(302, { location: 'http://10.0.0.1/secret' }).end();
      else if (req.url === '/to-metadata') res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      else if (req.url === '/to-ok') res.writeHead(302, { location: '/ok' }).end();
      else if (req.url === '/echo') res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, cookie: req.headers.cookie ?? null, accept: req.headers.accept ?? null }));
      else if (req.url === '/to-echo') res.writeHead(302, { location: '/echo' }).end();
      else if (req.url?.startsWith('/to-other-origin/')) res.writeHead(307, { location: decodeURIComponent(req.url.slice('/to-other-origin/'.length)) }).end();
      else if (req.url === '/post' && req.method === 'POST') {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => res.writeHead(201, { 'content-type': 'application/json', 'x-seen': 'yes' }).end(JSON.stringify({ body, type: req.headers['content-type'] })));
      } else if (req.url === '/big') res.end(Buffer.alloc(64 * 1024, 'x'));
      else if (req.url === '/slow') setTimeout(() => res.end('late'), 5000).unref();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(open.map((f) => f.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const failure = async (promise: Promise<unknown>): Promise<FetchFailure> => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof FetchFailure) return error;
      throw error;
    }
    throw new Error('the fetch was expected to fail');
  };

  it('classifies addresses: public ones pass, private, loopback, link-local and the like do not', () => {
    const f = fetcher({ allow: [] });
    for (const address of ['93.184.216.34', '8.8.8.8', '2001:4860:4860::8888']) expect(f.addressAllowed(address), address).toBe(true);
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect(f.addressAllowed(address), address).toBe(false);
    }
    const allowed = fetcher({ allow: ['10.0.0.0/8', '127.0.0.1', 'docs.internal'] });
    expect(allowed.addressAllowed('10.9.9.9')).toBe(true);
    expect(allowed.addressAllowed('127.0.0.1')).toBe(true);
    expect(allowed.addressAllowed('192.168.0.1')).toBe(false);
    expect(allowed.addressAllowed('192.168.0.1', 'docs.internal')).toBe(true);
  });

  it('judges an IPv6 address that carries an IPv4 one by that IPv4 address', () => {
    const f = fetcher({ allow: [] });
    const loopback = ['::127.0.0.1', '::7f00:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:0:127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '2002:7f00:1::', '2002:7f00:1::1'];
    const inside = ['::10.0.0.1', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1', '2002:c0a8:101::', '64:ff9b:1::7f00:1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'];
    for (const address of [...loopback, ...inside]) expect(f.addressAllowed(address), address).toBe(false);
    for (const address of ['64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8']) expect(f.addressAllowed(address), address).toBe(true);
    expect(fetcher({ allow: ['127.0.0.1'] }).addressAllowed('::127.0.0.1')).toBe(true);
  });

  it('refuses an IPv4-carrying IPv6 address or an IPv4 address written in decimal, octal or hex in the URL', async () => {
    const f = fetcher({ allow: [] });
    const port = new URL(base).port;
    for (const host of ['[::127.0.0.1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '2130706433', '0x7f000001', '0177.0.0.1', '0x7f.1', '127.1']) {
      const error = await failure(f.fetch(`http://${host}:${port}/ok`));
      expect([host, error.code]).toEqual([host, 'FETCH_REFUSED']);
    }
  });

  it('sends credentials to their own origin only: a redirect to another origin goes on without them', async () => {
    const f = fetcher({ allow: ['127.0.0.1', 'localhost'] });
    const headers = { Authorization: 'Bearer secret-token', cookie: 'session=secret', accept: 'application/json' };
    expect(JSON.parse((await f.fetch(`${base}/to-echo`, headers)).body.toString())).toEqual({ authorization: 'Bearer secret-token', cookie: 'session=secret', accept: 'application/json' });
    const other = `http://localhost:${new URL(base).port}/echo`;
    const crossed = await f.fetch(`${base}/to-other-origin/${encodeURIComponent(other)}`, headers);
    expect(crossed.url).toBe(other);
    expect(JSON.parse(crossed.body.toString())).toEqual({ authorization: null, cookie: null, accept: 'application/json' });
  });

  it('applies the allowances to the hosts allowOnlyFor names only, redirects included', async () => {
    const f = fetcher({ allow: ['127.0.0.1', 'localhost'], allowOnlyFor: ['127.0.0.1'] });
    expect((await f.fetch(`${base}/ok`)).body.toString()).toBe('hello');
    const elsewhere = `http://localhost:${new URL(base).port}/ok`;
    expect((await failure(f.fetch(elsewhere))).code).toBe('FETCH_REFUSED');
    expect((await failure(f.fetch(`${base}/to-other-origin/${encodeURIComponent(elsewhere)}`))).code).toBe('FETCH_REFUSED');
    expect(f.addressAllowed('127.0.0.1')).toBe(false);
    expect(f.addressAllowed('127.0.0.1', '127.0.0.1')).toBe(true);
  });

  it('refuses loopback, private, link-local addresses and names resolving there, with a clear error', async () => {
    const f = fetcher({ allow: [] });
    for (const url of [`${base}/ok`, 'http://10.1.2.3/x', 'http://169.254.169.254/latest', `http://localhost:${new URL(base).port}/ok`]) {
      const error = await failure(f.fetch(url));
      expect(error.code, url).toBe('FETCH_REFUSED');
      expect(error.message).toMatch(/^url: .* resolves to .*private, loopback or link-local.*QUIRE_FETCH_ALLOW/);
    }
    expect((await failure(f.fetch('file:///etc/passwd'))).code).toBe('FETCH_REFUSED');
  });

  it('fetches what the configuration allows, and checks every redirect again', async () => {
    const f = fetcher({ allow: ['127.0.0.1/32'] });
    const ok = await f.fetch(`${base}/ok`);
    expect(ok.body.toString()).toBe('hello');
    expect((await f.fetch(`${base}/to-ok`)).url).toBe(`${base}/ok`);
    for (const path of ['/to-private', '/to-metadata']) expect((await failure(f.fetch(`${base}${path}`))).code).toBe('FETCH_REFUSED');
  });

  it('answers a Fetch API request (for openid-client): a POST with its body, no redirect followed, the same refusals', async () => {
    const allowed = fetcher({ allow: ['127.0.0.1'], maxBytes: 1024 });
    const posted = await allowed.request(`${base}/post`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ a: '1' }) });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('x-seen')).toBe('yes');
    expect(await posted.json()).toEqual({ body: 'a=1', type: 'application/x-www-form-urlencoded' });
    const redirect = await allowed.request(`${base}/to-private`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('http://10.0.0.1/secret');
    expect((await failure(allowed.request(`${base}/big`))).code).toBe('FETCH_TOO_LARGE');
    expect((await failure(fetcher({ allow: [] }).request(`${base}/ok`))).code).toBe('FETCH_REFUSED');
    expect((await failure(allowed.request('file:///etc/passwd'))).code).toBe('FETCH_REFUSED');
  });

  it('gives up after the time limit and past the size cap', async () => {
    // /slow answers after 5 s: a timeout, not its answer, means the limit ended the fetch before that.
    const slow = fetcher({ allow: ['127.0.0.1'], timeoutMs: 300 });
    expect((await failure(slow.fetch(`${base}/slow`))).code).toBe('FETCH_TIMEOUT');
    const small = fetcher({ allow: ['127.0.0.1'], maxBytes: 1000 });
    expect((await failure(small.fetch(`${base}/big`))).code).toBe('FETCH_TOO_LARGE');
  });
});
