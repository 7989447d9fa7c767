import { api, apiOrNone } from '../../api.js';
import { everything } from '../../lists.js';
import { useApi } from '../../use-api.js';
import { formFields, useAction } from '../../use-action.js';
import { Show, ErrorNotice, Failure, Loading } from '../../components/status.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { RoleSelect, roleOf } from '../../components/role-select.js';
import type { OidcProvider, Organization, SamlProvider, Team } from '../../types.js';
import { GiveToIdentityProvider } from '../../components/given-values.js';
import { OrgSettingsFrame } from './frame.js';

/** The fields of a SAML provider, empty for a new one; `id` keeps each form's labels apart. */
function SamlFields({ id, provider, teams }: { id: string; provider?: SamlProvider; teams: Team[] }) {
  const ssoURL = provider && provider.ssoURL !== 'about:blank' ? provider.ssoURL : '';
  return (
    <>
      <label for={`${id}-label`}>Label on the sign-in page</label>
      <input id={`${id}-label`} name="label" required maxLength={30} defaultValue={provider?.label ?? ''} />
      <label for={`${id}-entity`}>Identity provider's entity ID</label>
      <input id={`${id}-entity`} name="entityID" maxLength={1024} defaultValue={provider?.entityID ?? ''} />
      <label for={`${id}-sso`}>Identity provider's single sign-on URL</label>
      <input id={`${id}-sso`} name="ssoURL" type="url" maxLength={2048} defaultValue={ssoURL} />
      <label for={`${id}-certificate`}>Identity provider's signing certificate (PEM)</label>
      <textarea id={`${id}-certificate`} name="certificate" rows={5} maxLength={10000} defaultValue={provider?.certificate ?? ''} />
      <label for={`${id}-role`}>Role of people who join by signing in</label>
      <RoleSelect id={`${id}-role`} name="defaultRole" value={provider?.defaultRole ?? null} />
      <label for={`${id}-team`}>Team they join</label>
      {/* Where it starts is marked on its option (not the select's value): see RoleSelect. */}
      <select id={`${id}-team`} name="defaultTeam">
        <option value="" selected={!provider?.defaultTeam}>
          No team
        </option>
        {teams.map((team) => (
          <option key={team.id} value={team.id} selected={team.id === provider?.defaultTeam?.id}>
            {team.title}
          </option>
        ))}
      </select>
    </>
  );
}

function samlBody(fields: Record<string, string>) {
  return {
    label: fields.label,
    entityID: fields.entityID,
    ssoURL: fields.ssoURL,
    certificate: fields.certificate,
    defaultRole: roleOf(fields.defaultRole),
    defaultTeam: fields.defaultTeam || null,
  };
}

function SamlProviderSection({ org, provider, teams, changed }: { org: Organization; provider: SamlProvider; teams: Team[]; changed: () => void }) {
  const action = useAction();
  const path = `/orgs/${org.id}/saml/${provider.id}`;
  const save = (event: Event) => {
    const body = samlBody(formFields(event));
    return action.run(() => api(path, { method: 'PATCH', body }).then(changed));
  };
  const titleId = `saml-${provider.id}-title`;
  return (
    <section class="card provider" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {provider.label} <span class={`badge badge-${provider.status}`}>{provider.status === 'active' ? 'active' : 'pending: not fully set up'}</span>
      </h3>
      <p>Give the identity provider these values of this server:</p>
      <GiveToIdentityProvider
        values={[
          ['Entity ID (audience)', provider.service.entityID],
          ['Assertion consumer service (ACS) URL', provider.service.acsURL],
          ['Metadata URL', provider.service.entityID],
          ['Sign-in URL', provider.service.startURL],
        ]}
      />
      <form class="form" onSubmit={save} aria-label={`Settings of ${provider.label}`}>
        <SamlFields id={`saml-${provider.id}`} provider={provider} teams={teams} />
        <button type="submit" class="button" disabled={action.busy}>
          Save {provider.label}
        </button>
      </form>
      <ConfirmButton
        label={`Delete ${provider.label}`}
        question={`Delete the SAML provider ${provider.label}? Its members can no longer sign in with it.`}
        confirmLabel="Yes, delete"
        onConfirm={() => action.run(() => api(path, { method: 'DELETE' }).then(changed))}
      />
      <ErrorNotice message={action.error} />
    </section>
  );
}

