import type { EditMode, SpaceView, SpaceVisibility } from '../../../domain/content/spaces.js';
import { isRole, spacePermissions } from '../../../domain/permissions.js';
import type { Urls } from '../../urls.js';
import { presentGitSync } from '../git-sync/presenter.js';

export function presentSpace(urls: Urls, view: SpaceView) {
  const space = view.space;
  return {
    object: 'space' as const,
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility as SpaceVisibility,
    createdAt: space.created_at,
    updatedAt: space.updated_at,
    ...(space.deleted_at ? { deletedAt: space.deleted_at } : {}),
    editMode: space.edit_mode as EditMode,
    urls: { location: urls.api(`/spaces/${space.id}`), app: urls.app(`/s/${space.id}`) },
    organization: space.organization_id,
    ...(space.parent_id ? { parent: space.parent_id } : {}),
    revision: space.revision,
    defaultLevel: isRole(space.default_level) ? space.default_level : null,
    ...view.counters,
    ...(view.gitSync ? { gitSync: presentGitSync(view.gitSync) } : {}),
    permissions: spacePermissions(view.role),
  };
}
