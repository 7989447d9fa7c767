import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';

// The spec lists only the deletion (deleteOrganizationInviteById); creation, listing, reading, changing and joining
// follow the reference's operations of the same operationIds, so their answers are checked against it like every other.
describe.each(DATABASE_KINDS)('invite links (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let editor: TestUser;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Inviting Co');
    editor = await t.member(org.id, 'edit');
  });
  afterAll(async () => t?.close());

  const invites = (orgId = org.id) => `/v1/orgs/${orgId}/link-invites`;
  const join = (inviteId: string, orgId = org.id) => `/v1/orgs/${orgId}/invites/${inviteId}`;

  async function createInvite(role: string | null, orgId = org.id, token = org.admin.token): Promise<string> {
    const res = await t.request('POST', invites(orgId), { token, body: { role } });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function roleOf(userId: string, orgId = org.id): Promise<string | null | undefined> {
    const row = await t.container.ctx.db.selectFrom('members').select('role').where('organization_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
    return row === undefined ? undefined : row.role;
  }

  async function countInvites(orgId = org.id): Promise<number> {
    return (await t.container.ctx.db.selectFrom('link_invites').select('id').where('organization_id', '=', orgId).execute()).length;
  }

  describe('POST /v1/orgs/:id/link-invites (createOrganizationInvite)', () => {
    it('creates an invite whose unguessable id the link carries', async () => {
      const res = await t.request('POST', invites(), { token: org.admin.token, body: { role: 'comment' } });
      expect(res.status).toBe(201);
      const id = res.body.id as string;
      expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{42}$/);
      expect(res.body).toEqual({
        object: 'invite',
        id,
        role: 'comment',
        redundant: true,
        createdAt: expect.any(String),
        urls: {
          location: `http://quire.test/v1/orgs/${org.id}/link-invites/${id}`,
          app: `http://quire.test/app/invite/${org.id}/${id}`,
          join: `http://quire.test/v1/orgs/${org.id}/invites/${id}`,
        },
      });
      const guestInvite = await t.request('POST', invites(), { token: org.admin.token, body: { role: null } });
      expect(guestInvite.body.role).toBeNull();
      expect(guestInvite.body.id).not.toBe(id);
    });

    it('refuses a missing or unknown role with a 400 naming it', async () => {
      const before = await countInvites();
      const missing = await t.request('POST', invites(), { token: org.admin.token, body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toBe('role: is required');
      const unknown = await t.request('POST', invites(), { token: org.admin.token, body: { role: 'owner' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toMatch(/^role: must be one of: admin, /);
      const noBody = await t.request('POST', invites(), { token: org.admin.token });
      expect(noBody.status).toBe(400);
      expect(await countInvites()).toBe(before);
    });

    it('is 409 while the organization has invite links turned off', async () => {
      const o = await t.organization('Closed Co');
      expect((await t.request('PATCH', `/v1/orgs/${o.id}`, { token: o.admin.token, body: { inviteLinks: false } })).status).toBe(200);
      const res = await t.request('POST', invites(o.id), { token: o.admin.token, body: { role: 'read' } });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/^inviteLinks: /);
      expect(await countInvites(o.id)).toBe(0);
    });

    it('is for admins: 403 for other members, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const stranger = await t.user();
      const before = await countInvites();
      expect((await t.request('POST', invites(), { token: editor.token, body: { role: 'read' } })).status).toBe(403);
      expect((await t.request('POST', invites(), { token: stranger.token, body: { role: 'read' } })).status).toBe(404);
      expect((await t.request('POST', invites('unknown-org'), { token: org.admin.token, body: { role: 'read' } })).status).toBe(404);
      expect((await t.request('POST', invites(), { body: { role: 'read' } })).status).toBe(401);
      expect(await countInvites()).toBe(before);
    });
  });

  describe('GET /v1/orgs/:id/link-invites (listOrganizationInviteLinks)', () => {
    it('lists the invites oldest first, in pages (admins)', async () => {
      const o = await t.organization('Listing Invites Co');
      const ids = [await createInvite('read', o.id, o.admin.token), await createInvite(null, o.id, o.admin.token), await createInvite('edit', o.id, o.admin.token)];
      const all = await t.request('GET', invites(o.id), { token: o.admin.token });
      expect(all.status).toBe(200);
      expect(all.body.items.map((i: any) => [i.id, i.role])).toEqual([[ids[0], 'read'], [ids[1], null], [ids[2], 'edit']]);
      expect(all.body.count).toBe(3);
      const first = await t.request('GET', invites(o.id), { token: o.admin.token, query: { limit: 2 } });
      expect(first.body.items.map((i: any) => i.id)).toEqual(ids.slice(0, 2));
      const second = await t.request('GET', invites(o.id), { token: o.admin.token, query: { limit: 2, page: first.body.next.page } });
      expect(second.body.items.map((i: any) => i.id)).toEqual([ids[2]]);
      expect(second.body.next).toBeUndefined();
      const member = await t.member(o.id, 'create');
      expect((await t.request('GET', invites(o.id), { token: member.token })).status).toBe(403);
      expect((await t.request('GET', invites(o.id), { token: (await t.user()).token })).status).toBe(404);
      expect((await t.request('GET', invites(o.id))).status).toBe(401);
    });
  });

  describe('joining with an invite (joinOrganizationWithInvite) and reading it (getOrganizationInviteLink)', () => {
    it('lets anyone holding the id read the invite and join with its role', async () => {
      const id = await createInvite('edit');
      const newcomer = await t.user();
      const seen = await t.request('GET', `${invites()}/${id}`, { token: newcomer.token });
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({ object: 'invite', id, role: 'edit', redundant: false });
      const joined = await t.request('POST', join(id), { token: newcomer.token });
      expect(joined.status).toBe(200);
      expect(joined.body).toEqual({});
      expect(await roleOf(newcomer.user.id)).toBe('edit');
      const member = await t.request('GET', `/v1/orgs/${org.id}/members/${newcomer.user.id}`, { token: newcomer.token });
      expect(member.body).toMatchObject({ object: 'member', role: 'edit', disabled: false });
      expect((await t.request('GET', `${invites()}/${id}`, { token: newcomer.token })).body.redundant).toBe(true);
      // Joining again changes nothing.
      expect((await t.request('POST', join(id), { token: newcomer.token })).status).toBe(200);
      expect(await roleOf(newcomer.user.id)).toBe('edit');
    });

    it('makes guests with a guest invite, upgrades members with a stronger one, and never demotes', async () => {
      const guestInvite = await createInvite(null);
      const guestToBe = await t.user();
      expect((await t.request('POST', join(guestInvite), { token: guestToBe.token })).status).toBe(200);
      expect(await roleOf(guestToBe.user.id)).toBeNull();
      const reviewInvite = await createInvite('review');
      expect((await t.request('POST', join(reviewInvite), { token: guestToBe.token })).status).toBe(200);
      expect(await roleOf(guestToBe.user.id)).toBe('review');
      const readInvite = await createInvite('read');
      expect((await t.request('POST', join(readInvite), { token: editor.token })).status).toBe(200);
      expect(await roleOf(editor.user.id)).toBe('edit');
      expect((await t.request('POST', join(guestInvite), { token: org.admin.token })).status).toBe(200);
      expect(await roleOf(org.admin.user.id)).toBe('admin');
    });

    it('keeps a disabled membership disabled (403)', async () => {
      const id = await createInvite('edit');
      const disabled = await t.member(org.id, 'read');
      await t.container.ctx.db.updateTable('members').set({ disabled: 1 }).where('organization_id', '=', org.id).where('user_id', '=', disabled.user.id).execute();
      const res = await t.request('POST', join(id), { token: disabled.token });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/disabled/);
      expect(await roleOf(disabled.user.id)).toBe('read');
    });

    it('is 404 for unknown invites, invites of another organization, and while invite links are off; 401 without a token', async () => {
      const o = await t.organization('Toggle Co');
      const id = await createInvite('read', o.id, o.admin.token);
      const other = await createInvite('read');
      const outsider = await t.user();
      const unknown = await t.request('POST', join('no-such-invite', o.id), { token: outsider.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^inviteId: /);
      expect((await t.request('POST', join(other, o.id), { token: outsider.token })).status).toBe(404);
      expect((await t.request('GET', `${invites(o.id)}/${other}`, { token: outsider.token })).status).toBe(404);
      expect((await t.request('POST', join(id, 'unknown-org'), { token: outsider.token })).status).toBe(404);
      expect((await t.request('POST', join(id, o.id))).status).toBe(401);
      expect((await t.request('GET', `${invites(o.id)}/${id}`)).status).toBe(401);

      await t.request('PATCH', `/v1/orgs/${o.id}`, { token: o.admin.token, body: { inviteLinks: false } });
      expect((await t.request('POST', join(id, o.id), { token: outsider.token })).status).toBe(404);
      expect((await t.request('GET', `${invites(o.id)}/${id}`, { token: outsider.token })).status).toBe(404);
      expect(await roleOf(outsider.user.id, o.id)).toBeUndefined();
      // Administrators still see and manage the invite while links are off.
      expect((await t.request('GET', `${invites(o.id)}/${id}`, { token: o.admin.token })).status).toBe(200);
      expect((await t.request('GET', invites(o.id), { token: o.admin.token })).body.count).toBe(1);
      await t.request('PATCH', `/v1/orgs/${o.id}`, { token: o.admin.token, body: { inviteLinks: true } });
      expect((await t.request('POST', join(id, o.id), { token: outsider.token })).status).toBe(200);
      expect(await roleOf(outsider.user.id, o.id)).toBe('read');
    });
  });

  describe('PATCH /v1/orgs/:id/link-invites/:inviteId (updateOrganizationInviteById)', () => {
    it('changes the role the invite gives to later joiners (admins)', async () => {
      const id = await createInvite('read');
      const early = await t.user();
      await t.request('POST', join(id), { token: early.token });
      const res = await t.request('PATCH', `${invites()}/${id}`, { token: org.admin.token, body: { role: 'comment' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, role: 'comment' });
      const late = await t.user();
      await t.request('POST', join(id), { token: late.token });
      expect(await roleOf(late.user.id)).toBe('comment');
      expect(await roleOf(early.user.id)).toBe('read');
    });

    it('refuses bad input (400), non-admins (403), unknown invites and non-members (404), and no token (401)', async () => {
      const id = await createInvite('read');
      const url = `${invites()}/${id}`;
      const missing = await t.request('PATCH', url, { token: org.admin.token, body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toBe('role: is required');
      expect((await t.request('PATCH', url, { token: org.admin.token, body: { role: 'boss' } })).body.error.message).toMatch(/^role: must be one of/);
      expect((await t.request('PATCH', url, { token: editor.token, body: { role: 'admin' } })).status).toBe(403);
      expect((await t.request('PATCH', `${invites()}/unknown`, { token: org.admin.token, body: { role: 'admin' } })).status).toBe(404);
      expect((await t.request('PATCH', url, { token: (await t.user()).token, body: { role: 'admin' } })).status).toBe(404);
      expect((await t.request('PATCH', url, { body: { role: 'admin' } })).status).toBe(401);
      expect((await t.request('GET', url, { token: org.admin.token })).body.role).toBe('read');
    });
  });

  describe('DELETE /v1/orgs/:id/link-invites/:inviteId (deleteOrganizationInviteById)', () => {
    it('deletes an invite (205): its link stops working at once; then 204', async () => {
      const id = await createInvite('edit');
      const url = `${invites()}/${id}`;
      expect((await t.request('DELETE', url, { token: editor.token })).status).toBe(403);
      expect((await t.request('DELETE', url, { token: (await t.user()).token })).status).toBe(404);
      expect((await t.request('DELETE', url)).status).toBe(401);
      const deleted = await t.request('DELETE', url, { token: org.admin.token });
      expect(deleted.status).toBe(205);
      expect(deleted.body).toBeUndefined();
      const latecomer = await t.user();
      expect((await t.request('POST', join(id), { token: latecomer.token })).status).toBe(404);
      expect(await roleOf(latecomer.user.id)).toBeUndefined();
      expect((await t.request('GET', invites(), { token: org.admin.token })).body.items.map((i: any) => i.id)).not.toContain(id);
      expect((await t.request('DELETE', url, { token: org.admin.token })).status).toBe(204);
      expect((await t.request('DELETE', `${invites('unknown-org')}/${id}`, { token: org.admin.token })).status).toBe(404);
    });
  });
});
