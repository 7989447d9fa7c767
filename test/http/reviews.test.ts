import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { referenceSchemaErrors } from '../helpers/contract.js';
import { Checkout } from '../helpers/git.js';
import { currentReviewVerdicts } from '../../src/domain/change-requests/review-verdicts.js';

/**
 * Change-request reviews and requested reviewers (getReviewsByChangeRequestId, submitChangeRequestReview,
 * getRequestedReviewersByChangeRequestId, requestReviewersForChangeRequest, removeRequestedReviewerFromChangeRequest,
 * and the Location's getChangeRequestReviewById), through real HTTP; every answer is checked against the reference.
 */
describe.each(DATABASE_KINDS)('change-request reviews (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  /** Opens the change requests. */
  let author: TestUser;
  let reviewer: TestUser;
  let second: TestUser;
  let editor: TestUser;
  let commenter: TestUser;
  let reader: TestUser;

  const as = (user: TestUser) => ({
    get: (url: string, query?: Record<string, string | number>) => t.request('GET', url, { token: user.token, query }),
    post: (url: string, body?: unknown) => t.request('POST', url, { token: user.token, body }),
    delete: (url: string) => t.request('DELETE', url, { token: user.token }),
  });

  async function openChangeRequest(subject = 'Rework'): Promise<{ id: string; number: number; revision: string; url: string }> {
    const res = await as(author).post(`/v1/spaces/${spaceId}/change-requests`, { subject });
    expect(res.status).toBe(201);
    return { ...res.body, url: `/v1/spaces/${spaceId}/change-requests/${res.body.number}` };
  }

  /** A new commit on the change request's branch (straight into the repository); its oid. */
  async function pushTo(number: number): Promise<string> {
    const checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
    try {
      await checkout.git('checkout', '--quiet', '-b', 'work', `origin/change-requests/${number}`);
      await checkout.write(`page-${Date.now()}.md`, '# A page\n');
      const oid = await checkout.commit('more work');
      await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
      return oid;
    } finally {
      await checkout.dispose();
    }
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Reviewed' } })).body.id;
    author = await t.member(org.id, 'edit');
    reviewer = await t.member(org.id, 'review');
    second = await t.member(org.id, 'review');
    editor = await t.member(org.id, 'edit');
    commenter = await t.member(org.id, 'comment');
    reader = await t.member(org.id, 'read');
  });
  afterAll(async () => t?.close());

  it('keeps every review, newest first, each against the head of its time; the latest of each reviewer counts', async () => {
    const cr = await openChangeRequest();
    const first = await as(reviewer).post(`${cr.url}/reviews`, { status: 'changes-requested' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ object: 'change-request-review', status: 'changes-requested', revision: cr.revision });
    expect(first.body.reviewer.id).toBe(reviewer.user.id);
    expect(first.body.requestedBy).toBeUndefined();
    expect(first.body.comment).toBeUndefined();
    expect(first.headers.location).toBe(`http://quire.test/v1/spaces/${spaceId}/change-requests/${cr.id}/reviews/${first.body.id}`);
    // The Location answers the review (a Quire extension, in the reference's ChangeRequestReview shape).
    const located = await as(reader).get(new URL(String(first.headers.location)).pathname);
    expect(located.status).toBe(200);
    expect(located.body).toEqual(first.body);
    expect(referenceSchemaErrors('ChangeRequestReview', located.body)).toBeUndefined();

    const head = await pushTo(cr.number);
    const approval = await as(reviewer).post(`${cr.url}/reviews`, { status: 'approved' });
    expect(approval.body.revision).toBe(head);
    const other = await as(second).post(`${cr.url}/reviews`, { status: 'approved' });
    expect(other.status).toBe(201);

    const listed = await as(reader).get(`${cr.url}/reviews`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: any) => r.id)).toEqual([other.body.id, approval.body.id, first.body.id]);
    expect(listed.body.items.map((r: any) => r.revision)).toEqual([head, head, cr.revision]);
    // Submitted in quick succession, each is still strictly newer than the one before.
    const times = listed.body.items.map((r: any) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(times).size).toBe(3);

    const facts = listed.body.items.map((r: any) => ({ id: r.id, reviewer: r.reviewer.id, status: r.status, revision: r.revision, createdAt: r.createdAt }));
    const verdicts = currentReviewVerdicts(facts, head);
    expect(verdicts.approvals.map((c) => c.review.reviewer)).toEqual([second.user.id, reviewer.user.id]);
    expect(verdicts.changesRequested).toEqual([]);

    // Paged, newest first.
    const page1 = await as(reader).get(`${cr.url}/reviews`, { limit: 2 });
    expect(page1.body.items.map((r: any) => r.id)).toEqual([other.body.id, approval.body.id]);
    const page2 = await as(reader).get(`${cr.url}/reviews`, { limit: 2, page: page1.body.next.page });
    expect(page2.body.items.map((r: any) => r.id)).toEqual([first.body.id]);
    expect(page2.body.next).toBeUndefined();
  });

  it('posts the comment document given with a review on the change request, and shows it in the review', async () => {
    const cr = await openChangeRequest();
    const res = await as(reviewer).post(`${cr.url}/reviews`, { status: 'changes-requested', comment: { markdown: 'The intro needs **work**.' } });
    expect(res.status).toBe(201);
    const comment = res.body.comment;
    expect(comment).toMatchObject({ object: 'comment', status: 'open', body: { markdown: 'The intro needs **work**.' } });
    expect(comment.postedBy.id).toBe(reviewer.user.id);
    expect(comment.target).toMatchObject({ space: spaceId, changeRequest: cr.id, review: res.body.id, revision: cr.revision });
    // The change request's comments hold it, naming the review, and count it.
    const comments = await as(reader).get(`${cr.url}/comments`);
    expect(comments.body.items.map((c: any) => [c.id, c.target.review])).toEqual([[comment.id, res.body.id]]);
    expect((await as(reader).get(cr.url)).body.comments).toBe(1);
    // As a document on request.
    const documents = await as(reader).get(`${cr.url}/reviews`, { format: 'document' });
    expect(documents.body.items[0].comment.body.document).toMatchObject({ object: 'document' });

    // An empty document says nothing: no comment is posted.
    const silent = await as(second).post(`${cr.url}/reviews`, { status: 'approved', comment: {} });
    expect(silent.status).toBe(201);
    expect(silent.body.comment).toBeUndefined();
    expect((await as(reader).get(`${cr.url}/comments`)).body.items).toHaveLength(1);

    // A deleted comment leaves the review without one.
    expect((await as(reviewer).delete(`${cr.url}/comments/${comment.id}`)).status).toBe(205);
    const after = await as(reader).get(`${cr.url}/reviews`);
    expect(after.body.items.map((r: any) => r.comment)).toEqual([undefined, undefined]);
    expect(after.body.items).toHaveLength(2);
  });

  it('refuses reviews of merged and archived change requests, and an approval by the author', async () => {
    const cr = await openChangeRequest();
    // An author without `review` may not review at all.
    expect((await as(author).post(`${cr.url}/reviews`, { status: 'changes-requested' })).status).toBe(403);
    // One who may review can ask for changes to their own work, but not approve it.
    await t.container.ctx.db.updateTable('members').set({ role: 'review' }).where('organization_id', '=', org.id).where('user_id', '=', author.user.id).execute();
    try {
      const own = await as(author).post(`${cr.url}/reviews`, { status: 'approved' });
      expect(own.status).toBe(409);
      expect(own.body.error.message).toBe(`status: you opened change request ${cr.number}; its author cannot approve it`);
      expect((await as(author).post(`${cr.url}/reviews`, { status: 'changes-requested' })).status).toBe(201);
    } finally {
      await t.container.ctx.db.updateTable('members').set({ role: 'edit' }).where('organization_id', '=', org.id).where('user_id', '=', author.user.id).execute();
    }
    expect((await as(reader).get(`${cr.url}/reviews`)).body.items.map((r: any) => r.status)).toEqual(['changes-requested']);

    for (const status of ['archived', 'merged']) {
      const closed = await openChangeRequest();
      await t.container.ctx.db.updateTable('change_requests').set({ status }).where('id', '=', closed.id).execute();
      const refused = await as(reviewer).post(`${closed.url}/reviews`, { status: 'approved' });
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toBe(`status: change request ${closed.number} is ${status}; it takes no reviews`);
      expect((await as(reader).get(`${closed.url}/reviews`)).body.items).toEqual([]);
      const requested = await as(author).post(`${closed.url}/requested-reviewers`, { users: [reviewer.user.id] });
      expect(requested.status).toBe(409);
      expect(requested.body.error.message).toMatch(/^changeRequestId: /);
    }
  });

  it('requests reviewers (edit or the author), changes the subject with it, and a review names who requested it', async () => {
    const cr = await openChangeRequest('Before');
    const res = await as(editor).post(`${cr.url}/requested-reviewers`, { users: [reviewer.user.id, second.user.id, reviewer.user.id], subject: 'After' });
    expect(res.status).toBe(200);
    expect(res.body.users.map((u: any) => [u.kind, u.user.id, u.requestedBy.id, u.revision])).toEqual([
      ['user', reviewer.user.id, editor.user.id, cr.revision],
      ['user', second.user.id, editor.user.id, cr.revision],
    ]);
    expect((await as(reader).get(cr.url)).body.subject).toBe('After');

    // Requesting again refreshes the request: by whom, at which head.
    const head = await pushTo(cr.number);
    const again = await as(author).post(`${cr.url}/requested-reviewers`, { users: [second.user.id] });
    expect(again.body.users.map((u: any) => [u.user.id, u.requestedBy.id, u.revision])).toEqual([[second.user.id, author.user.id, head]]);
    expect((await as(reader).get(cr.url)).body.subject).toBe('After');
    const listed = await as(reader).get(`${cr.url}/requested-reviewers`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((u: any) => [u.user.id, u.requestedBy.id])).toEqual([
      [reviewer.user.id, editor.user.id],
      [second.user.id, author.user.id],
    ]);
    const page1 = await as(reader).get(`${cr.url}/requested-reviewers`, { limit: 1 });
    const page2 = await as(reader).get(`${cr.url}/requested-reviewers`, { limit: 1, page: page1.body.next.page });
    expect([...page1.body.items, ...page2.body.items].map((u: any) => u.user.id)).toEqual([reviewer.user.id, second.user.id]);
    expect(page2.body.next).toBeUndefined();

    // A requested reviewer's review names who requested it; the request stays.
    const review = await as(reviewer).post(`${cr.url}/reviews`, { status: 'approved' });
    expect(review.body.requestedBy.id).toBe(editor.user.id);
    expect((await as(reader).get(`${cr.url}/requested-reviewers`)).body.items).toHaveLength(2);

    // The author keeps asking for reviews even without edit; others need edit.
    await t.container.ctx.db.updateTable('members').set({ role: 'read' }).where('organization_id', '=', org.id).where('user_id', '=', author.user.id).execute();
    try {
      expect((await as(author).post(`${cr.url}/requested-reviewers`, { users: [editor.user.id] })).status).toBe(200);
      expect((await as(author).delete(`${cr.url}/requested-reviewers/${editor.user.id}`)).status).toBe(205);
    } finally {
      await t.container.ctx.db.updateTable('members').set({ role: 'edit' }).where('organization_id', '=', org.id).where('user_id', '=', author.user.id).execute();
    }
    const refused = await as(commenter).post(`${cr.url}/requested-reviewers`, { users: [reviewer.user.id] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/"edit" permission on this space, or to be the change request's author/);
    expect((await as(commenter).delete(`${cr.url}/requested-reviewers/${reviewer.user.id}`)).status).toBe(403);
  });

  it('takes a request back: 205 when removed, 204 when there was none (an unknown user too)', async () => {
    const cr = await openChangeRequest();
    await as(author).post(`${cr.url}/requested-reviewers`, { users: [reviewer.user.id, second.user.id] });
    const removed = await as(editor).delete(`${cr.url}/requested-reviewers/${reviewer.user.id}`);
    expect(removed.status).toBe(205);
    expect(removed.body).toBeUndefined();
    expect((await as(reader).get(`${cr.url}/requested-reviewers`)).body.items.map((u: any) => u.user.id)).toEqual([second.user.id]);
    expect((await as(editor).delete(`${cr.url}/requested-reviewers/${reviewer.user.id}`)).status).toBe(204);
    expect((await as(editor).delete(`${cr.url}/requested-reviewers/no-such-user`)).status).toBe(204);
    expect((await as(reader).get(`${cr.url}/requested-reviewers`)).body.items.map((u: any) => u.user.id)).toEqual([second.user.id]);
  });

  it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
    const cr = await openChangeRequest();
    const outsider = (await t.organization('Elsewhere')).admin;
    const guest = await t.member(org.id, null);
    const tooMany = Array.from({ length: 51 }, (_, i) => `user-${i}`);
    const cases: Array<[string, unknown, RegExp]> = [
      ['reviews', { status: 'rejected' }, /^status: must be one of: approved, changes-requested$/],
      ['reviews', {}, /^status: is required$/],
      ['reviews', { status: 7 }, /^status: must be/],
      ['reviews', { status: 'approved', comment: { markdown: '  ' } }, /^comment/],
      ['reviews', { status: 'approved', comment: 'Looks good' }, /^comment/],
      ['requested-reviewers', { users: reviewer.user.id }, /^users: must be array$/],
      ['requested-reviewers', {}, /^users: is required$/],
      ['requested-reviewers', { users: [7] }, /^users\[0\]: must be string$/],
      ['requested-reviewers', { users: tooMany }, /^users: must NOT have more than 50 items$/],
      ['requested-reviewers', { users: [reviewer.user.id, 'no-such-user'] }, /^users: "no-such-user" is not a member of the organization who can read this space$/],
      ['requested-reviewers', { users: [outsider.user.id] }, /^users: ".+" is not a member of the organization who can read this space$/],
      ['requested-reviewers', { users: [guest.user.id] }, /^users: ".+" is not a member of the organization who can read this space$/],
      ['requested-reviewers', { users: [author.user.id] }, /^users: ".+" opened change request \d+; its author cannot review it$/],
      ['requested-reviewers', { users: [], subject: 'x'.repeat(101) }, /^subject: must be at most 100 characters$/],
    ];
    for (const [path, body, message] of cases) {
      const res = await as(editor).post(`${cr.url}/${path}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    const badLimit = await as(reader).get(`${cr.url}/reviews`, { limit: 1001 });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.message).toMatch(/^limit: /);
    const badFormat = await as(reader).get(`${cr.url}/reviews`, { format: 'html' });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.message).toMatch(/^format: must be one of/);
    const badCursor = await as(reader).get(`${cr.url}/requested-reviewers`, { page: 'forged.token' });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.message).toMatch(/^page: /);
    expect((await as(reader).get(`${cr.url}/reviews`)).body.items).toEqual([]);
    expect((await as(reader).get(`${cr.url}/requested-reviewers`)).body.items).toEqual([]);
    expect((await as(reader).get(cr.url)).body.subject).toBe('Rework');
    // A guest with read on the space may be asked.
    await t.grant(org.id, { space: spaceId }, { user: guest.user.id }, 'read');
    expect((await as(editor).post(`${cr.url}/requested-reviewers`, { users: [guest.user.id] })).status).toBe(200);
  });

  it('lets readers read, reviewers review; 404 for strangers and unknown change requests or reviews; 401 without a token', async () => {
    const cr = await openChangeRequest();
    expect((await as(reader).get(`${cr.url}/reviews`)).status).toBe(200);
    expect((await as(reader).get(`${cr.url}/requested-reviewers`)).status).toBe(200);
    for (const user of [reader, commenter, editor]) {
      const res = await as(user).post(`${cr.url}/reviews`, { status: 'approved' });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/"review" permission/);
    }
    expect((await as(reader).post(`${cr.url}/requested-reviewers`, { users: [] })).status).toBe(403);
    const stranger = await t.user();
    for (const [method, path, body] of [
      ['GET', 'reviews', undefined],
      ['POST', 'reviews', { status: 'approved' }],
      ['GET', 'requested-reviewers', undefined],
      ['POST', 'requested-reviewers', { users: [] }],
      ['DELETE', `requested-reviewers/${reviewer.user.id}`, undefined],
    ] as const) {
      expect((await t.request(method, `${cr.url}/${path}`, { token: stranger.token, body })).status, `${method} ${path}`).toBe(404);
      expect((await t.request(method, `/v1/spaces/${spaceId}/change-requests/999/${path}`, { token: org.admin.token, body })).status).toBe(404);
      expect((await t.request(method, `${cr.url}/${path}`, { body })).status).toBe(401);
    }
    const unknown = await as(reader).get(`${cr.url}/reviews/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/^reviewId: /);
  });
});
