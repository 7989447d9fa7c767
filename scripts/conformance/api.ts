/**
 * The harness's HTTP client of Quire's API: every answer that is not 2xx becomes an HttpFailure naming the method,
 * the URL (without the temporary server's origin), the status and the error's code and message.
 */

export class HttpFailure extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${method} ${path} -> ${status}${detail ? ` ${detail}` : ''}`);
  }
}

export interface ApiPage {
  id: string;
  title: string;
  type: 'document' | 'group' | 'link' | 'computed';
  path?: string;
  markdown?: string;
  href?: string;
  git?: { oid: string; path: string };
  pages?: ApiPage[];
}

export interface ApiRevision {
  id: string;
  pages: ApiPage[];
  files: ApiFile[];
}

export interface ApiFile {
  id: string;
  name: string;
  git?: { oid: string; path: string };
}

export interface ApiList<T> {
  items: T[];
  next?: { page: string };
}

/** Encodes each segment of a page path for a URL (`a b/c#d` -> `a%20b/c%23d`). */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * The errors the server logs, in order: a 500's answer says nothing of its cause, the log does. Its lines come
 * through a pipe, possibly after the answer, so a failure waits a moment for the line logged after its request began.
 */
export class ServerErrors {
  private readonly messages: string[] = [];
  private readonly waiting = new Set<() => void>();

  record(message: string): void {
    this.messages.push(message);
    for (const wake of this.waiting) wake();
  }

  get count(): number {
    return this.messages.length;
  }

  /** The first error logged after the first `from` ones, waiting up to `waitMs` for it. */
  async after(from: number, waitMs = 500): Promise<string | undefined> {
    if (this.messages.length > from) return this.messages[from];
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, waitMs);
      this.waiting.add(wake);
    });
    return this.messages[from];
  }
}

export class Api {
  /**
   * @param origin the server's `http://127.0.0.1:PORT`
   * @param serverErrors what the server logs: the cause of a 5xx is shown beside it
   */
  constructor(
    private readonly origin: string,
    private readonly token: string,
    private readonly serverErrors: ServerErrors = new ServerErrors(),
  ) {}

  /** `method path` with an optional JSON body; the parsed JSON answer, or an HttpFailure. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    const errorsBefore = this.serverErrors.count;
    try {
      response = await fetch(`${this.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new HttpFailure(method, path, 0, `(no answer: ${(error as Error).message})`);
    }
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      let detail: string;
      try {
        const { error } = JSON.parse(text) as { error?: { code?: string; message?: string } };
        detail = [error?.code, error?.message].filter(Boolean).join(': ');
      } catch {
        detail = text.slice(0, 200);
      }
      const hint = response.status >= 500 ? await this.serverErrors.after(errorsBefore) : undefined;
      throw new HttpFailure(method, path, response.status, hint ? `${detail} (server log: ${hint})` : detail);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /** Every item of a paged list (`{items, next}`), following `next.page` (pages of 100: paging is exercised too). */
  async all<T>(path: string, limit = 100): Promise<T[]> {
    const items: T[] = [];
    let page: string | undefined;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const list = await this.get<ApiList<T>>(`${path}${separator}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      items.push(...list.items);
      page = list.next?.page;
    } while (page);
    return items;
  }
}
