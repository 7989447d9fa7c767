/** Presentation pieces shared by several resources. */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { peekContent, stringBytes, type IndexedRevision } from '../domain/content/revisions.js';
import type { Context } from '../domain/context.js';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Page } from '../domain/lists.js';
import type { UserRow } from '../store/sql/users.js';
import type { Urls } from './urls.js';

/** The list envelope: `count` is the number of items in this response; `next` only when more remain. */
export function presentList<T, R>(page: Page<T>, present: (item: T) => R): { items: R[]; count: number; next?: { page: string } } {
  const items = page.items.map(present);
  return page.next ? { items, count: items.length, next: { page: page.next } } : { items, count: items.length };
}

export function presentUser(urls: Urls, user: UserRow) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.display_name,
    email: user.email,
    ...(user.photo_url ? { photoURL: user.photo_url } : {}),
    urls: { location: urls.api(`/users/${user.id}`) },
  };
}

/** The id of the author shown for posts whose author was deleted; `GET /users/deleted` answers this placeholder. */
export const DELETED_USER_ID = 'deleted';

/** A user who no longer exists (their posts keep a placeholder author). */
export function presentDeletedUser(urls: Urls) {
  return { object: 'user' as const, id: DELETED_USER_ID, displayName: 'Deleted user', urls: { location: urls.api(`/users/${DELETED_USER_ID}`) } };
}

/** A body-less answer: 204 (nothing was there / nothing to say) or 205 (deleted). HTTP forbids a body in both. */
export function noContent(reply: FastifyReply, status: 204 | 205) {
  return reply.status(status).send(undefined);
}

/** An answer of a revision, built once per key (route and options) and kept with the revision. */
function cached<T extends string | Buffer>(content: IndexedRevision, key: string, build: () => T): T {
  content.answers ??= new Map();
  let answer = content.answers.get(key) as T | undefined;
  if (answer === undefined) {
    answer = build();
    content.answers.set(key, answer);
    content.weigh?.(typeof answer === 'string' ? stringBytes(answer) : answer.length);
  }
  return answer;
}

/** An answer of a revision as JSON, built once per key (route and options) and kept with the revision. */
export function cachedJson(content: IndexedRevision, key: string, build: () => unknown): string {
  return cached(content, key, () => JSON.stringify(build()));
}

/**
 * cachedJson as the bytes sent (UTF-8): a big answer (the 20 MB revision of a 10,000-page space) is not encoded
 * again at each request.
 */
export function cachedJsonBytes(content: IndexedRevision, key: string, build: () => unknown): Buffer {
  return cached(content, `${key}:bytes`, () => Buffer.from(JSON.stringify(build())));
}

/**
 * An answer of a revision as the bytes of its text (sent as they are: no encoding at each request). The build may
 * be slow and asynchronous (a page rendered on the CPU pool): it runs only when nothing is kept under the key.
 */
export async function cachedBytes(content: IndexedRevision, key: string, build: () => Promise<string>): Promise<Buffer> {
  const kept = content.answers?.get(key);
  if (kept !== undefined) return kept as Buffer;
  const bytes = Buffer.from(await build());
  // Another request may have built it meanwhile: the first one kept is the one answered from now on.
  return cached(content, key, () => bytes);
}

const gzipped = promisify(gzip);

/**
 * Answers from this size are sent gzip-compressed to clients that accept it: about a TCP initial window (10 segments
 * of 1,460 bytes), which a smaller answer fits in anyway (it arrives in one round trip, compressed or not).
 */
export const COMPRESS_FROM_BYTES = 14 * 1024;

/**
 * Whether an Accept-Encoding header accepts gzip (RFC 9110 section 12.5.3): `gzip` (or its alias `x-gzip`) or else
 * `*`, with a weight above 0.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let gzipWeight: number | undefined;
  let anyWeight: number | undefined;
  for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [coding, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isNaN(weight)) continue;
    if (coding === 'gzip' || coding === 'x-gzip') gzipWeight = Math.max(gzipWeight ?? 0, weight);
    else if (coding === '*') anyWeight = weight;
  }
  return (gzipWeight ?? anyWeight ?? 0) > 0;
}

/**
 * Sends an answer kept with a revision (cachedJsonBytes, cachedBytes) under `key`. To a client that accepts gzip, an
 * answer from COMPRESS_FROM_BYTES goes compressed: compressed once per revision object (on zlib's thread pool, off
 * the event loop; concurrent first requests wait for the same compression) and kept beside it, counted in the
 * revision's weight. The 20 MB `/content` of a 10,000-page space is ~1-4 MB gzipped.
 */
export async function sendKept(
  request: FastifyRequest,
  reply: FastifyReply,
  content: IndexedRevision,
  key: string,
  bytes: Buffer,
  type: string,
  options: { replayable?: boolean } = {},
): Promise<FastifyReply> {
  if (options.replayable) keepReplay(content, request.url, { key, bytes, type });
  reply.type(type);
  if (bytes.length < COMPRESS_FROM_BYTES) return reply.send(bytes);
  // Caches between must not give the compressed answer to a client that did not ask for it, nor the other way.
  reply.header('vary', 'accept-encoding');
  if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(bytes);
  const gzipKey = `${key}:gzip`;
  content.answers ??= new Map();
  let compressed = content.answers.get(gzipKey) as Buffer | Promise<Buffer> | undefined;
  if (compressed === undefined) {
    // Kept as a promise while it is made (concurrent first requests wait for the same one), then as the bytes.
    const making = gzipped(bytes);
    content.answers.set(gzipKey, making);
    making.then(
      (made) => {
        if (content.answers?.get(gzipKey) !== making) return;
        content.answers.set(gzipKey, made);
        content.weigh?.(made.length);
      },
      () => content.answers?.delete(gzipKey),
    );
    compressed = making;
  }
  return reply.header('content-encoding', 'gzip').send(await compressed);
}

/** Remembers that `url` is answered by `answer` (see replayKept), counted in the revision's weight. */
function keepReplay(content: IndexedRevision, url: string, answer: { key: string; bytes: Buffer; type: string }): void {
  content.replays ??= new Map();
  if (content.replays.has(url)) return;
  content.replays.set(url, answer);
  content.weigh?.(REPLAY_HEAP + stringBytes(url));
}

/** What one URL of `replays` holds in the heap besides its text (its entry and object; the rest is shared). */
const REPLAY_HEAP = 120;

/**
 * An onRequest hook for the routes that answer a kept answer of a space's content at main (sendKept with
 * `replayable`): when the caller's read of the space is current (peekContent: the read cache's entry, the revision
 * built) and this URL was answered from that revision before, the same answer goes out at once, without the route's
 * validation, checks and lookups (a warm page read costs about a third less). Anything else runs the route.
 */
export function replayKept(ctx: Context): onRequestHookHandler {
  return (request, reply, done) => {
    const { spaceId } = request.params as { spaceId?: string };
    const content = request.caller && spaceId !== undefined ? peekContent(ctx, request.caller, spaceId) : undefined;
    const replay = content?.replays?.get(request.url);
    if (!content || !replay) return done();
    sendKept(request, reply, content, replay.key, replay.bytes, replay.type).catch((error: unknown) => reply.send(error));
  };
}
