/**
 * Paged lists: opaque, signed cursor tokens and the `limit` rules (default 50, at most 1000, fractions truncated,
 * 0 answers no items and a token for them).
 */
import crypto from 'node:crypto';
import { InvalidArgument } from './errors.js';
import { signatureMatches } from './signing.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export interface PageRequest {
  page?: string;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** Token of the following page; absent on the last page. */
  next?: string;
}

/** Default 50; fractions are truncated; the schema already keeps it within 0..1000. */
export function normalizeLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(limit) || limit < 0 || limit > MAX_LIMIT) {
    throw new InvalidArgument(`limit: must be a number between 0 and ${MAX_LIMIT}`);
  }
  return Math.trunc(limit);
}

/**
 * Encodes list positions as `base64url(json).signature`. The signature covers the list's scope (which list,
 * which filters), so a token edited by hand, or taken from another list, is refused.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  private sign(scope: string, payload: string): string {
    return crypto.createHmac('sha256', this.secret).update(scope).update('\0').update(payload).digest('base64url').slice(0, 22);
  }

  /** `position` null means "from the start" (used when limit=0 leaves every item for later). */
  encode(scope: string, position: readonly unknown[] | null): string {
    const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${payload}.${this.sign(scope, payload)}`;
  }

  decode(scope: string, token: string): unknown[] | null {
    const invalid = new InvalidArgument('page: is not a valid page token for this list');
    const dot = token.indexOf('.');
    if (dot <= 0) throw invalid;
    const payload = token.slice(0, dot);
    const signature = token.slice(dot + 1);
    if (!signatureMatches(signature, this.sign(scope, payload))) throw invalid;
    const position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    if (position !== null && !Array.isArray(position)) throw invalid;
    return position as unknown[] | null;
  }
}

/**
 * Runs a keyset list: `fetch(after, n)` returns up to n rows in list order after a position. Rows the caller may
 * not see are dropped by `keep` without breaking the page size, so permission filters that SQL cannot express
 * still give full pages and stable cursors.
 */
export async function collectPage<Row, Item>(options: {
  codec: CursorCodec;
  scope: string;
  request: PageRequest;
  fetch: (after: unknown[] | undefined, n: number) => Promise<Row[]>;
  positionOf: (row: Row) => unknown[];
  present: (row: Row) => Item | undefined;
}): Promise<Page<Item>> {
  const { codec, scope, request, fetch, positionOf, present } = options;
  const limit = normalizeLimit(request.limit);
  let after = request.page ? (codec.decode(scope, request.page) ?? undefined) : undefined;
  const start = after;
  const items: Item[] = [];
  let lastPosition: unknown[] | undefined;
  const batch = Math.max(limit + 1, 50);
  for (;;) {
    const rows = await fetch(after, batch);
    for (const row of rows) {
      const item = present(row);
      if (item === undefined) continue;
      if (items.length === limit) {
        // One more visible item exists beyond this page.
        return { items, next: codec.encode(scope, lastPosition ?? start ?? null) };
      }
      items.push(item);
      lastPosition = positionOf(row);
    }
    if (rows.length < batch) return { items };
    after = positionOf(rows[rows.length - 1]);
  }
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** Lexicographic order of two keyset positions (numbers numerically, anything else as strings). */
export function compareKeys(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/**
 * The `fetch` of `collectPage` for rows already in memory and in list order (small lists the domain orders
 * itself, such as a site's structure): the rows after a position, by their keyset positions.
 */
export function fetchInMemory<Row>(rows: readonly Row[], positionOf: (row: Row) => unknown[]) {
  return async (after: unknown[] | undefined, n: number): Promise<Row[]> =>
    rows.filter((row) => !after || compareKeys(positionOf(row), after) > 0).slice(0, n);
}
