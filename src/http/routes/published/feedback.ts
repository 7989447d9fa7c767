/**
 * `POST {site}/~quire/feedback` (a Quire extension): a reader's answer to "Was this page helpful?" (the form of
 * feedback-form.ts, or JSON from a script). The reader is found as for the site's pages (the `visitorOf` of index.ts:
 * bearer, share key, visitor token and claims, from the query or the site's cookies) and the site opened as for them
 * by readPublishedSite, so that only a page they may read takes their vote. A form gets 303 back to the page at the
 * thanks anchor; JSON gets 204. Errors are the API's `{error: {code, message}}`, naming the field.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { StringEnum } from '../../schemas.js';
import { DomainError, NotFound } from '../../../domain/errors.js';
import { readPublishedSite, type SiteVisitor } from '../../../domain/sites/published.js';
import { PAGE_FEEDBACK_COMMENT_MAX, PAGE_FEEDBACK_RATINGS, recordPageFeedback } from '../../../domain/sites/page-feedback.js';
import { pageUrl } from './render.js';
import { FEEDBACK_PATH, FEEDBACK_THANKS_ID } from './feedback-form.js';

export interface FeedbackRouteDeps extends RouteDeps {
  /** The reader of a request to the site at `siteBase`, found as the site's pages find them. */
  visitorOf(request: FastifyRequest, reply: FastifyReply, siteBase: string): Promise<SiteVisitor>;
}

const FORM = 'application/x-www-form-urlencoded';

/**
 * A vote is a few short fields: a comment of PAGE_FEEDBACK_COMMENT_MAX characters, each up to 4 bytes of UTF-8 and
 * percent-encoded in a form (3 characters a byte), and a page id, with room to spare.
 */
export const FEEDBACK_BODY_LIMIT = 16 * 1024;

/** The longest user agent that counts in the reader's key (what follows tells no more readers apart). */
const USER_AGENT_CHARACTERS = 512;

const FeedbackParams = Type.Object({ organizationId: Type.String({ maxLength: 100 }), siteName: Type.String({ maxLength: 200 }) });
// The reader's keys, as the site's pages take them (visitorOf); unsigned claims come as further `visitor.NAME` members.
const FeedbackQuery = Type.Object({ share: Type.Optional(Type.String({ maxLength: 200 })), jwt_token: Type.Optional(Type.String({ maxLength: 8192 })) });
const FeedbackBody = Type.Object({
  pageId: Type.String({ minLength: 1, maxLength: 200 }),
  rating: StringEnum(PAGE_FEEDBACK_RATINGS),
  // Its bound (PAGE_FEEDBACK_COMMENT_MAX) is counted once line breaks are normalized (forms send `\r\n`): the domain checks it.
  comment: Type.Optional(Type.String({ description: `Plain text, at most ${PAGE_FEEDBACK_COMMENT_MAX} characters` })),
});

export const pageFeedbackRoutes: FastifyPluginAsyncTypebox<FeedbackRouteDeps> = async (app, { ctx, visitorOf }) => {
  // Forms' own encoding, for this route only (the API takes JSON): WHATWG's parser, the last of repeated fields.
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.post(
    `/sites/:organizationId/:siteName/${FEEDBACK_PATH}`,
    { bodyLimit: FEEDBACK_BODY_LIMIT, schema: { hide: true, params: FeedbackParams, querystring: FeedbackQuery, body: FeedbackBody } },
    async (request, reply) => {
      const { organizationId, siteName } = request.params;
      const siteBase = `/sites/${encodeURIComponent(organizationId)}/${encodeURIComponent(siteName)}`;
      const visitor = await visitorOf(request, reply, siteBase);
      const tree = await readPublishedSite(ctx, visitor, organizationId, siteName).catch((error: unknown) => {
        // One answer for a site that does not exist and one not published for this reader, as its pages give.
        if (error instanceof DomainError && error.code === 'NotFound') throw new NotFound(`site: no published site "${siteName}" here, or it is not published for you`);
        throw error;
      });
      const reader = { address: request.ip, userAgent: String(request.headers['user-agent'] ?? '').slice(0, USER_AGENT_CHARACTERS) };
      const { space, page } = await recordPageFeedback(ctx, tree, request.body, reader);
      reply.header('cache-control', 'no-store');
      if (request.headers['content-type']?.split(';', 1)[0].trim().toLowerCase() === FORM) {
        return reply.redirect(`${pageUrl(siteBase, space, page)}#${FEEDBACK_THANKS_ID}`, 303);
      }
      return reply.status(204).send();
    },
  );
};
