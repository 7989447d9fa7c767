import { api } from '../../api.js';
import { everything } from '../../lists.js';
import { useApi } from '../../use-api.js';
import { formFields, useAction } from '../../use-action.js';
import { Show, ErrorNotice } from '../../components/status.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { RoleSelect, roleName, roleOf } from '../../components/role-select.js';
import { Time } from '../../components/time.js';
import type { Invite, Organization } from '../../types.js';
import { OrgSettingsFrame } from './frame.js';

/** Invite links are off until an admin turns them on: whoever holds a link may join. */
function InviteLinksSwitch({ org, changed }: { org: Organization; changed: () => void }) {
  const action = useAction();
  const toggle = () => action.run(() => api(`/orgs/${org.id}`, { method: 'PATCH', body: { inviteLinks: !org.inviteLinks } }).then(changed));
  return (
    <div class="actions">
      <p>{org.inviteLinks ? 'Invite links are on: whoever holds one may join.' : 'Invite links are off.'}</p>
      <button type="button" class="button" onClick={toggle} disabled={action.busy}>
        {org.inviteLinks ? 'Turn invite links off' : 'Turn invite links on'}
      </button>
      <ErrorNotice message={action.error} />
    </div>
  );
}

function InviteRow({ org, invite, reload }: { org: Organization; invite: Invite; reload: () => void }) {
  const action = useAction();
  return (
    <li>
      <span class="invite">
        <label for={`invite-${invite.id}`}>
          Link for {roleName(invite.role)} · made <Time at={invite.createdAt} />
        </label>
        <input id={`invite-${invite.id}`} class="invite-link" readOnly value={invite.urls.app} onFocus={(event) => (event.currentTarget as HTMLInputElement).select()} />
      </span>
      <ConfirmButton
        label={`Revoke the ${roleName(invite.role)} link`}
        question="Revoke this link? Nobody can join with it any more."
        confirmLabel="Yes, revoke"
        onConfirm={() => action.run(() => api(`/orgs/${org.id}/link-invites/${invite.id}`, { method: 'DELETE' }).then(reload))}
      />
      <ErrorNotice message={action.error} />
    </li>
  );
}

/** Invite links of the organization (admins): make one with a role, share it, revoke it. */
function InviteLinks({ org, orgChanged }: { org: Organization; orgChanged: () => void }) {
  const [invites, reload] = useApi(org.id, (signal) => everything<Invite>(`/orgs/${org.id}/link-invites`, signal));
  const action = useAction();
  const create = (event: Event) => {
    const { role } = formFields(event);
    return action.run(() => api(`/orgs/${org.id}/link-invites`, { method: 'POST', body: { role: roleOf(role) } }).then(reload));
  };
  return (
    <section aria-labelledby="invites-title">
      <h2 id="invites-title">Invite links</h2>
      <InviteLinksSwitch org={org} changed={orgChanged} />
      <form class="form form-inline" onSubmit={create}>
        <label for="invite-role">Role of who joins</label>
        <RoleSelect id="invite-role" value="read" />
        <button type="submit" class="button" disabled={action.busy || !org.inviteLinks}>
          Make an invite link
        </button>
      </form>
      <ErrorNotice message={action.error} />
      <Show loaded={invites} what="the invite links">
        {(items) =>
          items.length === 0 ? (
            <p>No invite links.</p>
          ) : (
            <ul class="rows">
              {items.map((invite) => (
                <InviteRow key={invite.id} org={org} invite={invite} reload={reload} />
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

export function InvitesSettings({ organizationId }: { organizationId: string }) {
  return (
    <OrgSettingsFrame organizationId={organizationId} section="invites" title="Invite links">
      {(org, orgChanged) => <InviteLinks org={org} orgChanged={orgChanged} />}
    </OrgSettingsFrame>
  );
}