function SamlProviders({ org }: { org: Organization }) {
  const [loaded, reload] = useApi(`${org.id}:saml`, async (signal) => {
    const [providers, teams] = await Promise.all([everything<SamlProvider>(`/orgs/${org.id}/saml`, signal), everything<Team>(`/orgs/${org.id}/teams`, signal)]);
    return { providers, teams };
  });
  const action = useAction();
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const body = samlBody(formFields(event));
    return action.run(async () => {
      await api(`/orgs/${org.id}/saml`, { method: 'POST', body });
      form.reset();
      reload();
    });
  };
  return (
    <section aria-labelledby="saml-title">
      <h2 id="saml-title">SAML providers</h2>
      <Show loaded={loaded} what="the SAML providers">
        {({ providers, teams }) => (
          <>
            {providers.length === 0 && <p>No SAML provider yet.</p>}
            {providers.map((provider) => (
              <SamlProviderSection key={provider.id} org={org} provider={provider} teams={teams} changed={reload} />
            ))}
            <details class="add-provider">
              <summary>Add a SAML provider</summary>
              <form class="form" onSubmit={create} aria-label="New SAML provider">
                <SamlFields id="saml-new" teams={teams} />
                <button type="submit" class="button button-primary" disabled={action.busy}>
                  Add the SAML provider
                </button>
              </form>
              <ErrorNotice message={action.error} />
            </details>
          </>
        )}
      </Show>
    </section>
  );
}

/** The organization's OpenID Connect provider: one at most; its client secret is written, never read back. */
function OidcProviderSection({ org }: { org: Organization }) {
  const [loaded, reload] = useApi(`${org.id}:oidc`, (signal) =>
    apiOrNone<OidcProvider>(`/orgs/${org.id}/oidc`, { signal }),
  );
  const action = useAction();
  if (loaded.state === 'loading') return <Loading what="the OpenID Connect provider" />;
  if (loaded.state === 'failed') return <Failure error={loaded.error} />;
  const provider = loaded.value;
  const save = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const fields = formFields(event);
    const body = {
      issuer: fields.issuer,
      clientId: fields.clientId,
      clientSecret: fields.clientSecret,
      ...(fields.label ? { label: fields.label } : {}),
      allowedDomains: (fields.allowedDomains ?? '').split(/[\s,]+/).filter(Boolean),
      defaultRole: roleOf(fields.defaultRole),
    };
    // The form stays on screen as the provider is read again: the secret it was given must not stay in it.
    const saved = () => {
      (form.elements.namedItem('clientSecret') as HTMLInputElement).value = '';
      reload();
    };
    return action.run(() => api(`/orgs/${org.id}/oidc`, { method: 'PUT', body }).then(saved));
  };
  return (
    <section aria-labelledby="oidc-title">
      <h2 id="oidc-title">OpenID Connect provider</h2>
      {provider ? (
        <GiveToIdentityProvider
          values={[
            ['Redirect URI to register at the provider', provider.callbackUrl],
            ['Sign-in URL', provider.startUrl],
          ]}
        />
      ) : (
        <p>None yet.</p>
      )}
      <form class="form" onSubmit={save} aria-label="OpenID Connect provider">
        <label for="oidc-issuer">Issuer URL</label>
        <input id="oidc-issuer" name="issuer" type="url" required maxLength={500} defaultValue={provider?.issuer ?? ''} />
        <label for="oidc-client">Client ID</label>
        <input id="oidc-client" name="clientId" required maxLength={500} defaultValue={provider?.clientId ?? ''} />
        <label for="oidc-secret">Client secret</label>
        <input id="oidc-secret" name="clientSecret" type="password" required maxLength={2000} autoComplete="off" aria-describedby="oidc-secret-note" />
        <p id="oidc-secret-note" class="aside-note">
          Stored encrypted and never shown again: enter it each time you save.
        </p>
        <label for="oidc-label">Label on the sign-in page</label>
        <input id="oidc-label" name="label" maxLength={60} placeholder="Single sign-on" defaultValue={provider?.label ?? ''} />
        <label for="oidc-domains">E-mail domains whose people join on their first sign-in</label>
        <input id="oidc-domains" name="allowedDomains" defaultValue={provider?.allowedDomains.join(', ') ?? ''} />
        <label for="oidc-role">Role of people who join by signing in</label>
        <RoleSelect id="oidc-role" name="defaultRole" value={provider?.defaultRole ?? null} />
        <button type="submit" class="button" disabled={action.busy}>
          {provider ? 'Save the OpenID Connect provider' : 'Add the OpenID Connect provider'}
        </button>
      </form>
      {provider && (
        <ConfirmButton
          label="Remove the OpenID Connect provider"
          question="Remove the OpenID Connect provider? Nobody can sign in with it any more."
          confirmLabel="Yes, remove"
          onConfirm={() => action.run(() => api(`/orgs/${org.id}/oidc`, { method: 'DELETE' }).then(reload))}
        />
      )}
      <ErrorNotice message={action.error} />
    </section>
  );
}

/** Single sign-on of the organization (admins): its SAML providers and its OpenID Connect provider. */
export function SignInSettings({ organizationId }: { organizationId: string }) {
  return (
    <OrgSettingsFrame organizationId={organizationId} section="sign-in" title="Single sign-on">
      {(org) => (
        <>
          <SamlProviders org={org} />
          <OidcProviderSection org={org} />
        </>
      )}
    </OrgSettingsFrame>
  );
}
