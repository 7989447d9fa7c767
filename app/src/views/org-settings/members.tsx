import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { everything } from '../../lists.js';
import { useApi } from '../../use-api.js';
import { useAction } from '../../use-action.js';
import { useSession } from '../../session.js';
import { Show, ErrorNotice } from '../../components/status.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { RoleSelect, roleName } from '../../components/role-select.js';
import type { Member, Organization, Role } from '../../types.js';
import { OrgSettingsFrame } from './frame.js';

/** One member: role and removal for admins, the role as text for everyone else. */
function MemberRow({ org, member, reload }: { org: Organization; member: Member; reload: () => void }) {
  const action = useAction();
  const { current } = useSession();
  const name = member.user.displayName;
  const path = `/orgs/${org.id}/members/${member.id}`;
  // The select shows the role asked for at once, and the member's own again when the API refuses it.
  const [shown, setShown] = useState(member.role);
  const setRole = async (role: Role | null) => {
    setShown(role);
    if ((await action.run(() => api(path, { method: 'PATCH', body: { role } }).then(() => true))) === undefined) setShown(member.role);
    else reload();
  };
  return (
    <tr>
      <th scope="row">
        {name}
        {member.id === current?.user.id && <span class="muted"> (you)</span>}
        {member.disabled && <span class="badge">disabled</span>}
      </th>
      <td>{member.user.email}</td>
      <td>
        {org.permissions.admin ? (
          <RoleSelect id={`role-${member.id}`} label={`Role of ${name}`} value={shown} onChange={setRole} />
        ) : (
          roleName(member.role)
        )}
        <ErrorNotice message={action.error} />
      </td>
      {org.permissions.admin && (
        <td>
          <ConfirmButton
            label={`Remove ${name}`}
            question={`Remove ${name} from ${org.title}?`}
            confirmLabel="Yes, remove"
            onConfirm={() => action.run(() => api(path, { method: 'DELETE' }).then(reload))}
          />
        </td>
      )}
    </tr>
  );
}

/** The organization's members, found as the reader types; admins change roles and remove members. */
function MemberList({ org }: { org: Organization }) {
  const [search, setSearch] = useState('');
  const [members, reload] = useApi(`${org.id}:${search}`, (signal) => everything<Member>(`/orgs/${org.id}/members`, signal, { search: search || undefined }));
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <div class="search">
        <label for="member-search">Search members</label>
        <input id="member-search" type="search" value={search} onInput={(event) => setSearch((event.currentTarget as HTMLInputElement).value)} />
      </div>
      <Show loaded={members} what="the members">
        {(items) =>
          items.length === 0 ? (
            <p>No member matches.</p>
          ) : (
            <table class="settings-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Role</th>
                  {org.permissions.admin && <th scope="col">Membership</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((member) => (
                  <MemberRow key={member.id} org={org} member={member} reload={reload} />
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

export function MembersSettings({ organizationId }: { organizationId: string }) {
  return (
    <OrgSettingsFrame organizationId={organizationId} section="members" title="Members">
      {(org) => <MemberList org={org} />}
    </OrgSettingsFrame>
  );
}
