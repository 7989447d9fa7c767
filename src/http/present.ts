/** Presentation pieces shared by several resources. */
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { peekContent, stringBytes, type IndexedRevision } from '../domain/content/revisions.js';
import { dropAnswer, keepAnswer, keepReplay as keepReplayOf, keptAnswer, replayOf, type KeptReplay } from './answer-cache.js';
import type { Caller, Context } from '../domain/context.js';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
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

/** An answer of a revision, built once per key (route and options) and kept with the revision (./answer-cache.ts). */
function cached<T extends string | Buffer>(content: IndexedRevision, key: string, build: () => T): T {
  let answer = keptAnswer(content, key) as T | undefined;
  if (answer === undefined) {
    answer = build();
    keepAnswer(content, key, answer, typeof answer === 'string' ? stringBytes(answer) : answer.length);
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
export async function cachedBytes(content: IndexedRevision, key: string, build: () => Promise<string | Uint8Array>): Promise<Buffer> {
  const kept = keptAnswer(content, key);
  if (kept !== undefined) return kept as Buffer;
  const built = await build();
  // Bytes made on a CPU pool thread are taken as they are (their text was encoded there).
  const bytes = typeof built === 'string' ? Buffer.from(built) : Buffer.from(built.buffer, built.byteOffset, built.byteLength);
  // Another request may have built it meanwhile: the first one kept is the one answered from now on.
  return cached(content, key, () => bytes);
}

const gzipped = promisify(gzip);
const brotlied = promisify(brotliCompress);

/** The codings answers go in to clients that take them. */
type Coding = 'br' | 'gzip';

/**
 * Answers from this size are sent gzip-compressed to clients that accept it: about a TCP initial window (10 segments
 * of 1,460 bytes), which a smaller answer fits in anyway (it arrives in one round trip, compressed or not).
 */
export const COMPRESS_FROM_BYTES = 14 * 1024;

/**
 * The weights an Accept-Encoding header gives (RFC 9110 section 12.5.3): each coding named (in lower case, `x-gzip`
 * as `gzip`), and `*` for the others; a weight that is not a number leaves its coding out.
 */
function codingWeights(header: string | string[] | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  if (header === undefined) return weights;
  for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [named, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const coding = named === 'x-gzip' ? 'gzip' : named;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isNaN(weight)) weights.set(coding, Math.max(weights.get(coding) ?? 0, weight));
  }
  return weights;
}

/** The weight a coding has in parsed Accept-Encoding weights: its own when named, else `*`'s, else 0. */
const weightOf = (weights: ReadonlyMap<string, number>, coding: string): number => weights.get(coding) ?? weights.get('*') ?? 0;

/**
 * The coding an answer made for its request goes in (compressAnswers): Brotli when the client takes it at least as
 * much as gzip, else gzip when it takes that, else none. At the qualities used, Brotli makes a large search answer
 * in less time than gzip and smaller, and it is read faster (bench/README.md).
 */
export function answerCoding(header: string | string[] | undefined): Coding | undefined {
  const weights = codingWeights(header);
  const br = weightOf(weights, 'br');
  const gzip = weightOf(weights, 'gzip');
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : undefined;
}

/**
 * Sends an answer kept with a revision (cachedJsonBytes, cachedBytes) under `key`. To a client that accepts Brotli or
 * gzip (answerCoding), an answer from COMPRESS_FROM_BYTES goes compressed: compressed once per revision object and
 * coding (on zlib's thread pool, off the event loop; concurrent first requests wait for the same compression) and
 * kept beside it, counted in the revision's weight. The 20 MB `/content` of a 10,000-page space is ~1-4 MB gzipped.
 */
export function sendCachedAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  content: IndexedRevision,
  key: string,
  bytes: Buffer,
  type: string,
  options: { replayable?: boolean } = {},
): FastifyReply | Promise<FastifyReply> {
  if (options.replayable) keepReplay(content, request.url, { key, bytes, type });
  reply.type(type);
  const form = cachedAnswerForm(content, key, bytes, request.headers['accept-encoding']);
  // Caches between must not give the compressed answer to a client that did not ask for it, nor the other way.
  // (Added to what the route varies on already, such as a published page's `accept`.)
  if (form.vary) reply.header('vary', [reply.getHeader('vary'), 'accept-encoding'].filter((value) => value !== undefined && value !== '').join(', '));
  if (!form.body) return sendCompressed(reply, content, key, bytes, form.coding!);
  if (form.coding) reply.header('content-encoding', form.coding);
  return reply.send(form.body);
}

/**
 * The body a kept answer goes out with, to a client whose Accept-Encoding is `acceptEncoding` (see sendCachedAnswer): its
 * bytes, or its compressed bytes in the client's coding when made already (no body when they are still to be made or
 * being made); `vary` when the answer is one that may go compressed.
 */
export function cachedAnswerForm(content: IndexedRevision, key: string, bytes: Buffer, acceptEncoding: string | string[] | undefined): { body?: Buffer; coding?: Coding; vary?: true } {
  if (bytes.length < COMPRESS_FROM_BYTES) return { body: bytes };
  const coding = answerCoding(acceptEncoding);
  if (coding === undefined) return { body: bytes, vary: true };
  const compressed = keptAnswer(content, codedKeyOf(key, coding));
  return Buffer.isBuffer(compressed) ? { body: compressed, coding, vary: true } : { coding, vary: true };
}

/**
 * How answers made for their request are compressed (compressAnswers): the fastest settings (Brotli's quality 1, zlib's
 * level 1; the default ones take several times as long for a body only a little smaller), and one output chunk for
 * most answers (zlib's default of 16 KB takes a thread pool round trip per chunk) (bench/README.md).
 */
