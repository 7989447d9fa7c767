import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { useAction } from '../use-action.js';
import { useState } from 'preact/hooks';
import { Layout } from '../components/layout.js';
import { ErrorNotice, Failure, Show } from '../components/status.js';
import { SiteVisibilityForm, VisitorSignIn } from './site-access.js';
import type { Organization, Site, SiteSection, SiteSpace, SiteStructure } from '../types.js';

function SiteSpaces({ siteSpaces }: { siteSpaces: SiteSpace[] }) {
  if (siteSpaces.length === 0) return <p class="muted">No spaces in this section.</p>;
  return (
    <ul class="plain-list">
      {siteSpaces.map((siteSpace) => (
        <li key={siteSpace.id}>
          <a href={appHref(`/s/${siteSpace.space.id}`)}>{siteSpace.title}</a>
          {siteSpace.default && <span class="badge">default</span>}
          {siteSpace.urls.published && (
            <>
              {' · '}
              <a href={siteSpace.urls.published} aria-label={`${siteSpace.title} as published`}>
                as published
              </a>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

function Section({ section, level }: { section: SiteSection; level: 3 | 4 }) {
  const Heading = level === 3 ? 'h3' : 'h4';
  return (
    <section aria-label={section.title}>
      <Heading>
        {section.title}
        {section.default && <span class="badge">default</span>}
      </Heading>
      <SiteSpaces siteSpaces={section.siteSpaces} />
    </section>
  );
}

/** What the site publishes: its sections (and groups of them) with their spaces, or its spaces when it has no sections. */
function Structure({ structure }: { structure: SiteStructure }) {
  if (structure.type === 'siteSpaces') {
    return structure.structure.length === 0 ? <p>This site publishes no space yet.</p> : <SiteSpaces siteSpaces={structure.structure} />;
  }
  return (
    <>
      {structure.structure.map((item) =>
        item.object === 'site-section' ? (
          <Section key={item.id} section={item} level={3} />
        ) : (
          <section key={item.id} aria-label={item.title}>
            <h3>{item.title}</h3>
            {item.sections.map((section) => (
              <Section key={section.id} section={section} level={4} />
            ))}
          </section>
        ),
      )}
    </>
  );
}

/** A preview link of the site as published, made on request (it opens the site to anyone holding it for an hour). */
function Preview({ organizationId, siteId }: { organizationId: string; siteId: string }) {
  const action = useAction();
  const [url, setUrl] = useState<string>();
  const preview = async () => {
    const made = await action.run(() => api<{ url: string }>(`/orgs/${organizationId}/sites/${siteId}/publishing/preview`));
    if (made) setUrl(made.url);
  };
  return (
    <div class="site-preview">
      <button type="button" class="button" onClick={preview} disabled={action.busy}>
        Preview
      </button>
      {url && (
        <p role="status">
          Preview for one hour, without an account:{' '}
          <a href={url} target="_blank" rel="noopener">
            open the preview
          </a>
        </p>
      )}
      <ErrorNotice message={action.error} />
    </div>
  );
}

/** A site of an organization: whether and where it is published, and what it publishes. */
export function SiteView({ organizationId, siteId }: { organizationId: string; siteId: string }) {
  const [loaded, reload] = useApi(`${organizationId}:${siteId}`, async (signal) => {
    const [site, organization] = await Promise.all([api<Site>(`/orgs/${organizationId}/sites/${siteId}`, { signal }), api<Organization>(`/orgs/${organizationId}`, { signal })]);
    return { site, organization };
  });
  const [structure] = useApi(`${organizationId}:${siteId}`, (signal) => api<SiteStructure>(`/orgs/${organizationId}/sites/${siteId}/structure`, { signal }));
  if (loaded.state === 'failed') {
    return (
      <Layout title="Site">
        <Failure error={loaded.error} />
      </Layout>
    );
  }
  const title = loaded.state === 'done' ? loaded.value.site.title : 'Site';
  const crumbs = loaded.state === 'done' ? [{ label: loaded.value.organization.title, href: appHref(`/o/${organizationId}`) }, { label: title }] : [];
  return (
    <Layout title={title} crumbs={crumbs}>
      <h1>{title}</h1>
      <Show loaded={loaded} what="the site">
        {({ site, organization }) => (
          <>
            <dl class="facts">
              <dt>Visibility</dt>
              <dd>{site.visibility}</dd>
              <dt>Published</dt>
              <dd>{site.published ? (site.urls.published ? <a href={site.urls.published}>{site.urls.published}</a> : 'Yes') : 'Not yet: it publishes no space'}</dd>
            </dl>
            {/* Those who may create content in the organization may edit its sites, previews included (sites carry no permissions of their own). */}
            {organization.permissions.createContent && site.published && <Preview organizationId={organizationId} siteId={siteId} />}
            {organization.permissions.createContent && (
              <section aria-labelledby="site-access-title">
                <h2 id="site-access-title">Who may read it</h2>
                <SiteVisibilityForm organizationId={organizationId} site={site} changed={reload} />
                {organization.permissions.admin && site.visibility === 'visitor-auth' && <VisitorSignIn organizationId={organizationId} siteId={siteId} />}
              </section>
            )}
          </>
        )}
      </Show>
      <h2>Sections and spaces</h2>
      <Show loaded={structure} what="what the site publishes">
        {(value) => <Structure structure={value} />}
      </Show>
    </Layout>
  );
}
