/**
 * Who may read a published site: its visibility (for those who may edit the organization's sites) and, for a site
 * whose visitors sign in, the OpenID Connect provider they sign in with (admins; its client secret is written, never
 * read back).
 */
import { api, apiOrNone } from '../api.js';
import { useApi } from '../use-api.js';
import { formFields, useAction } from '../use-action.js';
import { ChoiceSelect } from '../components/choice-select.js';
import { ErrorNotice, Failure, Loading } from '../components/status.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { GiveToIdentityProvider } from '../components/given-values.js';
import type { Site, SiteOidcProvider } from '../types.js';

/** The visibilities of a site, as an editor chooses among them. */
const VISIBILITIES: Array<[string, string]> = [
  ['public', 'Public: anyone, and search engines'],
  ['unlisted', 'Unlisted: anyone with the URL, hidden from search engines'],
  ['share-link', 'Share link: whoever has a share link'],
  ['visitor-auth', 'Signed-in visitors: readers your identity provider or your visitor tokens authenticate'],
];

export function SiteVisibilityForm({ organizationId, site, changed }: { organizationId: string; site: Site; changed: () => void }) {
  const action = useAction();
  const save = (event: Event) => {
    const { visibility } = formFields(event);
    return action.run(() => api(`/orgs/${organizationId}/sites/${site.id}`, { method: 'PATCH', body: { visibility } }).then(changed));
  };
  return (
    <form class="form" onSubmit={save} aria-label="Who may read the site">
      <label for="site-visibility">Visibility</label>
        <ChoiceSelect id="site-visibility" name="visibility" choices={VISIBILITIES} value={site.visibility} />
      <button type="submit" class="button" disabled={action.busy}>
        Save visibility
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

/** The OpenID Connect provider a visitor-auth site sends its anonymous readers through; its claims feed adaptive content. */
export function VisitorSignIn({ organizationId, siteId }: { organizationId: string; siteId: string }) {
  const path = `/orgs/${organizationId}/sites/${siteId}/visitor-oidc`;
  const [loaded, reload] = useApi(`${siteId}:visitor-oidc`, (signal) =>
    apiOrNone<SiteOidcProvider>(path, { signal }),
  );
  const action = useAction();
  if (loaded.state === 'loading') return <Loading what="the visitors' sign-in" />;
  if (loaded.state === 'failed') return <Failure error={loaded.error} />;
  const provider = loaded.value;
  const save = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const { issuer, clientId, clientSecret } = formFields(event);
    // The form stays on screen as the provider is read again: the secret it was given must not stay in it.
    const saved = () => {
      (form.elements.namedItem('clientSecret') as HTMLInputElement).value = '';
      reload();
    };
    return action.run(() => api(path, { method: 'PUT', body: { issuer, clientId, clientSecret } }).then(saved));
  };
  return (
    <section aria-labelledby="visitor-sign-in-title">
      <h3 id="visitor-sign-in-title">Visitors' sign-in</h3>
      {provider ? (
        <GiveToIdentityProvider values={[['Redirect URI to register at the provider', provider.callbackUrl]]} />
      ) : (
        <p>No provider yet: visitors open the site with visitor tokens only.</p>
      )}
      <form class="form" onSubmit={save} aria-label="Visitors' OpenID Connect provider">
        <label for="visitor-issuer">Issuer URL</label>
        <input id="visitor-issuer" name="issuer" type="url" required maxLength={500} defaultValue={provider?.issuer ?? ''} />
        <label for="visitor-client">Client ID</label>
        <input id="visitor-client" name="clientId" required maxLength={500} defaultValue={provider?.clientId ?? ''} />
        <label for="visitor-secret">Client secret</label>
        <input id="visitor-secret" name="clientSecret" type="password" required maxLength={2000} autoComplete="off" aria-describedby="visitor-secret-note" />
        <p id="visitor-secret-note" class="aside-note">
          Stored encrypted and never shown again: enter it each time you save.
        </p>
        <button type="submit" class="button" disabled={action.busy}>
          {provider ? "Save the visitors' provider" : "Add the visitors' provider"}
        </button>
      </form>
      {provider && (
        <ConfirmButton
          label="Remove the visitors' provider"
          question="Remove the visitors' OpenID Connect provider? Visitors then open the site with visitor tokens only."
          confirmLabel="Yes, remove"
          onConfirm={() => action.run(() => api(path, { method: 'DELETE' }).then(reload))}
        />
      )}
      <ErrorNotice message={action.error} />
    </section>
  );
}
