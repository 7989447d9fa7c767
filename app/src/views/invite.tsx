import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Show, ErrorNotice } from '../components/status.js';

interface Invite {
  id: string;
  role: string | null;
}

/** An invite link's page: what joining gives, and joining (after signing in, which the app asks for first). */
export function InviteView({ organizationId, inviteId }: { organizationId: string; inviteId: string }) {
  const { route } = useLocation();
  const [invite] = useApi(`${organizationId}:${inviteId}`, (signal) => api<Invite>(`/orgs/${organizationId}/invites/${inviteId}`, { signal }));
  const [error, setError] = useState<string>();
  const join = async () => {
    try {
      await api(`/orgs/${organizationId}/invites/${inviteId}`, { method: 'POST', body: {} });
      route(appHref(`/o/${organizationId}`));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <Layout title="Join an organization">
      <section class="card narrow" aria-labelledby="invite-title">
        <h1 id="invite-title">Join an organization</h1>
        <Show loaded={invite} what="the invite">
          {(value) => (
            <>
              <p>This link makes you a member{value.role ? ` with the role "${value.role}"` : ' (a guest)'}.</p>
              <button type="button" class="button button-primary" onClick={join}>
                Join
              </button>
            </>
          )}
        </Show>
        <ErrorNotice message={error} />
      </section>
    </Layout>
  );
}
