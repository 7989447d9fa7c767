import type { CollectionView } from '../../../domain/content/collections.js';
import { collectionPermissions, isRole } from '../../../domain/permissions.js';
import type { Urls } from '../../urls.js';

export function presentCollection(urls: Urls, view: CollectionView) {
  const collection = view.collection;
  return {
    object: 'collection' as const,
    id: collection.id,
    title: collection.title,
    ...(collection.description !== null ? { description: collection.description } : {}),
    organization: collection.organization_id,
    ...(collection.parent_id ? { parent: collection.parent_id } : {}),
    defaultLevel: isRole(collection.default_level) ? collection.default_level : null,
    urls: { location: urls.api(`/collections/${collection.id}`), app: urls.app(`/c/${collection.id}`) },
    permissions: collectionPermissions(view.role),
  };
}
