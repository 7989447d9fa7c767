/**
 * GET /v1/user and GET /v1/users/{userId}: the reference's user reads, which its client's getAuthenticatedUser
 * calls (`quire migrate` identifies who runs it with it) and to which every user object's `urls.location` leads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { referenceSchemaErrors } from '../helpers/contract.js';

describe.each(DATABASE_KINDS)('users (%s)', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  it('answers the caller as a user object, valid against the reference schema', async () => {
    const me = await t.user(`me-${kind}@users.example`, 'Mia');
    const res = await t.request('GET', '/v1/user', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'user', id: me.user.id, displayName: 'Mia', email: `me-${kind}@users.example`, urls: { location: `http://quire.test/v1/users/${me.user.id}` } });
    expect(referenceSchemaErrors('User', res.body)).toBeUndefined();
    expect((await t.request('GET', '/v1/user')).status).toBe(401);
  });

  it('shows a user to themselves and to members of an organization they share, and to nobody else (404)', async () => {
    const org = await t.organization('Users Co');
    const colleague = await t.member(org.id, 'read');
    const stranger = await t.user();
    const location = (await t.request('GET', `/v1/orgs/${org.id}/members/${colleague.user.id}`, { token: org.admin.token })).body.user.urls.location as string;
    const path = new URL(location).pathname;
    expect(path).toBe(`/v1/users/${colleague.user.id}`);
    const seen = await t.request('GET', path, { token: org.admin.token });
    expect(seen.status).toBe(200);
    expect(seen.body.id).toBe(colleague.user.id);
    expect((await t.request('GET', path, { token: colleague.token })).body.id).toBe(colleague.user.id);
    const hidden = await t.request('GET', path, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toContain('userId');
    expect((await t.request('GET', '/v1/users/no_such_user', { token: org.admin.token })).status).toBe(404);
  });

  it('answers the placeholder author of posts whose author was deleted, where its location leads', async () => {
    const someone = await t.user();
    const res = await t.request('GET', '/v1/users/deleted', { token: someone.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'user', id: 'deleted', displayName: 'Deleted user', urls: { location: 'http://quire.test/v1/users/deleted' } });
    expect((await t.request('GET', '/v1/users/deleted')).status).toBe(401);
  });

  it('fails the suite when an answer hands out a URL that answers 404 (the check every API suite runs)', async () => {
    const someone = await t.user();
    await expect(t.checkUrls(['http://quire.test/v1/users/no_such_user'], someone.token)).rejects.toThrow(/answers 404 to GET/);
    await expect(t.checkUrls(['http://quire.test/v1/users/deleted'], someone.token)).resolves.toBeUndefined();
  });
});
