/** Rows written straight to the store, for tests that need a row and nothing behind it (no repository, no API). */
import type { Insertable } from 'kysely';
import type { SpacesTable } from '../../src/store/sql/schema.js';

/** A live, private space row of `organization_id`, created now unless `fields` say otherwise. */
export function spaceRow(fields: Pick<Insertable<SpacesTable>, 'id' | 'organization_id'> & Partial<Insertable<SpacesTable>>): Insertable<SpacesTable> {
  const now = new Date().toISOString();
  return {
    parent_id: null,
    title: 'Space',
    emoji: '',
    visibility: 'private',
    edit_mode: 'live',
    default_level: null,
    position: 0,
    revision: 'a'.repeat(40),
    created_by: null,
    created_at: now,
    updated_at: fields.created_at ?? now,
    deleted_at: null,
    ...fields,
  };
}
