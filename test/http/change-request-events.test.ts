/**
 * A change request's events as server-sent events (streamChangeRequestEvents, a Quire extension), over real HTTP:
 * what other users do reaches an open stream (comments, replies, reactions, resolving, reviews, pushes with git),
 * the stream is refused and cut off as the read of the change request is, the open streams are capped per user,
 * closing the server ends them, and with Redis an event made on one instance reaches a stream opened on another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { EventStreamClient } from '../helpers/event-stream.js';
import { waitFor } from '../helpers/wait.js';
import { createContainer } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import { MAX_STREAMS_PER_USER } from '../../src/http/event-streams.js';
import { startSession } from '../../src/domain/identity/sessions.js';
import { SESSION_COOKIE } from '../../src/http/cookies.js';

describe.each(DATABASE_KINDS)('change request events (%s)', (kind) => {
  let t: TestApp;
  let base: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let cr: { id: string; number: number };
  let reader: TestUser;
  let commenter: TestUser;
  let reviewer: TestUser;
  const open: EventStreamClient[] = [];

  const eventsUrl = (changeRequest = cr.id) => `${base}/v1/spaces/${spaceId}/change-requests/${changeRequest}/events`;
  const listen = async (user: TestUser) => {
    const opened = await EventStreamClient.open(eventsUrl(), user.token);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    open.push(opened.client!);
    return opened.client!;
  };
  const commentsUrl = () => `/v1/spaces/${spaceId}/change-requests/${cr.id}/comments`;

  beforeAll(async () => {
    t = await startTestApp(kind);
    base = await t.listen();
    org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Live' } })).body.id;
    cr = (await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Live review' } })).body;
    reader = await t.member(org.id, 'read');
    commenter = await t.member(org.id, 'comment');
    reviewer = await t.member(org.id, 'review');
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await t?.close();
  });

  it('sends what other users do: a comment, a reply, a reaction, resolving, a review, a push with git', async () => {
    const stream = await listen(reader);
    const posted = await t.request('POST', commentsUrl(), { token: commenter.token, body: { body: { markdown: 'Is this right?' } } });
    expect(posted.status).toBe(200);
    const comment = posted.body.id;
    expect((await stream.next('the comment', (e) => e.event === 'comment' && e.data.action === 'posted')).data).toEqual({ changeRequest: cr.id, action: 'posted', comment });

    await t.request('POST', `${commentsUrl()}/${comment}/replies`, { token: org.admin.token, body: { body: { markdown: 'Yes.' } } });
    await stream.next('the reply', (e) => e.event === 'comment' && e.data.action === 'replied' && e.data.comment === comment);
    await t.request('PUT', `${commentsUrl()}/${comment}`, { token: org.admin.token, body: { addedReactions: ['👍'] } });
    await stream.next('the reaction', (e) => e.data.action === 'reacted' && e.data.comment === comment);
    await t.request('PUT', `${commentsUrl()}/${comment}`, { token: commenter.token, body: { resolved: true } });
    await stream.next('the resolution', (e) => e.data.action === 'resolved' && e.data.comment === comment);
    await t.request('PUT', `${commentsUrl()}/${comment}`, { token: commenter.token, body: { body: { markdown: 'Is this right now?' } } });
    await stream.next('the edit', (e) => e.data.action === 'edited' && e.data.comment === comment);

    const requested = await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/requested-reviewers`, { token: org.admin.token, body: { users: [reviewer.user.id] } });
    expect(requested.status, JSON.stringify(requested.body)).toBeLessThan(300);
    await stream.next('the review request', (e) => e.event === 'review' && e.data.action === 'reviewers-requested');
    const reviewed = await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/reviews`, { token: reviewer.token, body: { status: 'approved' } });
    expect(reviewed.status, JSON.stringify(reviewed.body)).toBeLessThan(300);
    await stream.next('the review', (e) => e.event === 'review' && e.data.action === 'submitted');

    const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
    await checkout.git('checkout', '--quiet', '-b', 'work', `origin/change-requests/${cr.number}`);
    await checkout.write('live.md', '# Live\n\nWritten while someone watches.\n');
    await checkout.commit('A live page');
    await checkout.push(`HEAD:refs/heads/change-requests/${cr.number}`);
    await stream.next('the push', (e) => e.event === 'change-request' && e.data.action === 'pushed');

    await t.request('DELETE', `${commentsUrl()}/${comment}`, { token: commenter.token });
    await stream.next('the deletion', (e) => e.data.action === 'deleted' && e.data.comment === comment);
    expect(stream.ended).toBe(false);
  });

  it('is refused as the read of the change request is, and needs Accept: text/event-stream', async () => {
    const outsider = (await t.organization('Elsewhere')).admin;
    const refused = await EventStreamClient.open(eventsUrl(), outsider.token);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe(404);
    expect((await EventStreamClient.open(eventsUrl(), undefined)).status).toBe(401);
    expect((await EventStreamClient.open(eventsUrl('999999'), reader.token)).status).toBe(404);
    const noAccept = await EventStreamClient.open(eventsUrl(), reader.token, {});
    expect(noAccept.status).toBe(400);
    expect(noAccept.body.error.message).toMatch(/^accept: /);
  });

  it('cuts off a reader who lost access at the next event', async () => {
    const guest = await t.member(org.id, null);
    await t.grant(org.id, { space: spaceId }, { user: guest.user.id }, 'read');
    const stream = await listen(guest);
    const watcher = await listen(reader);
    await t.container.ctx.db.deleteFrom('content_grants').where('user_id', '=', guest.user.id).execute();
    const posted = await t.request('POST', commentsUrl(), { token: commenter.token, body: { body: { markdown: 'After the guest left' } } });
    await watcher.next('the comment', (e) => e.data.comment === posted.body.id);
    await waitFor(() => stream.ended, { what: 'the stream of the guest who lost access to end' });
    expect(stream.events.some((e) => e.data.comment === posted.body.id)).toBe(false);
  });

  it('cuts off a stream whose token was revoked, or whose session was signed out, at the next event', async () => {
    const user = await t.member(org.id, 'read');
    const made = await t.request('POST', '/v1/user/tokens', { token: user.token, body: { label: 'a tab' } });
    expect(made.status).toBe(201);
    const byToken = await EventStreamClient.open(eventsUrl(), made.body.token);
    const started = await startSession(t.container.ctx, user.user, 'password', { address: '127.0.0.1' });
    const cookie = `${SESSION_COOKIE}=${started.secret}`;
    const bySession = await EventStreamClient.open(eventsUrl(), undefined, { accept: 'text/event-stream', cookie });
    for (const opened of [byToken, bySession]) {
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      open.push(opened.client!);
    }
    const watcher = await listen(reader);

    expect((await t.request('DELETE', `/v1/user/tokens/${made.body.id}`, { token: user.token })).status).toBe(204);
    const signedOut = await t.request('POST', '/v1/auth/sign-out', { headers: { cookie, 'x-csrf-token': started.csrfToken } });
    expect(signedOut.status).toBeLessThan(300);
    const posted = await t.request('POST', commentsUrl(), { token: commenter.token, body: { body: { markdown: 'After the tab signed out' } } });
    await watcher.next('the comment', (e) => e.data.comment === posted.body.id);
    for (const [what, stream] of [['token', byToken.client!], ['session', bySession.client!]] as const) {
      await waitFor(() => stream.ended, { what: `the stream opened with the ${what} to end` });
      expect(stream.events.some((e) => e.data.comment === posted.body.id)).toBe(false);
    }
  });

  it(`caps the open streams at ${MAX_STREAMS_PER_USER} per user (429), and admits again when one closes`, async () => {
    const user = await t.member(org.id, 'read');
    const streams: EventStreamClient[] = [];
    for (let i = 0; i < MAX_STREAMS_PER_USER; i++) streams.push(await listen(user));
    const over = await EventStreamClient.open(eventsUrl(), user.token);
    expect(over.status).toBe(429);
    expect(over.body.error.message).toMatch(/event streams/);
    // Another user is not held back by this one's streams.
    await listen(commenter);
    streams[0].close();
    const again = await waitFor(async () => {
      const opened = await EventStreamClient.open(eventsUrl(), user.token);
      if (opened.client) open.push(opened.client);
      return opened;
    }, { what: 'a stream to be admitted again', until: (opened) => opened.status === 200 });
    expect(again.status).toBe(200);
  });

  it('ends its streams when the server closes, so that closing does not wait for readers', async () => {
    const other = await startTestApp(kind);
    try {
      const otherBase = await other.listen();
      const owner = await other.organization();
      const space = (await other.request('POST', `/v1/orgs/${owner.id}/spaces`, { token: owner.admin.token, body: { title: 'Closing' } })).body.id;
      const change = (await other.request('POST', `/v1/spaces/${space}/change-requests`, { token: owner.admin.token, body: {} })).body;
      const opened = await EventStreamClient.open(`${otherBase}/v1/spaces/${space}/change-requests/${change.id}/events`, owner.admin.token);
      expect(opened.status).toBe(200);
      await other.app.close();
      await waitFor(() => opened.client!.ended, { what: 'the stream to end with the server' });
    } finally {
      await other.close();
    }
  });
});

describe.each(DATABASE_KINDS)('change request events across instances sharing Redis (%s)', (kind) => {
  it('an event made on instance A reaches a stream opened on instance B', async () => {
    // A with BullMQ on the test Redis (its own key prefix); B is a second server on the same database, data dir and Redis.
    const a = await startTestApp(kind, {}, { queue: 'bullmq' });
    expect(a.config.redisUrl).toBeTruthy();
    const containerB = await createContainer(a.config);
    const appB = await buildApp(containerB, { logger: false });
    let stream: EventStreamClient | undefined;
    try {
      const baseB = await appB.listen({ port: 0, host: '127.0.0.1' });
      const org = await a.organization();
      const space = (await a.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Shared' } })).body.id;
      const change = (await a.request('POST', `/v1/spaces/${space}/change-requests`, { token: org.admin.token, body: {} })).body;
      const opened = await EventStreamClient.open(`${baseB}/v1/spaces/${space}/change-requests/${change.id}/events`, org.admin.token);
      expect(opened.status).toBe(200);
      stream = opened.client!;
      const posted = await a.request('POST', `/v1/spaces/${space}/change-requests/${change.id}/comments`, { token: org.admin.token, body: { body: { markdown: 'From A' } } });
      const received = await stream.next('the comment made on A', (e) => e.event === 'comment');
      expect(received.data).toEqual({ changeRequest: change.id, action: 'posted', comment: posted.body.id });
    } finally {
      stream?.close();
      await appB.close();
      await containerB.close();
      await a.close();
    }
  });
});
