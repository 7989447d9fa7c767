/**
 * The server `quire migrate` copies from, read with the reference's own public client (@gitbook/api), so that any
 * server that speaks this API will do: the hosted platform or another Quire. Every request goes out through the
 * guarded fetcher (private addresses only with QUIRE_FETCH_ALLOW), and the source is only ever read (GET).
 */
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import type { GuardedFetcher } from '../../store/net/guarded-fetch.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';

/**
 * The client's operations as they are called here. Its declarations import './client' without an extension, which
 * TypeScript's NodeNext resolution cannot follow, so its methods are unknown to the compiler.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the client's methods are unknown to the compiler (above).
type Operation = (...args: any[]) => Promise<{ data: any }>;
type Client = Record<'user' | 'orgs' | 'spaces' | 'collections', Record<string, Operation>>;

/** Why the source could not be read: `status` is the source's HTTP status when it answered. */
export class SourceFailure extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** A list of the reference's shape: `{items, next?: {page}}`. */
interface Listed<T> {
  items: T[];
  next?: { page: string };
}

const PAGE_LIMIT = 100;

/** The part of the source's URL the API lives under: `https://host/prefix` (no `/v1`, no trailing slash). */
export function sourceEndpoint(from: string): string {
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new SourceFailure(undefined, `--from: "${from}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceFailure(undefined, `--from: only http and https sources, not ${url.protocol}`);
  if (url.search || url.hash) throw new SourceFailure(undefined, '--from: the URL of a server, without query or fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

export class MigrationSource {
  readonly endpoint: string;
  private readonly client: Client;

  constructor(
    from: string,
    private readonly token: string,
    private readonly fetcher: GuardedFetcher,
  ) {
    this.endpoint = sourceEndpoint(from);
    const guarded = { fetch: (input: string | URL | Request, init?: RequestInit) => this.guardedFetch(input, init) };
    this.client = new GitBookAPI({ endpoint: this.endpoint, authToken: token, serviceBinding: guarded as never, userAgent: 'quire-migrate' }) as unknown as Client;
  }

  /** The source's reads only: anything else is refused before it leaves. */
  private async guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method !== 'GET') throw new Error(`quire migrate only reads its source; refused ${method} ${url}`);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const fetched = await this.fetcher.fetch(url, headers);
    const bodyless = fetched.status === 204 || fetched.status === 205 || fetched.status === 304;
    return new Response(bodyless ? null : new Uint8Array(fetched.body), { status: fetched.status, headers: { 'content-type': fetched.contentType } });
  }

  /** Calls one operation of the client; failures become SourceFailure naming what was read. */
  async read<T>(what: string, call: (client: Client) => Promise<{ data: T }>): Promise<T> {
    try {
      const { data } = await call(this.client);
      if (data === null || typeof data !== 'object') throw new SourceFailure(undefined, `${what}: the source did not answer JSON`);
      return data;
    } catch (error) {
      throw failureOf(error, what);
    }
  }

  /** Every item of a paged list, following `next`. */
  async list<T>(what: string, call: (client: Client, paging: { limit: number; page?: string }) => Promise<{ data: Listed<T> }>): Promise<T[]> {
    const items: T[] = [];
    let page: string | undefined;
    for (let round = 0; round < 10_000; round++) {
      const listed = await this.read(what, (client) => call(client, { limit: PAGE_LIMIT, ...(page ? { page } : {}) }));
      if (!Array.isArray(listed.items)) throw new SourceFailure(undefined, `${what}: the source's answer is not a list of this API`);
      items.push(...listed.items);
      page = listed.next?.page;
      if (!page) return items;
    }
    throw new SourceFailure(undefined, `${what}: the source's list does not end`);
  }

  /** The smart-HTTP URL of a space's repository when the source serves one (another Quire does). */
  gitUrl(spaceId: string): string {
    return `${this.endpoint}/git/${encodeURIComponent(spaceId)}.git`;
  }

  /** Headers git sends to the source. */
  gitHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.token}` };
  }

  /** Whether the source serves the space's repository over git's smart HTTP (the hosted platform does not). */
  async servesGit(spaceId: string): Promise<boolean> {
    try {
      const answer = await this.fetcher.fetch(`${this.gitUrl(spaceId)}/info/refs?service=git-upload-pack`, this.gitHeaders());
      return answer.status === 200 && answer.contentType.startsWith('application/x-git-upload-pack-advertisement');
    } catch (error) {
      if (error instanceof FetchFailure) return false;
      throw error;
    }
  }

  /** The bytes at a URL the source handed out (a file's download URL); its token goes only to its own origin. */
  async download(url: string): Promise<Buffer> {
    const sameOrigin = new URL(url, this.endpoint).origin === new URL(this.endpoint).origin;
    const fetched = await this.fetcher.fetch(new URL(url, this.endpoint).toString(), sameOrigin ? this.gitHeaders() : {}).catch((error: unknown) => {
      throw failureOf(error, `download ${url}`);
    });
    if (fetched.status !== 200) throw new SourceFailure(fetched.status, `download ${url}: the source answered ${fetched.status}`);
    return fetched.body;
  }
}

function failureOf(error: unknown, what: string): unknown {
  if (error instanceof SourceFailure) return error;
  if (error instanceof GitBookAPIError) {
    const { code, errorMessage } = error as unknown as { code: number; errorMessage?: string };
    return new SourceFailure(code, `${what}: the source answered ${code}${errorMessage ? ` (${errorMessage})` : ''}`);
  }
  if (error instanceof FetchFailure) return new SourceFailure(undefined, `${what}: ${error.message.replace(/^url: /, '')}`);
  if (error instanceof SyntaxError) return new SourceFailure(undefined, `${what}: the source did not answer JSON; is it a server of this API?`);
  return error;
}
