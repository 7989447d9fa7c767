import { api, appHref, encodePath } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout, type Crumb } from '../components/layout.js';
import { Failure, Loading, Show } from '../components/status.js';
import { documents, PageTree } from '../components/page-tree.js';
import { PageContent } from '../components/page-content.js';
import { Search } from '../components/search.js';
import { sourceApi, sourceAppPath, type Source } from '../source.js';
import type { ContentPage, Organization, PageHtml, Space } from '../types.js';

/** The space and its organization, for a view's title and breadcrumbs, and a way to read them again. */
export function useSpaceAndReload(spaceId: string) {
  return useApi(spaceId, async (signal) => {
    const space = await api<Space>(`/spaces/${spaceId}`, { signal });
    const organization = await api<Organization>(`/orgs/${space.organization}`, { signal }).catch(() => undefined);
    return { space, organization };
  });
}

export const useSpace = (spaceId: string) => useSpaceAndReload(spaceId)[0];

export function spaceCrumbs(loaded: ReturnType<typeof useSpace>, spaceId: string): Crumb[] {
  if (loaded.state !== 'done') return [];
  const { space, organization } = loaded.value;
  return [
    ...(organization ? [{ label: organization.title, href: appHref(`/o/${organization.id}`) }] : []),
    { label: space.title, href: appHref(`/s/${spaceId}`) },
  ];
}

/** The space's own tabs: its pages, change requests, history, and its settings for those the API lets change them. */
export function SpaceTabs({ spaceId, current, space }: { spaceId: string; current: 'pages' | 'changes' | 'history' | 'settings'; space: Space | undefined }) {
  const tabs = [
    ['pages', 'Pages', `/s/${spaceId}`],
    ['changes', 'Change requests', `/s/${spaceId}/~/changes`],
    ['history', 'History', `/s/${spaceId}/~/revisions`],
    ...(space?.permissions.edit ? [['settings', 'Settings', `/s/${spaceId}/~/settings`] as const] : []),
  ] as const;
  return (
    <nav class="tabs-nav" aria-label="Space">
      {tabs.map(([key, label, path]) => (
        <a key={key} href={appHref(path)} aria-current={key === current ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}

/** A page of the source, found by path (the first page when none is given). */
function PageOf({ spaceId, source, pages, path }: { spaceId: string; source: Source; pages: ContentPage[]; path: string }) {
  const all = documents(pages);
  const page = path ? all.find((p) => p.path === path) : all[0];
  const [html] = useApi(page ? `${spaceId}:${JSON.stringify(source)}:${page.id}` : undefined, (signal) => api<PageHtml>(sourceApi(spaceId, source).html(page!.id), { signal }));
  if (!page) return all.length === 0 ? <p>This space has no pages yet.</p> : <Failure error={new Error(`No page at "${path}" here.`)} />;
  return (
    <>
      {source.kind === 'main' && (
        <p class="page-actions">
          <a href={appHref(`/s/${spaceId}/~/revisions?page=${encodeURIComponent(page.id)}`)}>History of this page</a>
        </p>
      )}
      <Show loaded={html} what="the page">
        {(value) => <PageContent page={value} />}
      </Show>
    </>
  );
}

/** Pages of a space (main, a change request or an old revision) with their tree beside them. */
export function SpaceReader({ spaceId, source, path, banner }: { spaceId: string; source: Source; path: string; banner?: preact.ComponentChildren }) {
  const [pages] = useApi(`${spaceId}:${JSON.stringify(source)}`, (signal) => api<{ pages: ContentPage[] }>(sourceApi(spaceId, source).pages, { signal, query: { metadata: 'false' } }));
  const base = sourceAppPath(spaceId, source);
  const current = pages.state === 'done' ? documents(pages.value.pages).find((p) => (path ? p.path === path : true))?.id : undefined;
  return (
    <div class="reader">
      <aside class="reader-nav" aria-label="Pages">
        {source.kind === 'main' && <Search scope={{ space: spaceId }} label="Search this space" />}
        {pages.state === 'done' ? (
          <nav aria-label="Pages of this space">
            <PageTree pages={pages.value.pages} hrefOf={(page) => appHref(`${base}/${encodePath(page.path ?? '')}`)} current={current} />
          </nav>
        ) : pages.state === 'failed' ? (
          <Failure error={pages.error} />
        ) : (
          <Loading what="the pages" />
        )}
      </aside>
      <div class="reader-page">
        {banner}
        {pages.state === 'done' && <PageOf spaceId={spaceId} source={source} pages={pages.value.pages} path={path} />}
      </div>
    </div>
  );
}

export function SpaceView({ spaceId, pagePath }: { spaceId: string; pagePath?: string }) {
  const loaded = useSpace(spaceId);
  const title = loaded.state === 'done' ? loaded.value.space.title : 'Space';
  if (loaded.state === 'failed') {
    return (
      <Layout title="Space">
        <Failure error={loaded.error} />
      </Layout>
    );
  }
  return (
    <Layout title={title} crumbs={spaceCrumbs(loaded, spaceId)} wide>
      <SpaceTabs spaceId={spaceId} current="pages" space={loaded.state === 'done' ? loaded.value.space : undefined} />
      <SpaceReader spaceId={spaceId} source={{ kind: 'main' }} path={pagePath ?? ''} />
    </Layout>
  );
}
