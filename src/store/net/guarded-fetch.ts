/**
 * Every outbound fetch (imports, OpenAPI documents) goes through here. A request may only reach public
 * addresses: private, loopback, link-local, unique-local, carrier-grade NAT, multicast and reserved ranges are
 * refused unless `allow` (QUIRE_FETCH_ALLOW: CIDRs or host names) lets them through. The check is made on the
 * address actually connected to (the DNS answer, so a name resolving to 127.0.0.1 is refused too), again for each
 * redirect, with a time limit for the whole fetch and a cap on the bytes read. An IPv6 address that carries an IPv4
 * one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) is judged by the IPv4 address it leads to.
 *
 * Credentials (Authorization, Cookie, Proxy-Authorization) go to the origin they were given for only: a redirect to
 * another origin is followed without them. `allowOnlyFor` narrows the allowances to the named hosts (`quire migrate`
 * allows its source's host, and nothing its source's answers name).
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent } from 'undici';

export type FetchFailureCode = 'FETCH_REFUSED' | 'FETCH_TIMEOUT' | 'FETCH_TOO_LARGE' | 'FETCH_ERROR';

export class FetchFailure extends Error {
  constructor(
    readonly code: FetchFailureCode,
    message: string,
  ) {
    super(message);
  }
}

export interface FetchGuardOptions {
  /** CIDRs (`127.0.0.1/32`, `10.0.0.0/8`, `::1/128`) or host names allowed although not public. */
  allow: string[];
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Host names the allowances apply to (as URLs write them); absent: every host. Other hosts must be public. */
  allowOnlyFor?: string[];
}

export interface FetchedResource {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
}

const PUBLIC = 'unicast';

/** Whether `address` is a public one (IPv4-mapped and -compatible IPv6 addresses as the IPv4 address they reach). */
function publicAddress(address: string): boolean {
  const written = ipaddr.parse(address);
  const reached = written.kind() === 'ipv6' ? (embeddedIPv4(written as ipaddr.IPv6) ?? written) : written;
  return reached.range() === PUBLIC;
}

export class GuardedFetcher {
  private readonly cidrs: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  private readonly hosts: Set<string>;
  private readonly allowOnlyFor: string[] | undefined;
  /** undici's agent, made (and undici loaded) on the first fetch: commands that fetch nothing start without it. */
  private agent: Agent | undefined;

  constructor(private readonly options: FetchGuardOptions) {
    this.cidrs = [];
    this.hosts = new Set();
    this.allowOnlyFor = options.allowOnlyFor?.map((host) => host.replace(/^\[|\]$/g, '').toLowerCase());
    for (const entry of options.allow) {
      if (entry.includes('/') || net.isIP(entry)) {
        this.cidrs.push(ipaddr.parseCIDR(entry.includes('/') ? entry : `${entry}/${net.isIPv6(entry) ? 128 : 32}`));
      } else {
        this.hosts.add(entry.toLowerCase());
      }
    }
  }

  private async connector(): Promise<{ agent: Agent; request: typeof import('undici').request }> {
    const undici = await import('undici');
    this.agent ??= this.newAgent(undici.Agent);
    return { agent: this.agent, request: undici.request };
  }

