import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { newId } from '../../src/domain/ids.js';
import { insertGrant, insertSpace } from '../../src/store/sql/spaces.js';
import { spaceRow } from '../helpers/rows.js';
import { nextMillisecond } from '../helpers/wait.js';

type Org = Awaited<ReturnType<TestApp['organization']>>;

describe.each(DATABASE_KINDS)('teams (%s)', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  // ---- factories and helpers

  async function createTeam(org: Org, title: string, members: string[] = []): Promise<string> {
    const res = await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, body: { title, members } });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function setTeamRole(org: Org, teamId: string, userId: string, role: 'owner' | 'member'): Promise<void> {
    const res = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members/${userId}`, { token: org.admin.token, body: { role } });
    expect(res.status).toBe(204);
  }

  /** The team's seats as the database holds them: user id -> team role. */
  async function seats(teamId: string): Promise<Record<string, string>> {
    const rows = await t.container.ctx.db.selectFrom('team_members').select(['user_id', 'role']).where('team_id', '=', teamId).execute();
    return Object.fromEntries(rows.map((r) => [r.user_id, r.role]));
  }

  async function teamSpaceGrant(org: Org, teamId: string, createdAt: string): Promise<string> {
    const spaceId = newId();
    await insertSpace(t.container.ctx.db, spaceRow({ id: spaceId, organization_id: org.id, title: 'Team space', revision: 'b'.repeat(40), created_at: createdAt }));
    await insertGrant(t.container.ctx.db, {
      id: newId(),
      organization_id: org.id,
      space_id: spaceId,
      collection_id: null,
      team_id: teamId,
      user_id: null,
      role: 'edit',
      created_at: createdAt,
    });
    return spaceId;
  }

  describe('GET /v1/orgs/:id/teams (listTeamsInOrganizationById)', () => {
    let org: Org;
    let reader: TestUser;
    let owner: TestUser;
    let alpha: string;
    let beta: string;
    let gamma: string;

    beforeAll(async () => {
      org = await t.organization('List Co');
      reader = await t.member(org.id, 'read');
      owner = await t.member(org.id, 'edit');
      alpha = await createTeam(org, 'Alpha Writers', [reader.user.id, owner.user.id]);
      beta = await createTeam(org, 'Beta Reviewers', [reader.user.id]);
      gamma = await createTeam(org, 'Gamma', []);
      await setTeamRole(org, beta, owner.user.id, 'owner');
      const spaceId = await teamSpaceGrant(org, alpha, '2024-05-01T00:00:00.000Z');
      // A second grant on the same space: still one space.
      await insertGrant(t.container.ctx.db, {
        id: newId(),
        organization_id: org.id,
        space_id: spaceId,
        collection_id: null,
        team_id: alpha,
        user_id: null,
        role: 'read',
        created_at: '2024-05-02T00:00:00.000Z',
      });
    });

    it('lists the teams with their counts and the caller permissions', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(3);
      const byId = new Map(res.body.items.map((team: any) => [team.id, team]));
      expect(byId.get(alpha)).toEqual({
        object: 'team',
        id: alpha,
        title: 'Alpha Writers',
        members: 2,
        spaces: 1,
        createdAt: expect.any(String),
        permissions: { admin: false, view: true },
      });
      expect(byId.get(beta)).toMatchObject({ members: 2, spaces: 0, permissions: { admin: true, view: true } });
      expect(byId.get(gamma)).toMatchObject({ members: 0, permissions: { admin: false, view: true } });
      const asAdmin = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: org.admin.token });
      expect(asAdmin.body.items.every((team: any) => team.permissions.admin)).toBe(true);
    });

    it('filters by owner and by title', async () => {
      const owned = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: reader.token, query: { owner: owner.user.id } });
      expect(owned.body.items.map((team: any) => team.id)).toEqual([beta]);
      const none = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: reader.token, query: { owner: reader.user.id } });
      expect(none.body.items).toEqual([]);
      const titled = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: reader.token, query: { title: 'wRiTeR' } });
      expect(titled.body.items.map((team: any) => team.id)).toEqual([alpha]);
      const both = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: reader.token, query: { title: 'alpha', owner: owner.user.id } });
      expect(both.body.items).toEqual([]);
    });

    it('pages with limit and next, without repeating a team', async () => {
      const first = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, query: { limit: 2 } });
      expect(first.body.count).toBe(2);
      expect(first.body.next.page).toEqual(expect.any(String));
      const second = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, query: { limit: 2, page: first.body.next.page } });
      expect(second.body.count).toBe(1);
      expect(second.body.next).toBeUndefined();
      const ids = [...first.body.items, ...second.body.items].map((team: any) => team.id);
      expect(ids.sort()).toEqual([alpha, beta, gamma].sort());
    });

    it('refuses bad query values naming the parameter', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ limit: '1001' }, /^limit: /],
        [{ limit: 'many' }, /^limit: /],
        [{ title: 'x'.repeat(513) }, /^title: must be at most 512 characters$/],
        [{ owner: '' }, /^owner: must be at least 1 character$/],
        [{ page: 'nope' }, /^page: /],
      ];
      for (const [query, message] of cases) {
        const res = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, query });
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(res.body.error.message, JSON.stringify(query)).toMatch(message);
      }
    });

    it('is 403 for guests, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const guest = await t.member(org.id, null);
      const denied = await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: guest.token });
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/listTeams/);
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/orgs/unknown-org/teams', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams`)).status).toBe(401);
    });
  });

  describe('PUT /v1/orgs/:id/teams (createOrganizationTeam)', () => {
    it('creates a team (201) with its initial members', async () => {
      const org = await t.organization();
      const a = await t.member(org.id, 'read');
      const b = await t.member(org.id, null);
      const res = await t.request('PUT', `/v1/orgs/${org.id}/teams`, {
        token: org.admin.token,
        body: { title: 'x'.repeat(64), members: [a.user.id, b.user.id, a.user.id] },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'team', title: 'x'.repeat(64), members: 2, spaces: 0, permissions: { admin: true, view: true } });
      expect(Number.isInteger(res.body.members)).toBe(true);
      expect(await seats(res.body.id)).toEqual({ [a.user.id]: 'member', [b.user.id]: 'member' });
      const read = await t.request('GET', `/v1/orgs/${org.id}/teams/${res.body.id}`, { token: a.token });
      expect(read.body).toMatchObject({ id: res.body.id, title: 'x'.repeat(64), members: 2 });
      const minimal = await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, body: { title: 'Q' } });
      expect(minimal.status).toBe(201);
      expect(minimal.body.members).toBe(0);
    });

    it('refuses bad bodies naming the field, and creates nothing', async () => {
      const org = await t.organization();
      const outsider = await t.user();
      const cases: Array<[unknown, RegExp]> = [
        [{ title: '' }, /^title: must be at least 1 character$/],
        [{ title: 'x'.repeat(65) }, /^title: must be at most 64 characters$/],
        [{ title: 42 }, /^title: must be string$/],
        [{}, /^title: is required$/],
        [{ members: [] }, /^title: is required$/],
        [{ title: 'T', members: 'someone' }, /^members: must be array$/],
        [{ title: 'T', members: [7] }, /^members\[0\]: must be string$/],
        [{ title: 'T', members: [''] }, /^members\[0\]: must be at least 1 character$/],
        [{ title: 'T', members: [org.admin.user.id, outsider.user.id] }, /^members\[1\]: .* is not a member of this organization$/],
        [{ title: 'T', members: ['no-such-user'] }, /^members\[0\]: /],
        ['T', /^body: must be object$/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      }
      const malformed = await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, rawBody: '{"title": "T"' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      const missing = await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: org.admin.token });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toBe('body: must be object');
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: org.admin.token })).body.items).toEqual([]);
    });

    it('is 403 for non-admins (team owners included), 404 for non-members, 401 without a token', async () => {
      const org = await t.organization();
      const creator = await t.member(org.id, 'create');
      const teamId = await createTeam(org, 'Owned');
      await setTeamRole(org, teamId, creator.user.id, 'owner');
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: creator.token, body: { title: 'Mine' } })).status).toBe(403);
      const stranger = await t.user();
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: stranger.token, body: { title: 'Mine' } })).status).toBe(404);
      expect((await t.request('PUT', '/v1/orgs/unknown-org/teams', { token: org.admin.token, body: { title: 'Mine' } })).status).toBe(404);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams`, { body: { title: 'Mine' } })).status).toBe(401);
      const titles = (await t.request('GET', `/v1/orgs/${org.id}/teams`, { token: org.admin.token })).body.items.map((team: any) => team.title);
      expect(titles).toEqual(['Owned']);
    });
  });

  describe('GET /v1/orgs/:id/teams/:teamId (getTeamInOrganizationById)', () => {
    it('shows a team to non-guest members and to the guests in it', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const guest = await t.member(org.id, null);
      const teamId = await createTeam(org, 'Support', [guest.user.id]);
      const byReader = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: reader.token });
      expect(byReader.status).toBe(200);
      expect(byReader.body).toMatchObject({ object: 'team', id: teamId, title: 'Support', members: 1, permissions: { admin: false, view: true } });
      const byGuest = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: guest.token });
      expect(byGuest.status).toBe(200);
      expect(byGuest.body.permissions).toEqual({ admin: false, view: true });
    });

    it('is 404 for guests outside the team, unknown teams, other organizations’ teams and non-members; 401 without a token', async () => {
      const org = await t.organization();
      const guest = await t.member(org.id, null);
      const teamId = await createTeam(org, 'Hidden');
      const hidden = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: guest.token });
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.message).toMatch(/^teamId: /);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/no-such-team`, { token: org.admin.token })).status).toBe(404);
      const other = await t.organization();
      expect((await t.request('GET', `/v1/orgs/${other.id}/teams/${teamId}`, { token: other.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: other.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`)).status).toBe(401);
    });
  });

  describe('DELETE /v1/orgs/:id/teams/:teamId (removeTeamFromOrganizationById)', () => {
    it('deletes a team with its seats and grants (204), and answers 204 again', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const teamId = await createTeam(org, 'Temporary', [reader.user.id]);
      await teamSpaceGrant(org, teamId, '2024-06-01T00:00:00.000Z');
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token })).body.teams).toBe(1);
      const res = await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/members/${reader.user.id}`, { token: org.admin.token })).body.teams).toBe(0);
      expect(await seats(teamId)).toEqual({});
      const grants = await t.container.ctx.db.selectFrom('content_grants').selectAll().where('team_id', '=', teamId).execute();
      expect(grants).toEqual([]);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).status).toBe(204);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/no-such-team`, { token: org.admin.token })).status).toBe(204);
    });

    it('never deletes a team of another organization', async () => {
      const org = await t.organization();
      const teamId = await createTeam(org, 'Precious');
      const other = await t.organization();
      expect((await t.request('DELETE', `/v1/orgs/${other.id}/teams/${teamId}`, { token: other.admin.token })).status).toBe(204);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).status).toBe(200);
    });

    it('is 403 for non-admins (the team’s owner included), 404 for non-members, 401 without a token', async () => {
      const org = await t.organization();
      const owner = await t.member(org.id, 'create');
      const teamId = await createTeam(org, 'Kept');
      await setTeamRole(org, teamId, owner.user.id, 'owner');
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}`, { token: owner.token })).status).toBe(403);
      const stranger = await t.user();
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/unknown-org/teams/${teamId}`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}`)).status).toBe(401);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).status).toBe(200);
    });
  });

  describe('PATCH /v1/orgs/:id/teams/:teamId (updateTeamInOrganizationById)', () => {
    it('renames a team, for admins and for the team’s owners only', async () => {
      const org = await t.organization();
      const owner = await t.member(org.id, 'read');
      const mine = await createTeam(org, 'Mine', [owner.user.id]);
      const theirs = await createTeam(org, 'Theirs', [owner.user.id]);
      await setTeamRole(org, mine, owner.user.id, 'owner');
      const res = await t.request('PATCH', `/v1/orgs/${org.id}/teams/${mine}`, { token: owner.token, body: { title: 'Renamed' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: mine, title: 'Renamed', members: 1, permissions: { admin: true, view: true } });
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${mine}`, { token: org.admin.token })).body.title).toBe('Renamed');
      const denied = await t.request('PATCH', `/v1/orgs/${org.id}/teams/${theirs}`, { token: owner.token, body: { title: 'Hijacked' } });
      expect(denied.status).toBe(403);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${theirs}`, { token: org.admin.token })).body.title).toBe('Theirs');
      const byAdmin = await t.request('PATCH', `/v1/orgs/${org.id}/teams/${theirs}`, { token: org.admin.token, body: { title: 'T' } });
      expect(byAdmin.body.title).toBe('T');
    });

    it('refuses bad bodies naming the field', async () => {
      const org = await t.organization();
      const teamId = await createTeam(org, 'Stable');
      const cases: Array<[unknown, RegExp]> = [
        [{ title: '' }, /^title: must be at least 1 character$/],
        [{ title: 'x'.repeat(65) }, /^title: must be at most 64 characters$/],
        [{ title: null }, /^title: must be string$/],
        [{}, /^title: is required$/],
        [[{ title: 'A' }], /^body: must be object$/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PATCH', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      }
      const malformed = await t.request('PATCH', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token, rawBody: '{title: "A"}' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).body.title).toBe('Stable');
    });

    it('is 403 for plain members, 404 for guests outside it, unknown teams and non-members, 401 without a token', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const guest = await t.member(org.id, null);
      const teamId = await createTeam(org, 'Fixed', [reader.user.id]);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/teams/${teamId}`, { token: reader.token, body: { title: 'No' } })).status).toBe(403);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/teams/${teamId}`, { token: guest.token, body: { title: 'No' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/teams/no-such-team`, { token: org.admin.token, body: { title: 'No' } })).status).toBe(404);
      const stranger = await t.user();
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/teams/${teamId}`, { token: stranger.token, body: { title: 'No' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/teams/${teamId}`, { body: { title: 'No' } })).status).toBe(401);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).body.title).toBe('Fixed');
    });
  });

  describe('GET /v1/orgs/:id/teams/:teamId/members (listTeamMembersInOrganizationById)', () => {
    let org: Org;
    let reader: TestUser;
    let guest: TestUser;
    let teamId: string;

    beforeAll(async () => {
      org = await t.organization('Roster Co');
      reader = await t.member(org.id, 'read');
      guest = await t.member(org.id, null);
      teamId = await createTeam(org, 'Roster');
      // Added one by one so that their order (oldest seat first) is known.
      await setTeamRole(org, teamId, org.admin.user.id, 'owner');
      await nextMillisecond();
      await setTeamRole(org, teamId, reader.user.id, 'member');
      await nextMillisecond();
      await setTeamRole(org, teamId, guest.user.id, 'member');
    });

    it('lists the team members as OrganizationTeamMember items, oldest seat first', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: reader.token });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => [i.organization.id, i.team.role])).toEqual([
        [org.admin.user.id, 'owner'],
        [reader.user.id, 'member'],
        [guest.user.id, 'member'],
      ]);
      expect(res.body.items[1]).toEqual({
        organization: expect.objectContaining({ object: 'member', id: reader.user.id, role: 'read', teams: 1, user: expect.objectContaining({ id: reader.user.id }) }),
        team: { role: 'member' },
        permissions: { view: true },
      });
    });

    it('lets a guest in the team list it, seeing only themselves as readable', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: guest.token });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => [i.organization.id, i.permissions.view])).toEqual([
        [org.admin.user.id, false],
        [reader.user.id, false],
        [guest.user.id, true],
      ]);
    });

    it('pages with limit and next', async () => {
      const first = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, query: { limit: 2 } });
      expect(first.body.items.map((i: any) => i.organization.id)).toEqual([org.admin.user.id, reader.user.id]);
      const second = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, query: { limit: 2, page: first.body.next.page } });
      expect(second.body.items.map((i: any) => i.organization.id)).toEqual([guest.user.id]);
      expect(second.body.next).toBeUndefined();
      const bad = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, query: { limit: '-1' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^limit: /);
    });

    it('is 404 for guests outside the team, unknown teams and non-members, 401 without a token', async () => {
      const outsider = await t.member(org.id, null);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: outsider.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/no-such-team/members`, { token: org.admin.token })).status).toBe(404);
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`)).status).toBe(401);
    });
  });

  describe('PUT /v1/orgs/:id/teams/:teamId/members (updateMembersInOrganizationTeam)', () => {
    let org: Org;
    let a: TestUser;
    let b: TestUser;
    let c: TestUser;
    let outsider: TestUser;

    beforeAll(async () => {
      org = await t.organization('Batch Co');
      a = await t.member(org.id, 'read');
      b = await t.member(org.id, 'edit');
      c = await t.member(org.id, null);
      outsider = await t.user();
    });

    it('adds by user id or e-mail address (any case) and removes, in one call', async () => {
      const teamId = await createTeam(org, 'Batch', [c.user.id]);
      const res = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, {
        token: org.admin.token,
        body: { add: [a.user.id, b.user.email.toUpperCase()], remove: [c.user.email] },
      });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expect(await seats(teamId)).toEqual({ [a.user.id]: 'member', [b.user.id]: 'member' });
      const listed = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token });
      expect(listed.body.items.map((i: any) => i.organization.id).sort()).toEqual([a.user.id, b.user.id].sort());
      // Removing someone who is not in the team (or unknown) is harmless; an empty body changes nothing.
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, body: { remove: ['nobody', 'nobody@example.com'] } })).status).toBe(204);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, body: {} })).status).toBe(204);
      expect(await seats(teamId)).toEqual({ [a.user.id]: 'member', [b.user.id]: 'member' });
    });

    it('removes a user who is in both add and remove, however each names them', async () => {
      const teamId = await createTeam(org, 'Both', [b.user.id]);
      const res = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, {
        token: org.admin.token,
        body: { add: [a.user.email, b.user.id, c.user.id], remove: [a.user.id, b.user.email] },
      });
      expect(res.status).toBe(204);
      expect(await seats(teamId)).toEqual({ [c.user.id]: 'member' });
      // Removal wins over memberships as well.
      await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, {
        token: org.admin.token,
        body: { memberships: { [c.user.id]: { role: 'owner' } }, remove: [c.user.id] },
      });
      expect(await seats(teamId)).toEqual({});
    });

    it('sets roles with memberships, adding the users it names', async () => {
      const teamId = await createTeam(org, 'Roles', [a.user.id]);
      const res = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, {
        token: org.admin.token,
        body: { add: [b.user.id], memberships: { [a.user.id]: { role: 'owner' }, [c.user.id]: { role: 'member' } } },
      });
      expect(res.status).toBe(204);
      expect(await seats(teamId)).toEqual({ [a.user.id]: 'owner', [b.user.id]: 'member', [c.user.id]: 'member' });
      // add keeps an existing seat's role; memberships can lower it again.
      await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, body: { add: [a.user.id] } });
      expect((await seats(teamId))[a.user.id]).toBe('owner');
      await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, body: { memberships: { [a.user.id]: { role: 'member' } } } });
      expect((await seats(teamId))[a.user.id]).toBe('member');
      const listed = await t.request('GET', `/v1/orgs/${org.id}/members/${c.user.id}/teams`, { token: c.token });
      expect(listed.body.items.map((i: any) => [i.team.id, i.member.role])).toEqual([[teamId, 'member']]);
    });

    it('refuses bad bodies naming the field, and changes nothing', async () => {
      const teamId = await createTeam(org, 'Strict', [a.user.id]);
      const cases: Array<[unknown, RegExp]> = [
        [{ add: a.user.id }, /^add: must be array$/],
        [{ add: [5] }, /^add\[0\]: must be string$/],
        [{ add: [''] }, /^add\[0\]: must be at least 1 character$/],
        [{ remove: 'x' }, /^remove: must be array$/],
        [{ memberships: [] }, /^memberships: must be object$/],
        [{ memberships: { [b.user.id]: 'owner' } }, new RegExp(`^memberships\\.${b.user.id}: must be object$`)],
        [{ memberships: { [b.user.id]: { role: 'boss' } } }, new RegExp(`^memberships\\.${b.user.id}\\.role: must be one of: owner, member$`)],
        [{ memberships: { [b.user.id]: {} } }, new RegExp(`^memberships\\.${b.user.id}\\.role: is required$`)],
        [{ add: [b.user.id, outsider.user.id] }, /^add\[1\]: .* is not a member of this organization$/],
        [{ add: [outsider.user.email] }, /^add\[0\]: /],
        [{ add: ['nobody@example.com'] }, /^add\[0\]: /],
        [{ add: [b.user.id], memberships: { [outsider.user.id]: { role: 'owner' } } }, new RegExp(`^memberships\\.${outsider.user.id}: `)],
        ['add', /^body: must be object$/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      }
      const malformed = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token, rawBody: '{"add": [' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      const missing = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toBe('body: must be object');
      expect(await seats(teamId)).toEqual({ [a.user.id]: 'member' });
    });

    it('lets a team owner manage their team but not other teams, nor plain team members (403)', async () => {
      const mine = await createTeam(org, 'Owned', [a.user.id]);
      const other = await createTeam(org, 'Other', [a.user.id]);
      await setTeamRole(org, mine, a.user.id, 'owner');
      const ok = await t.request('PUT', `/v1/orgs/${org.id}/teams/${mine}/members`, { token: a.token, body: { add: [b.user.id], memberships: { [c.user.id]: { role: 'owner' } } } });
      expect(ok.status).toBe(204);
      expect(await seats(mine)).toEqual({ [a.user.id]: 'owner', [b.user.id]: 'member', [c.user.id]: 'owner' });
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${other}/members`, { token: a.token, body: { add: [b.user.id] } })).status).toBe(403);
      // A guest who owns the team manages it as well.
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${mine}/members`, { token: c.token, body: { remove: [b.user.id] } })).status).toBe(204);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${mine}/members`, { token: b.token, body: { add: [b.user.id] } })).status).toBe(403);
      expect(await seats(other)).toEqual({ [a.user.id]: 'member' });
      expect(await seats(mine)).toEqual({ [a.user.id]: 'owner', [c.user.id]: 'owner' });
    });

    it('is 404 for guests outside the team, unknown teams and non-members, 401 without a token', async () => {
      const teamId = await createTeam(org, 'Closed');
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: c.token, body: { add: [c.user.id] } })).status).toBe(404);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/no-such-team/members`, { token: org.admin.token, body: { add: [a.user.id] } })).status).toBe(404);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: outsider.token, body: { add: [a.user.id] } })).status).toBe(404);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members`, { body: { add: [a.user.id] } })).status).toBe(401);
      expect(await seats(teamId)).toEqual({});
    });
  });

  describe('PUT /v1/orgs/:id/teams/:teamId/members/:userId (addMemberToOrganizationTeamById)', () => {
    it('adds a member (as member without a body), changes the role, and keeps it when none is given', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const teamId = await createTeam(org, 'Single');
      const url = `/v1/orgs/${org.id}/teams/${teamId}/members/${reader.user.id}`;
      const added = await t.request('PUT', url, { token: org.admin.token });
      expect(added.status).toBe(204);
      expect(added.body).toBeUndefined();
      expect(await seats(teamId)).toEqual({ [reader.user.id]: 'member' });
      expect((await t.request('PUT', url, { token: org.admin.token, body: { role: 'owner' } })).status).toBe(204);
      expect(await seats(teamId)).toEqual({ [reader.user.id]: 'owner' });
      expect((await t.request('PUT', url, { token: org.admin.token, body: {} })).status).toBe(204);
      expect((await t.request('PUT', url, { token: org.admin.token, rawBody: '', headers: { 'content-type': 'application/json' } })).status).toBe(204);
      expect(await seats(teamId)).toEqual({ [reader.user.id]: 'owner' });
      const team = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: reader.token });
      expect(team.body).toMatchObject({ members: 1, permissions: { admin: true } });
    });

    it('refuses bad bodies naming the field', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const teamId = await createTeam(org, 'Checked');
      const url = `/v1/orgs/${org.id}/teams/${teamId}/members/${reader.user.id}`;
      const cases: Array<[unknown, RegExp]> = [
        [{ role: 'admin' }, /^role: must be one of: owner, member$/],
        [{ role: 1 }, /^role: must be string$/],
        [['owner'], /^body: must be object/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PUT', url, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      }
      const malformed = await t.request('PUT', url, { token: org.admin.token, rawBody: '{"role":' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      expect(await seats(teamId)).toEqual({});
    });

    it('lets team owners add to their team only; 403 for plain members', async () => {
      const org = await t.organization();
      const owner = await t.member(org.id, 'read');
      const reader = await t.member(org.id, 'read');
      const mine = await createTeam(org, 'Mine', [reader.user.id]);
      const other = await createTeam(org, 'Other');
      await setTeamRole(org, mine, owner.user.id, 'owner');
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${other}/members/${owner.user.id}`, { token: owner.token })).status).toBe(403);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${mine}/members/${org.admin.user.id}`, { token: reader.token })).status).toBe(403);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${mine}/members/${org.admin.user.id}`, { token: owner.token, body: { role: 'owner' } })).status).toBe(204);
      expect(await seats(mine)).toEqual({ [owner.user.id]: 'owner', [reader.user.id]: 'member', [org.admin.user.id]: 'owner' });
      expect(await seats(other)).toEqual({});
    });

    it('is 404 for users outside the organization, unknown teams and non-members; 401 without a token', async () => {
      const org = await t.organization();
      const teamId = await createTeam(org, 'Members only');
      const outsider = await t.user();
      const notMember = await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members/${outsider.user.id}`, { token: org.admin.token });
      expect(notMember.status).toBe(404);
      expect(notMember.body.error.message).toMatch(/^userId: /);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/no-such-team/members/${org.admin.user.id}`, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members/${outsider.user.id}`, { token: outsider.token })).status).toBe(404);
      expect((await t.request('PUT', `/v1/orgs/${org.id}/teams/${teamId}/members/${org.admin.user.id}`)).status).toBe(401);
      expect(await seats(teamId)).toEqual({});
    });
  });

  describe('DELETE /v1/orgs/:id/teams/:teamId/members/:userId (deleteMemberFromOrganizationTeamById)', () => {
    it('removes a member (204), and answers 204 when they are not in the team', async () => {
      const org = await t.organization();
      const reader = await t.member(org.id, 'read');
      const teamId = await createTeam(org, 'Leaving', [reader.user.id, org.admin.user.id]);
      const res = await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}/members/${reader.user.id}`, { token: org.admin.token });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expect(await seats(teamId)).toEqual({ [org.admin.user.id]: 'member' });
      expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).body.members).toBe(1);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}/members/${reader.user.id}`, { token: org.admin.token })).status).toBe(204);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}/members/no-such-user`, { token: org.admin.token })).status).toBe(204);
    });

    it('lets a member leave, a team owner remove from their team only, and refuses plain members (403)', async () => {
      const org = await t.organization();
      const owner = await t.member(org.id, 'read');
      const a = await t.member(org.id, 'read');
      const guest = await t.member(org.id, null);
      const mine = await createTeam(org, 'Mine', [a.user.id, guest.user.id]);
      const other = await createTeam(org, 'Other', [a.user.id]);
      await setTeamRole(org, mine, owner.user.id, 'owner');
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${mine}/members/${guest.user.id}`, { token: a.token })).status).toBe(403);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${other}/members/${a.user.id}`, { token: owner.token })).status).toBe(403);
      expect(await seats(other)).toEqual({ [a.user.id]: 'member' });
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${mine}/members/${a.user.id}`, { token: owner.token })).status).toBe(204);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${mine}/members/${guest.user.id}`, { token: guest.token })).status).toBe(204);
      expect(await seats(mine)).toEqual({ [owner.user.id]: 'owner' });
    });

    it('is 404 for teams the caller cannot see (even to leave them), unknown teams and non-members; 401 without a token', async () => {
      const org = await t.organization();
      const guest = await t.member(org.id, null);
      const teamId = await createTeam(org, 'Invisible');
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}/members/${guest.user.id}`, { token: guest.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/no-such-team/members/${guest.user.id}`, { token: guest.token })).status).toBe(404);
      const stranger = await t.user();
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}/members/${stranger.user.id}`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${teamId}/members/${guest.user.id}`)).status).toBe(401);
    });
  });

  describe('OpenAPI document', () => {
    it('publishes the team operations under the reference operationIds, with the title limits', async () => {
      const doc = (await t.request('GET', '/v1/openapi.json')).body;
      const base = '/v1/orgs/{organizationId}/teams';
      expect(doc.paths[base].get.operationId).toBe('listTeamsInOrganizationById');
      expect(doc.paths[base].put.operationId).toBe('createOrganizationTeam');
      expect(doc.paths[base].put.requestBody.content['application/json'].schema.properties.title).toMatchObject({ minLength: 1, maxLength: 64 });
      expect(doc.paths[`${base}/{teamId}`].get.operationId).toBe('getTeamInOrganizationById');
      expect(doc.paths[`${base}/{teamId}`].delete.operationId).toBe('removeTeamFromOrganizationById');
      expect(doc.paths[`${base}/{teamId}`].patch.operationId).toBe('updateTeamInOrganizationById');
      expect(doc.paths[`${base}/{teamId}/members`].get.operationId).toBe('listTeamMembersInOrganizationById');
      expect(doc.paths[`${base}/{teamId}/members`].put.operationId).toBe('updateMembersInOrganizationTeam');
      expect(doc.paths[`${base}/{teamId}/members/{userId}`].put.operationId).toBe('addMemberToOrganizationTeamById');
      expect(doc.paths[`${base}/{teamId}/members/{userId}`].delete.operationId).toBe('deleteMemberFromOrganizationTeamById');
    });
  });
});
