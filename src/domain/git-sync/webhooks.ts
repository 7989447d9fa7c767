/**
 * A git host telling Quire its branch moved: a webhook delivery, verified with the connection's webhook secret as
 * each host signs its deliveries, then a run queued. The payload is never believed: whatever it says, the run fetches
 * the connection's own URL and branch and reads the commits there, so a delivery can at most cause a fetch, and only
 * a delivery signed with the secret can cause one.
 *
 * - GitHub: `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the body under the secret; `ping` when a hook is made.
 * - Gitea and Forgejo: `X-Gitea-Signature` / `X-Forgejo-Signature: <hex>`, the same HMAC without the prefix.
 * - GitLab: `X-Gitlab-Token: <secret>`, the secret itself (GitLab signs nothing), compared in constant time.
 */
import crypto from 'node:crypto';
import type { Context } from '../context.js';
import { NotFound, Unauthenticated } from '../errors.js';
import { signatureMatches } from '../signing.js';
import { findGitSyncConnection } from '../../store/sql/git-sync.js';
import { sealContext } from './credentials.js';

/** How a delivery proves it comes from the host: which host's way, the header it came in, and its value. */
export type WebhookProof =
  | { kind: 'hmac-sha256'; header: string; signature: string }
  | { kind: 'shared-token'; header: string; token: string }
  | { kind: 'none' };

export interface WebhookDelivery {
  spaceId: string;
  /** `push` (the branch moved, or another one did), `ping` (a hook was made), or another event, which changes nothing. */
  event: 'push' | 'ping' | 'other';
  proof: WebhookProof;
  body: Buffer;
}

export type WebhookOutcome = { event: 'push'; queued: true } | { event: 'ping' | 'other'; queued: false };

/** Whether `proof` shows the body was sent by whoever holds `secret`. */
export function deliveryVerified(proof: WebhookProof, body: Buffer, secret: string): boolean {
  switch (proof.kind) {
    case 'hmac-sha256':
      return signatureMatches(proof.signature.toLowerCase(), crypto.createHmac('sha256', secret).update(body).digest('hex'));
    case 'shared-token':
      return signatureMatches(proof.token, secret);
    case 'none':
      return false;
  }
}

/** Verifies a delivery and, for a push, queues a run of the space's connection. */
export async function receiveWebhook(ctx: Context, delivery: WebhookDelivery): Promise<WebhookOutcome> {
  const row = await findGitSyncConnection(ctx.db, delivery.spaceId);
  if (!row) throw new NotFound(`spaceId: space "${delivery.spaceId}" is not connected to a git repository`);
  if (row.webhook_secret === null) {
    throw new Unauthenticated('webhookSecret: the connection has no webhook secret; connect again with one, and give the host the same');
  }
  const secret = ctx.secrets.open(row.webhook_secret, sealContext(row.space_id, 'webhook'));
  if (!deliveryVerified(delivery.proof, delivery.body, secret)) {
    const header = delivery.proof.kind === 'none' ? 'x-hub-signature-256' : delivery.proof.header;
    throw new Unauthenticated(`${header}: the delivery is not signed with the connection's webhook secret`);
  }
  if (delivery.event !== 'push') return { event: delivery.event, queued: false };
  // Each delivery its own run (a key of its own): one that arrives while a run is fetching is not lost. The body is
  // not hashed again for it: a delivery may be megabytes, and its one HMAC is enough time on the event loop.
  await ctx.jobs.enqueueWhenReachable({ name: 'git-sync', payload: { spaceId: row.space_id, commit: `webhook-${crypto.randomUUID()}` } });
  return { event: 'push', queued: true };
}
