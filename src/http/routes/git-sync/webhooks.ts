/**
 * POST /v1/git-sync/webhooks/{spaceId}: where GitHub, GitLab, Gitea and Forgejo deliver their push events for a
 * space connected with Git Sync (src/domain/git-sync/webhooks.ts). No bearer token: the delivery's signature is its
 * authentication, checked over the body's exact bytes, so the body is taken as bytes whatever its type and never
 * parsed. Outside the OpenAPI document: hosts call it, not API clients.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteDeps } from '../deps.js';
import { ErrorResponses } from '../../schemas.js';
import { SpaceParams } from '../spaces/schema.js';
import { receiveWebhook, type WebhookDelivery, type WebhookProof } from '../../../domain/git-sync/webhooks.js';

/** What a delivery did: a push queued a run; a ping or another event, nothing. */
const WebhookAnswer = Type.Object({ event: Type.String(), queued: Type.Boolean() });

/** GitHub's largest delivery: its payloads are capped at 25 MB. */
const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Which host sent it and how it proves so: Gitea and Forgejo first (they may also send GitHub's headers), then GitHub, then GitLab. */
export function deliveryOf(headers: IncomingHttpHeaders): Pick<WebhookDelivery, 'event' | 'proof'> {
  for (const host of ['forgejo', 'gitea']) {
    const signature = header(headers, `x-${host}-signature`);
    const event = header(headers, `x-${host}-event`);
    if (signature !== undefined || event !== undefined) {
      return { event: event === 'push' ? 'push' : 'other', proof: signature === undefined ? { kind: 'none' } : { kind: 'hmac-sha256', header: `x-${host}-signature`, signature } };
    }
  }
  const gitlabEvent = header(headers, 'x-gitlab-event');
  const gitlabToken = header(headers, 'x-gitlab-token');
  if (gitlabEvent !== undefined || gitlabToken !== undefined) {
    return { event: gitlabEvent === 'Push Hook' ? 'push' : 'other', proof: gitlabToken === undefined ? { kind: 'none' } : { kind: 'shared-token', header: 'x-gitlab-token', token: gitlabToken } };
  }
  const githubEvent = header(headers, 'x-github-event');
  const signature = header(headers, 'x-hub-signature-256');
  const proof: WebhookProof = signature?.startsWith('sha256=') ? { kind: 'hmac-sha256', header: 'x-hub-signature-256', signature: signature.slice('sha256='.length) } : { kind: 'none' };
  return { event: githubEvent === 'push' ? 'push' : githubEvent === 'ping' ? 'ping' : 'other', proof };
}

export const gitSyncWebhookRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_DELIVERY_BYTES }, (_request, body, done) => done(null, body));

  app.post('/git-sync/webhooks/:spaceId', { schema: { hide: true, params: SpaceParams, response: { 200: WebhookAnswer, 202: WebhookAnswer, ...ErrorResponses } } }, async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const outcome = await receiveWebhook(ctx, { spaceId: request.params.spaceId, body, ...deliveryOf(request.headers) });
    return reply.code(outcome.queued ? 202 : 200).send(outcome);
  });
};
