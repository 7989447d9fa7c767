import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Show } from '../components/status.js';
import { Search } from '../components/search.js';
import { everything } from '../lists.js';
import type { Collection, Organization, Space } from '../types.js';
import { mayOpenOrgSettings, orgSettingsHref } from './org-settings/frame.js';

interface Tree {
  collections: Collection[];
  spaces: Space[];
}

function Branch({ tree, parent }: { tree: Tree; parent: string | undefined }) {
  const collections = tree.collections.filter((c) => c.parent === parent);
  const spaces = tree.spaces.filter((s) => s.parent === parent);
  if (collections.length === 0 && spaces.length === 0) return null;
  return (
    <ul class="tree">
      {collections.map((collection) => (
        <li key={collection.id}>
          <details open>
            <summary>
              <span class="tree-collection">{collection.title}</span>
            </summary>
            <Branch tree={tree} parent={collection.id} />
          </details>
        </li>
      ))}
      {spaces.map((space) => (
        <li key={space.id}>
          <a href={appHref(`/s/${space.id}`)} class="tree-space">
            {space.emoji && <span aria-hidden="true">{String.fromCodePoint(...space.emoji.split('-').map((hex) => parseInt(hex, 16)))} </span>}
            {space.title}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** An organization: its collections and spaces as a tree, and search across them. */
export function OrganizationView({ organizationId }: { organizationId: string }) {
  const [org] = useApi(organizationId, (signal) => api<Organization>(`/orgs/${organizationId}`, { signal }));
  const [tree] = useApi(organizationId, async (signal) => {
    const [collections, spaces] = await Promise.all([
      everything<Collection>(`/orgs/${organizationId}/collections`, signal),
      everything<Space>(`/orgs/${organizationId}/spaces`, signal),
    ]);
    return { collections, spaces };
  });
  const title = org.state === 'done' ? org.value.title : 'Organization';
  return (
    <Layout title={title} crumbs={[{ label: title }]}>
      <h1>{title}</h1>
      {org.state === 'done' && mayOpenOrgSettings(org.value) && (
        <p class="page-actions">
          <a href={orgSettingsHref(organizationId)}>{org.value.permissions.admin ? 'Members and settings' : 'Members and teams'}</a>
        </p>
      )}
      <Search scope={{ organization: organizationId }} label="Search this organization" />
      <h2>Spaces</h2>
      <Show loaded={tree} what="the spaces">
        {(value) => (value.spaces.length === 0 && value.collections.length === 0 ? <p>No spaces yet.</p> : <Branch tree={value} parent={undefined} />)}
      </Show>
    </Layout>
  );
}
