import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Failure, Show } from '../components/status.js';
import { Time } from '../components/time.js';
import { everything } from '../lists.js';
import type { OpenApiSpec, OpenApiSpecVersion, Organization } from '../types.js';

const STATE: Record<OpenApiSpec['processingState'], string> = { pending: 'Waiting to be processed', progress: 'Being processed', complete: 'Processed' };

/** An OpenAPI specification of an organization: where it comes from, how its last processing went, its versions. */
export function OpenApiSpecView({ organizationId, slug }: { organizationId: string; slug: string }) {
  const base = `/orgs/${organizationId}/openapi/${encodeURIComponent(slug)}`;
  const [loaded] = useApi(`${organizationId}:${slug}`, async (signal) => {
    const [spec, organization] = await Promise.all([api<OpenApiSpec>(base, { signal }), api<Organization>(`/orgs/${organizationId}`, { signal })]);
    return { spec, organization };
  });
  const [versions] = useApi(`${organizationId}:${slug}`, (signal) => everything<OpenApiSpecVersion>(`${base}/versions`, signal));
  if (loaded.state === 'failed') {
    return (
      <Layout title="API specification">
        <Failure error={loaded.error} />
      </Layout>
    );
  }
  const title = loaded.state === 'done' ? loaded.value.spec.slug : 'API specification';
  const crumbs = loaded.state === 'done' ? [{ label: loaded.value.organization.title, href: appHref(`/o/${organizationId}`) }, { label: title }] : [];
  return (
    <Layout title={title} crumbs={crumbs}>
      <h1>{title}</h1>
      <Show loaded={loaded} what="the specification">
        {({ spec }) => (
          <>
            <dl class="facts">
              <dt>Source</dt>
              <dd>{spec.sourceURL ? <a href={spec.sourceURL}>{spec.sourceURL}</a> : 'Text given to Quire'}</dd>
              <dt>State</dt>
              <dd>{STATE[spec.processingState]}</dd>
              {spec.lastProcessedAt && (
                <>
                  <dt>Last processed</dt>
                  <dd>
                    <Time at={spec.lastProcessedAt} />
                  </dd>
                </>
              )}
              <dt>Updated</dt>
              <dd>
                <Time at={spec.updatedAt} />
              </dd>
            </dl>
            {spec.lastProcessError && (
              <p class="notice notice-error">
                The last processing failed ({spec.lastProcessErrorCode}): {spec.lastProcessError}
              </p>
            )}
            {spec.lastVersion && (
              <p class="page-actions">
                <a href={`${spec.urls.location}/versions/latest/content`}>The latest version's document (JSON)</a>
              </p>
            )}
          </>
        )}
      </Show>
      <h2>Versions</h2>
      <Show loaded={versions} what="the versions">
        {(value) =>
          value.length === 0 ? (
            <p>No version yet.</p>
          ) : (
            <ul class="plain-list">
              {value.map((version) => (
                <li key={version.id}>
                  <Time at={version.createdAt} /> · <a href={version.url}>{version.url}</a>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </Layout>
  );
}