  private newAgent(Agent: typeof import('undici').Agent): Agent {
    return new Agent({
      connect: {
        // The address undici connects to is the one checked: no gap between the check and the connection.
        lookup: (hostname, lookupOptions, callback) => {
          dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
            if (error) return callback(error, '', 0);
            const list = addresses as dns.LookupAddress[];
            const refused = list.find((a) => !this.addressAllowed(a.address, hostname));
            if (refused) return callback(refusal(hostname, refused.address), '', 0);
            if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
            callback(null, list[0].address, list[0].family);
          });
        },
      },
    });
  }

  /** True when `address` (of `hostname`) may be reached: public, or allowed by configuration. */
  addressAllowed(address: string, hostname?: string): boolean {
    return this.allowedByConfiguration(address, hostname) || publicAddress(address);
  }

  /**
   * True when configuration (QUIRE_FETCH_ALLOW) names `hostname` or a range holding `address`: a host the operator
   * vouched for, which may then be reached by plain http too (Git Sync to a company's own git server).
   */
  allowedByConfiguration(address: string, hostname?: string): boolean {
    const allowances = this.allowOnlyFor === undefined || (hostname !== undefined && this.allowOnlyFor.includes(hostname.toLowerCase()));
    if (!allowances) return false;
    if (hostname && this.hosts.has(hostname.toLowerCase())) return true;
    const written = ipaddr.parse(address);
    const reached = written.kind() === 'ipv6' ? (embeddedIPv4(written as ipaddr.IPv6) ?? written) : written;
    const matches = (ip: ipaddr.IPv4 | ipaddr.IPv6) => this.cidrs.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
    return matches(written) || matches(reached);
  }

  /**
   * Resolves the host of `url` (http or https) and checks every address with the rules of `fetch`: the address a
   * program that does its own connections (git's HTTP transport) must be pinned to. Throws FetchFailure.
   */
  async resolvePinned(url: string): Promise<{ host: string; port: number; address: string }> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new FetchFailure('FETCH_REFUSED', `url: only http and https can be fetched, not ${parsed.protocol}`);
    }
    return this.resolvePinnedHost(parsed.hostname, Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)));
  }

  /**
   * Resolves `hostname` (a name or an address, IPv6 in brackets or not) and checks every address as resolvePinned
   * does, for a program that connects to `port` itself by another protocol than http (git over SSH). Throws
   * FetchFailure.
   */
  async resolvePinnedHost(hostname: string, port: number): Promise<{ host: string; port: number; address: string }> {
    const host = hostname.replace(/^\[|\]$/g, '');
    let addresses: dns.LookupAddress[];
    if (net.isIP(host)) addresses = [{ address: host, family: net.isIPv6(host) ? 6 : 4 }];
    else {
      try {
        addresses = await dns.promises.lookup(host, { all: true });
      } catch (error) {
        throw new FetchFailure('FETCH_ERROR', `url: could not resolve ${host}: ${(error as Error).message}`);
      }
    }
    const refused = addresses.find((a) => !this.addressAllowed(a.address, host));
    if (refused || addresses.length === 0) throw refusal(host, refused?.address ?? 'nothing');
    return { host, port, address: addresses[0].address };
  }

  /** GETs `url`, following redirects (each checked again), within the time and size limits. */
  async fetch(url: string, headers: Record<string, string> = {}): Promise<FetchedResource> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs ?? 15_000);
    let current = new URL(url);
    for (let hop = 0; hop <= (this.options.maxRedirects ?? 5); hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        throw new FetchFailure('FETCH_REFUSED', `url: only http and https can be fetched, not ${current.protocol}`);
      }
      const host = current.hostname.replace(/^\[|\]$/g, '');
      // An address written in the URL is never looked up: check it here, before any connection.
      if (net.isIP(host) && !this.addressAllowed(host, host)) throw refusal(host, host);
      let response;
      try {
        const { agent, request } = await this.connector();
        response = await request(current, { method: 'GET', headers, dispatcher: agent, signal: deadline, maxRedirections: 0 } as never);
      } catch (error) {
        throw translate(error, current);
      }
      const status = response.statusCode;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        await response.body.dump();
        const next = new URL(String(location), current);
        if (next.origin !== current.origin) headers = withoutCredentials(headers);
        current = next;
        continue;
      }
      const body = await readCapped(response.body, this.options.maxBytes ?? 20 * 1024 * 1024, current).catch((error: unknown) => {
        throw translate(error, current);
      });
      return { url: current.toString(), status, contentType: String(response.headers['content-type'] ?? ''), body };
    }
    throw new FetchFailure('FETCH_ERROR', `url: more than ${this.options.maxRedirects ?? 5} redirects`);
  }

  /**
   * One request as the Fetch API makes it (for a library that takes a `fetch`: openid-client), with this fetcher's
   * address checks, time limit and size cap. Redirects are not followed: the answer is returned as it came.
   */
  async request(url: string | URL, init: { method?: string; headers?: HeadersInit; body?: unknown; signal?: AbortSignal | null } = {}): Promise<Response> {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new FetchFailure('FETCH_REFUSED', `url: only http and https can be fetched, not ${target.protocol}`);
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !this.addressAllowed(host, host)) throw refusal(host, host);
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 15_000);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : String(init.body as URLSearchParams);
    try {
      const { agent, request } = await this.connector();
      const response = await request(target, { method: (init.method ?? 'GET') as 'GET', headers, body, dispatcher: agent, signal, maxRedirections: 0 } as never);
      const bytes = await readCapped(response.body, this.options.maxBytes ?? 20 * 1024 * 1024, target);
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) answerHeaders.append(name, String(item));
      }
      const empty = response.statusCode === 204 || response.statusCode === 304 || (init.method ?? 'GET') === 'HEAD';
      return new Response(empty ? null : new Uint8Array(bytes), { status: response.statusCode, headers: answerHeaders });
    } catch (error) {
      throw translate(error, target);
    }
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}

/** The IPv4 address an IPv6 address carries and leads to (see the top of this file), if any. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = ip.parts;
  const last32 = () => new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  // Compatible (::a.b.c.d; not :: and ::1, which are themselves) and translated (::ffff:0:a.b.c.d).
  if (zeros(0, 6) && (p[6] !== 0 || p[7] > 1)) return last32();
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return last32();
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return last32();
  if (p[0] === 0x2002) return new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]);
  return undefined;
}

/** Request headers without the ones that carry credentials: what goes on to another origin. */
function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function refusal(hostname: string, address: string): FetchFailure {
  return new FetchFailure(
    'FETCH_REFUSED',
    `url: ${hostname} resolves to ${address}, a private, loopback or link-local address; Quire does not fetch from those unless QUIRE_FETCH_ALLOW allows it`,
  );
}

function translate(error: unknown, url: URL): FetchFailure {
  if (error instanceof FetchFailure) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof FetchFailure) return cause;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return new FetchFailure('FETCH_TIMEOUT', `url: ${url.host} did not answer in time`);
  return new FetchFailure('FETCH_ERROR', `url: could not fetch ${url.toString()}: ${(error as Error).message}`);
}

async function readCapped(stream: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number, url: URL): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new FetchFailure('FETCH_TOO_LARGE', `url: ${url.toString()} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
