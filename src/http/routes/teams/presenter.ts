import type { MemberTeamView, TeamView } from '../../../domain/members/members.js';
import type { TeamMemberView, TeamRole } from '../../../domain/teams/teams.js';
import { teamPermissions } from '../../../domain/permissions.js';
import type { Urls } from '../../urls.js';
import { presentMember } from '../members/presenter.js';

export function presentTeam(view: TeamView) {
  const team = view.team;
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members: view.members,
    spaces: view.spaces,
    createdAt: team.created_at,
    permissions: teamPermissions(view.access, team.id),
  };
}

/** An item of a team's members (listTeamMembersInOrganizationById). */
export function presentTeamMember(urls: Urls, view: TeamMemberView) {
  return { organization: presentMember(urls, view.member), team: { role: view.role }, permissions: { view: view.canView } };
}

/** An item of a member's teams (listTeamsForOrganizationMember). */
export function presentMemberTeam(view: MemberTeamView) {
  return { team: presentTeam(view.team), member: { role: view.role as TeamRole } };
}
