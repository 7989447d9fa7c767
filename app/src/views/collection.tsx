import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout, type Crumb } from '../components/layout.js';
import { Failure, Show } from '../components/status.js';
import { ContentBranch, contentTreeOf } from '../components/content-tree.js';
import type { Collection, Organization } from '../types.js';

/** The collections from the top of the organization down to `collection`, for breadcrumbs. */
function lineage(collection: Collection, all: Collection[]): Collection[] {
  const line = [collection];
  for (let parent = collection.parent; parent !== undefined; ) {
    const above = all.find((c) => c.id === parent);
    // A parent the caller may not see ends the line there.
    if (!above || line.includes(above)) break;
    line.unshift(above);
    parent = above.parent;
  }
  return line;
}

/** A collection: where it sits in its organization, and the collections and spaces it holds. */
export function CollectionView({ collectionId }: { collectionId: string }) {
  const [loaded] = useApi(collectionId, async (signal) => {
    const collection = await api<Collection>(`/collections/${collectionId}`, { signal });
    const [organization, tree] = await Promise.all([api<Organization>(`/orgs/${collection.organization}`, { signal }), contentTreeOf(collection.organization, signal)]);
    return { collection, organization, tree };
  });
  if (loaded.state === 'failed') {
    return (
      <Layout title="Collection">
        <Failure error={loaded.error} />
      </Layout>
    );
  }
  const title = loaded.state === 'done' ? loaded.value.collection.title : 'Collection';
  const crumbs: Crumb[] =
    loaded.state === 'done'
      ? [
          { label: loaded.value.organization.title, href: appHref(`/o/${loaded.value.organization.id}`) },
          ...lineage(loaded.value.collection, loaded.value.tree.collections).map((c) => ({ label: c.title, href: appHref(`/c/${c.id}`) })),
        ]
      : [];
  return (
    <Layout title={title} crumbs={crumbs}>
      <h1>{title}</h1>
      <Show loaded={loaded} what="the collection">
        {({ collection, tree }) => (
          <>
            {collection.description && <p>{collection.description}</p>}
            <h2>Collections and spaces</h2>
            {tree.collections.some((c) => c.parent === collection.id) || tree.spaces.some((s) => s.parent === collection.id) ? (
              <ContentBranch tree={tree} parent={collection.id} />
            ) : (
              <p>Nothing in this collection yet.</p>
            )}
          </>
        )}
      </Show>
    </Layout>
  );
}
