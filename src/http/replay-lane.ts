/**
 * The replay lane: kept answers of a space's content at main, sent ahead of Fastify's routing.
 *
 * A warm page read is an answer kept with the revision (sendCachedAnswer with `replayable`), sent again to a caller whose read
 * of the space is current (cachedReplay). Fastify's per-request work around such a send (request and reply objects, the
 * router, hooks, a child logger, response listeners) cost more than the send itself, well above a bare Fastify route
 * answering the same bytes (bench/README.md). This lane answers those requests from the server's
 * `request` event with the same checks and the same bytes and headers; anything it cannot answer as the route would
 * (another method, a body, a token the read cache does not hold, a URL not replayed yet, a compression being made, a
 * server closing) goes to Fastify unchanged, where replayCachedAnswer and the route answer it. It authenticates as the
 * routes do (cachedCaller of the auth plugin) and answers what the HTTP answer cache keeps (src/http/answer-cache.ts).
 */
import http from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../domain/context.js';
import { cachedCaller } from './plugins/auth.js';
import { cachedAnswerForm, cachedReplay } from './present.js';
import { logAnswered } from './access-line.js';

/** The space of a URL that may be a replayed one (the content routes of src/http/routes/content under /v1). */
const REPLAYABLE_URL = /^\/v1\/spaces\/([a-zA-Z0-9_-]+)\/content(?:[/?]|$)/;

export interface ReplayLaneOptions {
  /** Fastify's logger (the access line is the one Fastify's requests get, see logAnswered). */
  log: FastifyBaseLogger;
  /** The request ids Fastify gives (its `genReqId`): one sequence for both ways in. */
  requestId: () => string;
  /** True once the server is closing: Fastify then answers 503, and the lane leaves every request to it. */
  closing: () => boolean;
}

/** A `request` listener that answers a kept replay and returns true, or returns false and leaves the request alone. */
export function replayLane(ctx: Context, options: ReplayLaneOptions): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  return (req, res) => {
    const started = performance.now();
    if (req.method !== 'GET' || options.closing()) return false;
    // A GET with a body is left to Fastify, which reads (or refuses) it.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    const url = req.url ?? '';
    const spaceId = REPLAYABLE_URL.exec(url)?.[1];
    if (spaceId === undefined) return false;
    // The routes' own authentication, for a token the read cache holds (any other goes to Fastify's hook).
    const caller = cachedCaller(ctx, req.headers.authorization);
    if (!caller) return false;
    const kept = cachedReplay(ctx, caller, spaceId, url);
    if (!kept) return false;
    const { content, replay } = kept;
    const form = cachedAnswerForm(content, replay.key, replay.bytes, req.headers['accept-encoding']);
    if (!form.body) return false;
    const headers: http.OutgoingHttpHeaders = { 'content-type': replay.type };
    if (form.vary) headers.vary = 'accept-encoding';
    if (form.coding) headers['content-encoding'] = form.coding;
    headers['content-length'] = form.body.length;
    res.writeHead(200, headers);
    res.end(form.body);
    if (ctx.log.isLevelEnabled('info')) logAccess(options, req, res, started);
    return true;
  };
}

/**
 * The access line Fastify writes for a request it answered (src/http/app.ts AccessLines), for one the lane answered:
 * written as the answer is handed to the socket (its bytes are in memory, so that is when it is answered), without a
 * listener kept on the response until it finishes.
 */
function logAccess(options: ReplayLaneOptions, req: http.IncomingMessage, res: http.ServerResponse, started: number): void {
  // What Fastify's request serializer reads of its request object (host, ip: its getters without a trusted proxy).
  const request = { method: req.method, url: req.url, headers: req.headers, host: req.headers.host, ip: req.socket.remoteAddress, socket: req.socket };
  logAnswered(options.log, request, res.statusCode, performance.now() - started, options.requestId());
}