function answerCompression(bytes: Buffer): { chunkSize: number; level: number; params: Record<number, number> } {
  return {
    chunkSize: Math.max(16 * 1024, bytes.length >> 2),
    level: 1,
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  };
}

/**
 * An onSend hook for the answers routes serialize (a JSON text): from COMPRESS_FROM_BYTES, sent as bytes, compressed
 * (answerCoding: Brotli or gzip, on zlib's thread pool, off the event loop) for a client that accepts it. A search
 * answer is made anew for each request and can be hundreds of kilobytes: sent as a text, Node counts its UTF-8 length
 * and then encodes it, two passes that are slow over a text with any character beyond Latin-1;
 * uncompressed, it is several times the bytes to write. Answers sent as bytes (kept ones: sendCachedAnswer compresses
 * and keeps its own) and streams go as they are.
 */
export const compressAnswers: onSendHookHandler = (request, reply, payload, done) => {
  // A callback, not a promise: most answers pass as they are, and a hook of every request should cost nothing then.
  if (typeof payload !== 'string' || payload.length < COMPRESS_FROM_BYTES || reply.hasHeader('content-encoding')) return done(null, payload);
  const bytes = Buffer.from(payload);
  reply.header('vary', 'accept-encoding');
  const coding = answerCoding(request.headers['accept-encoding']);
  if (coding === undefined) return done(null, bytes);
  reply.header('content-encoding', coding);
  const sent = (error: Error | null, compressed: Buffer) => (error ? done(error) : done(null, compressed));
  if (coding === 'br') brotliCompress(bytes, answerCompression(bytes), sent);
  else gzip(bytes, answerCompression(bytes), sent);
};

/**
 * A route's serializer compiler for big answers made anew for each request (search results): JSON.stringify, which
 * writes one flat text. The schema's serializer (fast-json-stringify) builds its text of thousands of joined pieces,
 * which V8 has to copy into one before it can be sent or encoded: for an organization's search answer that copy costs
 * several times what JSON.stringify takes for the whole text (bench/README.md). The presenters of such routes build
 * exactly the schema's shape (nothing is left for a schema to strip), and the tests check answers against it.
 */
export const serializeNatively = () => (data: unknown) => JSON.stringify(data);

/** Where the bytes of the answer kept under `key`, compressed in `coding`, are kept (beside it, in the revision's answers). */
const codedKeyOf = (key: string, coding: Coding) => `${key}:${coding}`;

/**
 * How kept answers are compressed: once per revision, so for size more than speed. Brotli's quality 5 takes about
 * gzip's default level's time and is smaller on real spaces' markdown (and read faster by the client)
 * (bench/README.md).
 */
function compressKept(bytes: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'gzip') return gzipped(bytes);
  return brotlied(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

async function sendCompressed(reply: FastifyReply, content: IndexedRevision, key: string, bytes: Buffer, coding: Coding): Promise<FastifyReply> {
  const codedKey = codedKeyOf(key, coding);
  let compressed = keptAnswer(content, codedKey) as Buffer | Promise<Buffer> | undefined;
  if (compressed === undefined) {
    // Kept as a promise while it is made (concurrent first requests wait for the same one), then as the bytes.
    const making = compressKept(bytes, coding);
    keepAnswer(content, codedKey, making, 0);
    making.then(
      (made) => {
        if (keptAnswer(content, codedKey) === making) keepAnswer(content, codedKey, made, made.length);
      },
      () => dropAnswer(content, codedKey),
    );
    compressed = making;
  }
  return reply.header('content-encoding', coding).send(await compressed);
}

/** Remembers that `url` is answered by `answer` (see replayCachedAnswer), counted in the revision's weight. */
function keepReplay(content: IndexedRevision, url: string, answer: KeptReplay): void {
  if (keepReplayOf(content, url, answer)) content.weigh?.(REPLAY_HEAP + stringBytes(url));
}

/** What one URL of `replays` holds in the heap besides its text (its entry and object; the rest is shared). */
const REPLAY_HEAP = 120;

/**
 * The kept answer of `url` for `caller`: when the caller's read of the space is current (peekContent: the read
 * cache's entry, the revision built) and this URL was answered from that revision before (sendCachedAnswer with
 * `replayable`). The one check of both ways a replay goes out: replayCachedAnswer (a route's hook) and the replay lane
 * (src/http/replay-lane.ts, ahead of the router).
 */
export function cachedReplay(ctx: Context, caller: Caller, spaceId: string, url: string): { content: IndexedRevision; replay: KeptReplay } | undefined {
  const content = peekContent(ctx, caller, spaceId);
  const replay = content && replayOf(content, url);
  return content && replay ? { content, replay } : undefined;
}

/**
 * An onRequest hook for the routes that answer a kept answer of a space's content at main: a URL that cachedReplay finds
 * goes out at once, without the route's validation, checks and lookups (a warm page read costs markedly less,
 * bench/README.md). Anything else runs the route. Most replays never get here (the replay lane answers them first):
 * this one answers what the lane leaves, such as a compression still being made.
 */
export function replayCachedAnswer(ctx: Context): onRequestHookHandler {
  return (request, reply, done) => {
    const { spaceId } = request.params as { spaceId?: string };
    const kept = request.caller && spaceId !== undefined ? cachedReplay(ctx, request.caller, spaceId, request.url) : undefined;
    if (!kept) return done();
    const { content, replay } = kept;
    // Sent at once when small (no promise); a compressed answer may wait for its compression.
    const sent = sendCachedAnswer(request, reply, content, replay.key, replay.bytes, replay.type);
    if (sent instanceof Promise) sent.catch((error: unknown) => reply.send(error));
  };
}
