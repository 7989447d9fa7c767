import { api, ApiError, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Show } from '../components/status.js';
import { Search } from '../components/search.js';
import { ContentBranch, contentTreeOf } from '../components/content-tree.js';
import { everything } from '../lists.js';
import type { OpenApiSpec, Organization, Site } from '../types.js';
import { mayOpenOrgSettings, orgSettingsHref } from './org-settings/frame.js';

/** A list the API may keep from the caller (guests may not list sites): empty then, not an error. */
const unlessRefused = <T,>(read: Promise<T[]>): Promise<T[]> => read.catch((error: Error) => (error instanceof ApiError && (error.status === 403 || error.status === 404) ? [] : Promise.reject(error)));

/** An organization: its collections and spaces as a tree, search across them, its sites and API specifications. */
export function OrganizationView({ organizationId }: { organizationId: string }) {
  const [org] = useApi(organizationId, (signal) => api<Organization>(`/orgs/${organizationId}`, { signal }));
  const [tree] = useApi(organizationId, (signal) => contentTreeOf(organizationId, signal));
  const [published] = useApi(organizationId, async (signal) => {
    const [sites, specs] = await Promise.all([
      unlessRefused(everything<Site>(`/orgs/${organizationId}/sites`, signal)),
      unlessRefused(everything<OpenApiSpec>(`/orgs/${organizationId}/openapi`, signal)),
    ]);
    return { sites, specs };
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
        {(value) => (value.spaces.length === 0 && value.collections.length === 0 ? <p>No spaces yet.</p> : <ContentBranch tree={value} parent={undefined} />)}
      </Show>
      <Show loaded={published} what="the sites">
        {({ sites, specs }) => (
          <>
            {sites.length > 0 && (
              <>
                <h2>Sites</h2>
                <ul class="plain-list">
                  {sites.map((site) => (
                    <li key={site.id}>
                      <a href={appHref(`/o/${organizationId}/sites/${site.id}`)}>{site.title}</a>
                    </li>
                  ))}
                </ul>
              </>
            )}
            {specs.length > 0 && (
              <>
                <h2>API specifications</h2>
                <ul class="plain-list">
                  {specs.map((spec) => (
                    <li key={spec.id}>
                      <a href={appHref(`/o/${organizationId}/openapi/${spec.slug}`)}>{spec.slug}</a>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </Show>
    </Layout>
  );
}
