/**
 * `quire migrate`'s first step in an organization: its members (users matched by e-mail, created when unknown) and
 * its teams with their memberships. Apart from the other steps: it reads and writes people, not content.
 */
import { createUser } from '../identity/users.js';
import { addMember } from '../members/members.js';
import { createTeam, updateTeamMembers } from '../teams/teams.js';
import { fingerprintOf, roleOrNull, type MigrationRun } from './migration-run.js';
import type { SourceMember, SourceTeam } from './source-resources.js';
import { findUserByEmail } from '../../store/sql/users.js';
import { findMember } from '../../store/sql/members.js';

export async function copyMembers(run: MigrationRun, o: string, target: string): Promise<void> {
  const members = await run.copyOrSkip('members', o, () => run.source.list<SourceMember>(`members of ${o}`, (c, p) => c.orgs.listMembersInOrganizationById(o, p)));
  for (const member of members ?? []) {
    await run.copyOrSkip('member', member.user?.id ?? member.id, async () => {
      const email = member.user?.email;
      if (!email) throw new Error('the source gives no e-mail for this member: they cannot be matched to a user here');
      let user = await findUserByEmail(run.ctx.db, email);
      if (!user) {
        user = await createUser(run.ctx, { email, name: member.user.displayName });
        run.count('users');
      }
      await run.remember('user', member.user.id, user.id, null);
      if (!(await findMember(run.ctx.db, target, user.id))) {
        const role = roleOrNull(member.role);
        await addMember(run.ctx, target, user.id, role === undefined ? 'read' : role);
        run.count('members');
      }
    });
  }
}

export async function copyTeams(run: MigrationRun, o: string, target: string): Promise<void> {
  const teams = await run.copyOrSkip('teams', o, () => run.source.list<SourceTeam>(`teams of ${o}`, (c, p) => c.orgs.listTeamsInOrganizationById(o, p)));
  for (const team of teams ?? []) {
    await run.copyOrSkip('team', team.id, async () => {
      const members = await run.source.list<{ organization: SourceMember; team?: { role?: string } }>(`members of team ${team.id}`, (c, p) =>
        c.orgs.listTeamMembersInOrganizationById(o, team.id, p),
      );
      const memberships: Record<string, { role: 'owner' | 'member' }> = {};
      for (const entry of members) {
        const user = await run.userOf(entry.organization?.user);
        if (user && (await findMember(run.ctx.db, target, user.id))) memberships[user.id] = { role: entry.team?.role === 'owner' ? 'owner' : 'member' };
      }
      const fingerprint = fingerprintOf({ title: team.title, memberships });
      const existing = await run.mapped('team', team.id);
      if (existing?.fingerprint === fingerprint) return;
      const teamId = existing?.target_id ?? (await createTeam(run.ctx, run.actor, target, { title: team.title.slice(0, 64) })).team.id;
      if (!existing) await run.remember('team', team.id, teamId, null);
      if (Object.keys(memberships).length > 0) await updateTeamMembers(run.ctx, run.actor, target, teamId, { memberships });
      await run.remember('team', team.id, teamId, fingerprint);
      run.count('teams');
    });
  }
}
