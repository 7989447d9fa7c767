import { appHref } from '../api.js';
import { everything } from '../lists.js';
import type { Collection, Space } from '../types.js';

/** An organization's collections and spaces, each knowing its parent collection (none at the top). */
export interface ContentTree {
  collections: Collection[];
  spaces: Space[];
}

/** The organization's collections and spaces (every one the caller may see), for its tree or a collection's. */
export async function contentTreeOf(organizationId: string, signal: AbortSignal): Promise<ContentTree> {
  const [collections, spaces] = await Promise.all([everything<Collection>(`/orgs/${organizationId}/collections`, signal), everything<Space>(`/orgs/${organizationId}/spaces`, signal)]);
  return { collections, spaces };
}

const emojiOf = (code: string) => String.fromCodePoint(...code.split('-').map((hex) => parseInt(hex, 16)));

/**
 * The collections and spaces below `parent` (the top when undefined), every one a link to its view. Collections are
 * shown open, as nested lists: a link cannot sit in a disclosure's summary (nested interactive controls).
 */
export function ContentBranch({ tree, parent }: { tree: ContentTree; parent: string | undefined }) {
  const collections = tree.collections.filter((c) => c.parent === parent);
  const spaces = tree.spaces.filter((s) => s.parent === parent);
  if (collections.length === 0 && spaces.length === 0) return null;
  return (
    <ul class="tree">
      {collections.map((collection) => (
        <li key={collection.id}>
          <a href={appHref(`/c/${collection.id}`)} class="tree-collection">
            {collection.title}
          </a>
          <ContentBranch tree={tree} parent={collection.id} />
        </li>
      ))}
      {spaces.map((space) => (
        <li key={space.id}>
          <a href={appHref(`/s/${space.id}`)} class="tree-space">
            {space.emoji && <span aria-hidden="true">{emojiOf(space.emoji)} </span>}
            {space.title}
          </a>
        </li>
      ))}
    </ul>
  );
}
