import { useLocation } from 'preact-iso';
import { api, appHref } from '../../api.js';
import { everything } from '../../lists.js';
import { useApi } from '../../use-api.js';
import { formFields, useAction } from '../../use-action.js';
import { Show, ErrorNotice } from '../../components/status.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import type { Member, Organization, Team, TeamMember } from '../../types.js';
import { OrgSettingsFrame, orgSettingsHref } from './frame.js';

const teamHref = (organizationId: string, teamId: string) => appHref(`/o/${organizationId}/settings/teams/${teamId}`);

function CreateTeam({ org }: { org: Organization }) {
  const { route } = useLocation();
  const action = useAction();
  const create = (event: Event) => {
    const { title } = formFields(event);
    return action.run(async () => {
      const team = await api<Team>(`/orgs/${org.id}/teams`, { method: 'PUT', body: { title } });
      route(teamHref(org.id, team.id));
    });
  };
  return (
    <form class="form form-inline" onSubmit={create}>
      <label for="team-title">New team</label>
      <input id="team-title" name="title" required maxLength={64} />
      <button type="submit" class="button" disabled={action.busy}>
        Make the team
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

/** The organization's teams; admins make new ones. */
function TeamList({ org }: { org: Organization }) {
  const [teams] = useApi(org.id, (signal) => everything<Team>(`/orgs/${org.id}/teams`, signal));
  return (
    <section aria-labelledby="teams-title">
      <h2 id="teams-title">Teams</h2>
      <Show loaded={teams} what="the teams">
        {(items) =>
          items.length === 0 ? (
            <p>No teams yet.</p>
          ) : (
            <ul class="rows">
              {items.map((team) => (
                <li key={team.id}>
                  <a href={teamHref(org.id, team.id)}>{team.title}</a>
                  <span class="muted">
                    {team.members} {team.members === 1 ? 'member' : 'members'}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      {org.permissions.admin && <CreateTeam org={org} />}
    </section>
  );
}

export function TeamsSettings({ organizationId }: { organizationId: string }) {
  return (
    <OrgSettingsFrame organizationId={organizationId} section="teams" title="Teams">
      {(org) => <TeamList org={org} />}
    </OrgSettingsFrame>
  );
}

function RenameTeam({ org, team, done }: { org: Organization; team: Team; done: () => void }) {
  const action = useAction();
  const rename = (event: Event) => {
    const { title } = formFields(event);
    return action.run(() => api(`/orgs/${org.id}/teams/${team.id}`, { method: 'PATCH', body: { title } }).then(done));
  };
  return (
    <form class="form form-inline" onSubmit={rename}>
      <label for="team-rename">Name</label>
      <input id="team-rename" name="title" required maxLength={64} defaultValue={team.title} />
      <button type="submit" class="button" disabled={action.busy}>
        Rename
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

/** Adds a member of the organization who is not yet in the team. */
function AddTeamMember({ org, team, seated, done }: { org: Organization; team: Team; seated: Set<string>; done: () => void }) {
  const [members] = useApi(`${org.id}:members`, (signal) => everything<Member>(`/orgs/${org.id}/members`, signal));
  const action = useAction();
  const add = (event: Event) => {
    const { userId } = formFields(event);
    return action.run(() => api(`/orgs/${org.id}/teams/${team.id}/members/${userId}`, { method: 'PUT', body: {} }).then(done));
  };
  if (members.state !== 'done') return <Show loaded={members} what="the members">{() => null}</Show>;
  const candidates = members.value.filter((member) => !seated.has(member.id));
  if (candidates.length === 0) return <p class="muted">Every member of {org.title} is in this team.</p>;
  return (
    <form class="form form-inline" onSubmit={add}>
      <label for="team-add">Add a member</label>
      <select id="team-add" name="userId" required>
        {candidates.map((member) => (
          <option key={member.id} value={member.id}>
            {member.user.displayName}
            {member.user.email ? ` (${member.user.email})` : ''}
          </option>
        ))}
      </select>
      <button type="submit" class="button" disabled={action.busy}>
        Add to the team
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

function TeamMembers({ org, team, changed }: { org: Organization; team: Team; changed: () => void }) {
  const [seats, reload] = useApi(`${team.id}:members`, (signal) => everything<TeamMember>(`/orgs/${org.id}/teams/${team.id}/members`, signal));
  const action = useAction();
  const done = () => {
    reload();
    changed();
  };
  return (
    <section aria-labelledby="team-members-title">
      <h2 id="team-members-title">Members of the team</h2>
      <Show loaded={seats} what="the team's members">
        {(items) => (
          <>
            {items.length === 0 ? (
              <p>Nobody is in this team yet.</p>
            ) : (
              <ul class="rows">
                {items.map(({ organization: member, team: seat }) => (
                  <li key={member.id}>
                    <span>
                      {member.user.displayName}
                      {seat.role === 'owner' && <span class="badge">owner</span>}
                    </span>
                    {team.permissions.admin && (
                      <ConfirmButton
                        label={`Remove ${member.user.displayName} from the team`}
                        question={`Remove ${member.user.displayName} from ${team.title}?`}
                        confirmLabel="Yes, remove"
                        onConfirm={() => action.run(() => api(`/orgs/${org.id}/teams/${team.id}/members/${member.id}`, { method: 'DELETE' }).then(done))}
                      />
                    )}
                  </li>
                ))}
              </ul>
            )}
            <ErrorNotice message={action.error} />
            {team.permissions.admin && <AddTeamMember org={org} team={team} seated={new Set(items.map((seat) => seat.organization.id))} done={done} />}
          </>
        )}
      </Show>
    </section>
  );
}

/** One team: its name and members; its owners and the organization's admins change them, admins delete it. */
export function TeamSettings({ organizationId, teamId }: { organizationId: string; teamId: string }) {
  const { route } = useLocation();
  const [team, reload] = useApi(teamId, (signal) => api<Team>(`/orgs/${organizationId}/teams/${teamId}`, { signal }));
  const action = useAction();
  const title = team.state === 'done' ? team.value.title : 'Team';
  return (
    <OrgSettingsFrame organizationId={organizationId} section="teams" title={title}>
      {(org) => (
        <Show loaded={team} what="the team">
          {(value) => (
            <>
              <p>
                <a href={orgSettingsHref(organizationId, 'teams')}>All teams</a>
              </p>
              <h2>{value.title}</h2>
              {value.permissions.admin && <RenameTeam org={org} team={value} done={reload} />}
              <TeamMembers org={org} team={value} changed={reload} />
              {org.permissions.admin && (
                <div class="actions">
                  <ConfirmButton
                    label="Delete this team"
                    question={`Delete the team ${value.title}? Its members stay in ${org.title}.`}
                    confirmLabel="Yes, delete"
                    onConfirm={() => action.run(() => api(`/orgs/${organizationId}/teams/${teamId}`, { method: 'DELETE' }).then(() => route(orgSettingsHref(organizationId, 'teams'))))}
                  />
                </div>
              )}
              <ErrorNotice message={action.error} />
            </>
          )}
        </Show>
      )}
    </OrgSettingsFrame>
  );
}
