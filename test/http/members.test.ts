import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { addMember } from '../../src/domain/members/members.js';
import { newId } from '../../src/domain/ids.js';
import type { Role } from '../../src/domain/permissions.js';
import { insertSpace } from '../../src/store/sql/spaces.js';
import { spaceRow } from '../helpers/rows.js';
import { nextMillisecond } from '../helpers/wait.js';

describe.each(DATABASE_KINDS)('members (%s)', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  // ---- factories

  /** A user with a display name, made a member with `role`. */
  async function namedMember(organizationId: string, role: Role | null, name: string, email?: string): Promise<TestUser> {
    const user = await t.user(email, name);
    await addMember(t.container.ctx, organizationId, user.user.id, role);
    return user;
  }

  async function setJoinedAt(organizationId: string, userId: string, joinedAt: string): Promise<void> {
    await t.container.ctx.db.updateTable('members').set({ joined_at: joinedAt }).where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
  }

  /** A space row (no repository is needed to list it), created at `createdAt`. */
  async function space(organizationId: string, title: string, createdAt: string, options: { visibility?: string; deleted?: boolean } = {}): Promise<string> {
    const id = newId();
    await insertSpace(
      t.container.ctx.db,
      spaceRow({ id, organization_id: organizationId, title, visibility: options.visibility ?? 'private', created_at: createdAt, deleted_at: options.deleted ? createdAt : null }),
    );
    return id;
  }

  async function createTeam(organizationId: string, token: string, title: string, members: string[] = []): Promise<string> {
    const res = await t.request('PUT', `/v1/orgs/${organizationId}/teams`, { token, body: { title, members } });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function member(organizationId: string, token: string, userId: string) {
    return t.request('GET', `/v1/orgs/${organizationId}/members/${userId}`, { token });
  }

  describe('GET /v1/orgs/:id/members (listMembersInOrganizationById)', () => {
    let org: Awaited<ReturnType<TestApp['organization']>>;
    let editor: TestUser;
    let reader: TestUser;
    let guest: TestUser;

    beforeAll(async () => {
      org = await t.organization('Members Co');
      editor = await namedMember(org.id, 'edit', 'Zelda Quux', `zelda.${kind}@example.com`);
      reader = await namedMember(org.id, 'read', 'Robin 100%_Sure');
      guest = await namedMember(org.id, null, 'Gus Guest');
      await setJoinedAt(org.id, org.admin.user.id, '2024-01-01T00:00:00.000Z');
      await setJoinedAt(org.id, editor.user.id, '2024-01-02T00:00:00.000Z');
      await setJoinedAt(org.id, reader.user.id, '2024-01-03T00:00:00.000Z');
      await setJoinedAt(org.id, guest.user.id, '2024-01-04T00:00:00.000Z');
    });

    it('lists members newest first by default, as OrganizationMember objects', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body.items.map((m: any) => m.id)).toEqual([guest.user.id, reader.user.id, editor.user.id, org.admin.user.id]);
      expect(res.body.count).toBe(4);
      expect(res.body.next).toBeUndefined();
      const zelda = res.body.items.find((m: any) => m.id === editor.user.id);
      expect(zelda).toEqual({
        object: 'member',
        id: editor.user.id,
        role: 'edit',
        user: {
          object: 'user',
          id: editor.user.id,
          displayName: 'Zelda Quux',
          email: `zelda.${kind}@example.com`,
          urls: { location: `http://quire.test/v1/users/${editor.user.id}` },
        },
        disabled: false,
        joinedAt: '2024-01-02T00:00:00.000Z',
        sso: false,
        spaces: 0,
        teams: 0,
      });
      expect(res.body.items.find((m: any) => m.id === guest.user.id).role).toBeNull();
    });

    it('orders ascending with order=asc', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: reader.token, query: { order: 'asc' } });
      expect(res.status).toBe(200);
      expect(res.body.items.map((m: any) => m.id)).toEqual([org.admin.user.id, editor.user.id, reader.user.id, guest.user.id]);
    });

    it('filters by role, guest included', async () => {
      const readers = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { role: 'read' } });
      expect(readers.body.items.map((m: any) => m.id)).toEqual([reader.user.id]);
      const guests = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { role: 'guest' } });
      expect(guests.body.items.map((m: any) => m.id)).toEqual([guest.user.id]);
      const admins = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { role: 'admin' } });
      expect(admins.body.items.map((m: any) => m.id)).toEqual([org.admin.user.id]);
      const none = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { role: 'review' } });
      expect(none.body).toEqual({ items: [], count: 0 });
    });

    it('searches displayName and email, case-insensitively, with % and _ taken literally', async () => {
      const byName = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { search: 'zELDA q' } });
      expect(byName.body.items.map((m: any) => m.id)).toEqual([editor.user.id]);
      const byEmail = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { search: `ZELDA.${kind.toUpperCase()}@` } });
      expect(byEmail.body.items.map((m: any) => m.id)).toEqual([editor.user.id]);
      const literal = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { search: '100%_s' } });
      expect(literal.body.items.map((m: any) => m.id)).toEqual([reader.user.id]);
      const wildcard = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { search: '%' } });
      expect(wildcard.body.items.map((m: any) => m.id)).toEqual([reader.user.id]);
      const combined = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { search: 'u', role: 'guest' } });
      expect(combined.body.items.map((m: any) => m.id)).toEqual([guest.user.id]);
    });

    it('pages with limit and next, and the token keeps the filters', async () => {
      const first = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { limit: 3 } });
      expect(first.body.count).toBe(3);
      expect(first.body.next.page).toEqual(expect.any(String));
      const second = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { limit: 3, page: first.body.next.page } });
      expect(second.body.items.map((m: any) => m.id)).toEqual([org.admin.user.id]);
      expect(second.body.next).toBeUndefined();
      // The token belongs to the unfiltered list: reusing it with another filter is refused.
      const other = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { limit: 3, page: first.body.next.page, role: 'read' } });
      expect(other.status).toBe(400);
      expect(other.body.error.message).toMatch(/^page: /);
    });

    it('lists only members seen at least once with sort=lastSeenAt, most recent first', async () => {
      const before = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { sort: 'lastSeenAt' } });
      expect(before.status).toBe(200);
      expect(before.body.items).toEqual([]);
      expect((await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: reader.token })).status).toBe(200);
      await nextMillisecond();
      expect((await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: guest.token })).status).toBe(200);
      const after = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { sort: 'lastSeenAt' } });
      expect(after.body.items.map((m: any) => m.id)).toEqual([guest.user.id, reader.user.id]);
      expect(after.body.items[0].lastSeenAt).toEqual(expect.any(String));
      const asc = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { sort: 'lastSeenAt', order: 'asc', limit: 1 } });
      expect(asc.body.items.map((m: any) => m.id)).toEqual([reader.user.id]);
      const rest = await t.request('GET', `/v1/orgs/${org.id}/members`, {
        token: org.admin.token,
        query: { sort: 'lastSeenAt', order: 'asc', limit: 1, page: asc.body.next.page },
      });
      expect(rest.body.items.map((m: any) => m.id)).toEqual([guest.user.id]);
      expect(rest.body.next).toBeUndefined();
    });

    it('refuses bad query values naming the parameter', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ limit: '-1' }, /^limit: /],
        [{ limit: '1001' }, /^limit: /],
        [{ limit: 'ten' }, /^limit: must be number/],
        [{ order: 'sideways' }, /^order: must be one of: asc, desc$/],
        [{ role: 'owner' }, /^role: must be one of: admin, create, review, edit, comment, read, guest$/],
        [{ sort: 'name' }, /^sort: must be one of: joinedAt, lastSeenAt$/],
        [{ search: 'x'.repeat(513) }, /^search: must be at most 512 characters$/],
        [{ page: 'garbage' }, /^page: /],
      ];
      for (const [query, message] of cases) {
        const res = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query });
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(res.body.error.message, JSON.stringify(query)).toMatch(message);
      }
    });

    it('is 403 for guests, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const denied = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: guest.token });
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/listMembers/);
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}/members`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/orgs/unknown-org/members', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members`)).status).toBe(401);
    });
  });

  describe('GET /v1/orgs/:id/members/:userId (getMemberInOrganizationById)', () => {
    it('lets non-guest members read anyone and every member read themselves', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const guest = await t.member(org.id, null);
      const byAdmin = await member(org.id, org.admin.token, reader.user.id);
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body).toMatchObject({ object: 'member', id: reader.user.id, role: 'read', user: { id: reader.user.id } });
      expect(byAdmin.body.lastSeenAt).toBeUndefined();
      expect((await member(org.id, reader.token, org.admin.user.id)).body.role).toBe('admin');
      const self = await member(org.id, guest.token, guest.user.id);
      expect(self.status).toBe(200);
      expect(self.body.role).toBeNull();
    });

    it('is 403 for a guest reading someone else, 404 for unknown users and non-members, 401 without a token', async () => {
      const org = await t.organization();
      const guest = await t.member(org.id, null);
      expect((await member(org.id, guest.token, org.admin.user.id)).status).toBe(403);
      const unknown = await member(org.id, org.admin.token, 'no-such-user');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^userId: /);
      const outsider = await t.user();
      expect((await member(org.id, org.admin.token, outsider.user.id)).status).toBe(404);
      expect((await member(org.id, outsider.token, org.admin.user.id)).status).toBe(404);
      expect((await member('unknown-org', org.admin.token, org.admin.user.id)).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${org.admin.user.id}`)).status).toBe(401);
    });
  });

  describe('DELETE /v1/orgs/:id/members/:userId (removeMemberFromOrganizationById)', () => {
    it('removes a member with their team seats and grants, and answers 204 again when they are gone', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const teamId = await createTeam(org.id, org.admin.token, 'Writers', [reader.user.id]);
      const spaceId = await space(org.id, 'Handbook', '2024-02-01T00:00:00.000Z');
      await t.grant(org.id, { space: spaceId }, { user: reader.user.id }, 'edit');
      expect((await member(org.id, org.admin.token, reader.user.id)).body).toMatchObject({ teams: 1, spaces: 1 });

      const res = await t.request('DELETE', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expect((await member(org.id, org.admin.token, reader.user.id)).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: reader.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).body.members).toBe(0);
      const grants = await t.container.ctx.db.selectFrom('content_grants').selectAll().where('user_id', '=', reader.user.id).execute();
      expect(grants).toEqual([]);
      // Rejoining starts from nothing.
      await addMember(t.container.ctx, org.id, reader.user.id, 'read');
      expect((await member(org.id, org.admin.token, reader.user.id)).body).toMatchObject({ teams: 0, spaces: 0 });
      await t.request('DELETE', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token });

      const again = await t.request('DELETE', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token });
      expect(again.status).toBe(204);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/members/never-a-member`, { token: org.admin.token })).status).toBe(204);
    });

    it('lets a member leave, but not remove others (403)', async () => {
      const org = await t.organization();
      const editor = await t.member(org.id, 'create');
      const guest = await t.member(org.id, null);
      const denied = await t.request('DELETE', `/v1/orgs/${org.id}/members/${guest.user.id}`, { token: editor.token });
      expect(denied.status).toBe(403);
      expect((await member(org.id, org.admin.token, guest.user.id)).status).toBe(200);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/members/${guest.user.id}`, { token: guest.token })).status).toBe(204);
      expect((await member(org.id, org.admin.token, guest.user.id)).status).toBe(404);
    });

    it('refuses to remove the last admin (409) until another admin exists', async () => {
      const org = await t.organization();
      const last = await t.request('DELETE', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: org.admin.token });
      expect(last.status).toBe(409);
      expect(last.body.error.message).toMatch(/^userId: .*last admin/);
      expect((await member(org.id, org.admin.token, org.admin.user.id)).body.role).toBe('admin');
      const second = await t.member(org.id, 'admin');
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: org.admin.token })).status).toBe(204);
      expect((await member(org.id, second.token, org.admin.user.id)).status).toBe(404);
    });

    it('is 404 for non-members and unknown organizations, 401 without a token', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const stranger = await t.user();
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/unknown-org/members/${reader.user.id}`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/members/${reader.user.id}`)).status).toBe(401);
      expect((await member(org.id, org.admin.token, reader.user.id)).status).toBe(200);
    });
  });

  describe('PATCH /v1/orgs/:id/members/:userId (updateMemberInOrganizationById)', () => {
    it('changes a role, null making a guest', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const res = await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token, body: { role: 'review' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'member', id: reader.user.id, role: 'review' });
      expect((await member(org.id, reader.token, reader.user.id)).body.role).toBe('review');
      const guest = await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token, body: { role: null } });
      expect(guest.body.role).toBeNull();
      expect((await member(org.id, org.admin.token, reader.user.id)).body.role).toBeNull();
      // As a guest they can no longer list members.
      expect((await t.request('GET', `/v1/orgs/${org.id}/members`, { token: reader.token })).status).toBe(403);
      const promoted = await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token, body: { role: 'admin' } });
      expect(promoted.body.role).toBe('admin');
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: reader.token })).body.permissions.admin).toBe(true);
    });

    it('refuses bad bodies naming the field', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const cases: Array<[unknown, RegExp]> = [
        [{ role: 'owner' }, /^role: must be one of: admin, create, review, edit, comment, read, null$/],
        [{ role: 5 }, /^role: must be string/],
        [{ role: ['read'] }, /^role: /],
        [{}, /must have at least 1 member/],
        [[], /^body: must be object/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      }
      const malformed = await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token, rawBody: '{"role": ' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      const missing = await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toMatch(/^body: /);
      expect((await member(org.id, org.admin.token, reader.user.id)).body.role).toBe('read');
    });

    it('refuses to demote the last admin (409), even to a guest', async () => {
      const org = await t.organization();
      for (const role of ['edit', null]) {
        const res = await t.request('PATCH', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: org.admin.token, body: { role } });
        expect(res.status).toBe(409);
        expect(res.body.error.message).toMatch(/^userId: .*last admin/);
      }
      // Keeping the admin role is not a demotion.
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: org.admin.token, body: { role: 'admin' } })).status).toBe(200);
      const second = await t.member(org.id, 'admin');
      const demoted = await t.request('PATCH', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: second.token, body: { role: 'edit' } });
      expect(demoted.status).toBe(200);
      expect(demoted.body.role).toBe('edit');
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/members/${second.user.id}`, { token: second.token, body: { role: 'read' } })).status).toBe(409);
    });

    it('keeps an admin when two demotions race', async () => {
      const orgs = await Promise.all([1, 2, 3, 4].map(() => t.organization()));
      for (const org of orgs) {
        const second = await t.member(org.id, 'admin');
        // The same admin demotes the other admin and themselves at once: exactly one of the two may succeed. The other
        // is refused as the last admin's demotion (409) or, when the self-demotion committed before it was authorized,
        // because its caller is no longer an admin (403): both keep an admin.
        const results = await Promise.all([
          t.request('PATCH', `/v1/orgs/${org.id}/members/${second.user.id}`, { token: org.admin.token, body: { role: 'read' } }),
          t.request('PATCH', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: org.admin.token, body: { role: 'read' } }),
        ]);
        const statuses = results.map((r) => r.status).sort();
        expect(statuses[0]).toBe(200);
        expect([403, 409]).toContain(statuses[1]);
        const admins = await t.container.ctx.db
          .selectFrom('members')
          .select('user_id')
          .where('organization_id', '=', org.id)
          .where('role', '=', 'admin')
          .execute();
        expect(admins).toHaveLength(1);
      }
    });

    it('is 403 for non-admins, 404 for unknown users and non-members, 401 without a token', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const creator = await t.member(org.id, 'create');
      const denied = await t.request('PATCH', `/v1/orgs/${org.id}/members/${creator.user.id}`, { token: reader.token, body: { role: 'admin' } });
      expect(denied.status).toBe(403);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: reader.token, body: { role: 'admin' } })).status).toBe(403);
      expect((await member(org.id, org.admin.token, creator.user.id)).body.role).toBe('create');
      const unknown = await t.request('PATCH', `/v1/orgs/${org.id}/members/no-such-user`, { token: org.admin.token, body: { role: 'read' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^userId: /);
      const stranger = await t.user();
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: stranger.token, body: { role: 'admin' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/orgs/unknown-org/members/${reader.user.id}`, { token: org.admin.token, body: { role: 'admin' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/members/${reader.user.id}`, { body: { role: 'admin' } })).status).toBe(401);
    });
  });

  describe('POST /v1/orgs/:id/ping (updateOrganizationMemberLastSeenAt)', () => {
    it('records that the caller was seen, guests included', async () => {
      const org = await t.organization();
      const guest = await t.member(org.id, null);
      expect((await member(org.id, org.admin.token, guest.user.id)).body.lastSeenAt).toBeUndefined();
      const before = Date.now();
      const res = await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: guest.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['serviceVisitorClaims']);
      const seen = (await member(org.id, org.admin.token, guest.user.id)).body.lastSeenAt as string;
      expect(Date.parse(seen)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(seen)).toBeLessThanOrEqual(Date.now());
      const listed = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { sort: 'lastSeenAt' } });
      expect(listed.body.items.map((m: any) => m.id)).toEqual([guest.user.id]);
      // Only the caller's own membership changes.
      expect((await member(org.id, org.admin.token, org.admin.user.id)).body.lastSeenAt).toBeUndefined();
    });

    it('is 404 for non-members and unknown organizations, 401 without a token', async () => {
      const org = await t.organization();
      const stranger = await t.user();
      expect((await t.request('POST', `/v1/orgs/${org.id}/ping`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('POST', '/v1/orgs/unknown-org/ping', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('POST', `/v1/orgs/${org.id}/ping`)).status).toBe(401);
      const members = await t.container.ctx.db.selectFrom('members').select('last_seen_at').where('organization_id', '=', org.id).execute();
      expect(members.map((m) => m.last_seen_at)).toEqual([null]);
    });
  });

  describe('POST /v1/orgs/:id/members/:userId/sso (setUserAsSSOMemberForOrganization)', () => {
    it('marks a member as an SSO member (admin)', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const res = await t.request('POST', `/v1/orgs/${org.id}/members/${reader.user.id}/sso`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'member', id: reader.user.id, sso: true });
      expect((await member(org.id, reader.token, reader.user.id)).body.sso).toBe(true);
      expect((await member(org.id, reader.token, org.admin.user.id)).body.sso).toBe(false);
    });

    it('is 403 for non-admins, 404 for unknown users and non-members, 401 without a token', async () => {
      const org = await t.organization();
      const creator = await t.member(org.id, 'create');
      expect((await t.request('POST', `/v1/orgs/${org.id}/members/${creator.user.id}/sso`, { token: creator.token })).status).toBe(403);
      expect((await member(org.id, org.admin.token, creator.user.id)).body.sso).toBe(false);
      const unknown = await t.request('POST', `/v1/orgs/${org.id}/members/no-such-user/sso`, { token: org.admin.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^userId: /);
      const stranger = await t.user();
      expect((await t.request('POST', `/v1/orgs/${org.id}/members/${creator.user.id}/sso`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('POST', `/v1/orgs/unknown-org/members/${creator.user.id}/sso`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('POST', `/v1/orgs/${org.id}/members/${creator.user.id}/sso`)).status).toBe(401);
    });
  });

  describe('GET /v1/orgs/:id/members/:userId/spaces (listSpacesForOrganizationMember)', () => {
    let org: Awaited<ReturnType<TestApp['organization']>>;
    let reader: TestUser;
    let guest: TestUser;
    let older: string;
    let newer: string;
    let open: string;

    beforeAll(async () => {
      org = await t.organization('Spaces Co');
      reader = await t.member(org.id, 'read');
      guest = await t.member(org.id, null);
      older = await space(org.id, 'Older', '2024-03-01T00:00:00.000Z');
      newer = await space(org.id, 'Newer', '2024-03-02T00:00:00.000Z');
      open = await space(org.id, 'Open', '2024-03-03T00:00:00.000Z', { visibility: 'public' });
      const gone = await space(org.id, 'Gone', '2024-03-04T00:00:00.000Z', { deleted: true });
      await t.grant(org.id, { space: older }, { user: guest.user.id }, 'edit');
      // A second, weaker grant on the same space: still one space.
      await t.grant(org.id, { space: older }, { user: guest.user.id }, 'read');
      await t.grant(org.id, { space: newer }, { user: reader.user.id }, 'review');
      await t.grant(org.id, { space: gone }, { user: guest.user.id }, 'admin');
    });

    it('lists the spaces a member can access with their role, newest first', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/spaces`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => [i.space.id, i.permission])).toEqual([
        [open, 'read'],
        [newer, 'review'],
        [older, 'read'],
      ]);
      expect(res.body.count).toBe(3);
      // The embedded space carries the caller's permissions (an admin here), not the listed member's.
      expect(res.body.items[1].space).toMatchObject({ object: 'space', title: 'Newer', organization: org.id, permissions: { admin: true } });
    });

    it('lists only granted and public spaces for a guest, in the order asked', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/members/${guest.user.id}/spaces`, { token: guest.token, query: { order: 'asc' } });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => [i.space.id, i.permission])).toEqual([
        [older, 'edit'],
        [open, 'read'],
      ]);
      expect(res.body.items[0].space.permissions).toMatchObject({ edit: true, admin: false });
    });

    it('counts direct grants on live spaces in the member object', async () => {
      expect((await member(org.id, org.admin.token, guest.user.id)).body.spaces).toBe(1);
      expect((await member(org.id, org.admin.token, reader.user.id)).body.spaces).toBe(1);
      expect((await member(org.id, org.admin.token, org.admin.user.id)).body.spaces).toBe(0);
    });

    it('pages with limit and next', async () => {
      const first = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/spaces`, { token: reader.token, query: { limit: 2 } });
      expect(first.body.items.map((i: any) => i.space.id)).toEqual([open, newer]);
      const second = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/spaces`, {
        token: reader.token,
        query: { limit: 2, page: first.body.next.page },
      });
      expect(second.body.items.map((i: any) => i.space.id)).toEqual([older]);
      expect(second.body.next).toBeUndefined();
      // Another member's list does not accept the token.
      const foreign = await t.request('GET', `/v1/orgs/${org.id}/members/${guest.user.id}/spaces`, { token: org.admin.token, query: { page: first.body.next.page } });
      expect(foreign.status).toBe(400);
    });

    it('refuses bad query values naming the parameter', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ order: 'up' }, /^order: must be one of: asc, desc$/],
        [{ limit: '2000' }, /^limit: /],
        [{ limit: 'x' }, /^limit: /],
      ];
      for (const [query, message] of cases) {
        const res = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/spaces`, { token: org.admin.token, query });
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(res.body.error.message).toMatch(message);
      }
    });

    it('is 403 for a non-admin listing someone else, 404 for unknown users and non-members, 401 without a token', async () => {
      const creator = await t.member(org.id, 'create');
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${guest.user.id}/spaces`, { token: creator.token })).status).toBe(403);
      const unknown = await t.request('GET', `/v1/orgs/${org.id}/members/no-such-user/spaces`, { token: org.admin.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^userId: /);
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${stranger.user.id}/spaces`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${stranger.user.id}/spaces`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${guest.user.id}/spaces`)).status).toBe(401);
    });
  });

  describe('GET /v1/orgs/:id/members/:userId/teams (listTeamsForOrganizationMember)', () => {
    let org: Awaited<ReturnType<TestApp['organization']>>;
    let reader: TestUser;
    let guest: TestUser;
    let docs: string;
    let design: string;

    beforeAll(async () => {
      org = await t.organization('Teams Co');
      reader = await t.member(org.id, 'read');
      guest = await t.member(org.id, null);
      docs = await createTeam(org.id, org.admin.token, 'Docs Writers', [reader.user.id, guest.user.id]);
      design = await createTeam(org.id, org.admin.token, 'Design', [reader.user.id]);
      await createTeam(org.id, org.admin.token, 'Elsewhere', []);
      const owner = await t.request('PUT', `/v1/orgs/${org.id}/teams/${design}/members/${reader.user.id}`, { token: org.admin.token, body: { role: 'owner' } });
      expect(owner.status).toBe(204);
    });

    it('lists the teams of a member with their team role, and counts them', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: org.admin.token });
      expect(res.status).toBe(200);
      const byId = new Map(res.body.items.map((i: any) => [i.team.id, i]));
      expect([...byId.keys()].sort()).toEqual([docs, design].sort());
      expect(byId.get(design)).toMatchObject({ team: { object: 'team', title: 'Design', members: 1, permissions: { admin: true, view: true } }, member: { role: 'owner' } });
      expect(byId.get(docs)).toMatchObject({ team: { title: 'Docs Writers', members: 2 }, member: { role: 'member' } });
      expect((await member(org.id, org.admin.token, reader.user.id)).body.teams).toBe(2);
      expect((await member(org.id, org.admin.token, guest.user.id)).body.teams).toBe(1);
    });

    it('filters by title, case-insensitively', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: reader.token, query: { title: 'WRITER' } });
      expect(res.body.items.map((i: any) => i.team.id)).toEqual([docs]);
      expect(res.body.items[0].team.permissions).toEqual({ admin: false, view: true });
    });

    it('pages with limit and next', async () => {
      const first = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: org.admin.token, query: { limit: 1 } });
      expect(first.body.count).toBe(1);
      const second = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: org.admin.token, query: { limit: 1, page: first.body.next.page } });
      expect(second.body.next).toBeUndefined();
      expect([first.body.items[0].team.id, second.body.items[0].team.id].sort()).toEqual([docs, design].sort());
    });

    it('lets a guest list their own teams but not anyone else’s (403)', async () => {
      const own = await t.request('GET', `/v1/orgs/${org.id}/members/${guest.user.id}/teams`, { token: guest.token });
      expect(own.status).toBe(200);
      expect(own.body.items.map((i: any) => [i.team.id, i.member.role])).toEqual([[docs, 'member']]);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: guest.token })).status).toBe(403);
    });

    it('refuses bad query values, 404 for unknown users and non-members, 401 without a token', async () => {
      const long = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: org.admin.token, query: { title: 'x'.repeat(513) } });
      expect(long.status).toBe(400);
      expect(long.body.error.message).toBe('title: must be at most 512 characters');
      const limit = await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: org.admin.token, query: { limit: '-5' } });
      expect(limit.body.error.message).toMatch(/^limit: /);
      const unknown = await t.request('GET', `/v1/orgs/${org.id}/members/no-such-user/teams`, { token: org.admin.token });
      expect(unknown.status).toBe(404);
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/unknown-org/members/${reader.user.id}/teams`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}/teams`)).status).toBe(401);
    });
  });

  describe('OpenAPI document', () => {
    it('publishes the member operations under the reference operationIds', async () => {
      const doc = (await t.request('GET', '/v1/openapi.json')).body;
      const base = '/v1/orgs/{organizationId}';
      expect(doc.paths[`${base}/members`].get.operationId).toBe('listMembersInOrganizationById');
      expect(doc.paths[`${base}/members/{userId}`].get.operationId).toBe('getMemberInOrganizationById');
      expect(doc.paths[`${base}/members/{userId}`].delete.operationId).toBe('removeMemberFromOrganizationById');
      expect(doc.paths[`${base}/members/{userId}`].patch.operationId).toBe('updateMemberInOrganizationById');
      expect(doc.paths[`${base}/ping`].post.operationId).toBe('updateOrganizationMemberLastSeenAt');
      expect(doc.paths[`${base}/members/{userId}/sso`].post.operationId).toBe('setUserAsSSOMemberForOrganization');
      expect(doc.paths[`${base}/members/{userId}/spaces`].get.operationId).toBe('listSpacesForOrganizationMember');
      expect(doc.paths[`${base}/members/{userId}/teams`].get.operationId).toBe('listTeamsForOrganizationMember');
    });
  });
});
