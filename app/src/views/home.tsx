import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Show } from '../components/status.js';
import type { List, Organization } from '../types.js';

/** The organizations of the signed-in user. */
export function Home() {
  const [orgs] = useApi('orgs', (signal) => api<List<Organization>>('/orgs', { signal, query: { limit: 100 } }));
  return (
    <Layout title="Your organizations">
      <h1>Your organizations</h1>
      <Show loaded={orgs} what="your organizations">
        {(list) =>
          list.items.length === 0 ? (
            <p>You are not a member of any organization yet. An invite link from an administrator brings you into one.</p>
          ) : (
            <ul class="tiles">
              {list.items.map((org) => (
                <li key={org.id}>
                  <a class="tile" href={appHref(`/o/${org.id}`)}>
                    {org.title}
                  </a>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </Layout>
  );
}
