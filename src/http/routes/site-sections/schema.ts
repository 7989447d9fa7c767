import { Type } from 'typebox';
import { ListQuery, Nullable, StringEnum } from '../../schemas.js';
import { Condition, GroupTitle, Icon, SectionPath, SectionTitle, ShareKeyQuery } from '../sites/schema.js';

export const SectionParams = Type.Object({ organizationId: Type.String(), siteId: Type.String(), siteSectionId: Type.String() });
export const GroupParams = Type.Object({ organizationId: Type.String(), siteId: Type.String(), siteSectionGroupId: Type.String() });
export const GroupSectionParams = Type.Object({
  organizationId: Type.String(),
  siteId: Type.String(),
  siteSectionGroupId: Type.String(),
  siteSectionId: Type.String(),
});

export const ListSectionsQuery = Type.Object({ ...ListQuery, shareKey: ShareKeyQuery });
export const ListGroupsQuery = Type.Object({ ...ListQuery });

export const AddSectionBody = Type.Object({
  spaceId: Type.String({ minLength: 1, description: 'The space the section starts with (its first site space)' }),
  title: Type.Optional(Nullable(SectionTitle)),
  icon: Type.Optional(Nullable(Icon)),
});

export const UpdateSectionBody = Type.Object(
  {
    title: Type.Optional(SectionTitle),
    path: Type.Optional(SectionPath),
    defaultSiteSpace: Type.Optional(Type.String({ minLength: 1 })),
    condition: Type.Optional(Nullable(Condition)),
    icon: Type.Optional(Nullable(Icon)),
    description: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  },
  { minProperties: 1 },
);

const SectionPointer = Type.Object({ type: StringEnum(['site-section'] as const), siteSection: Type.String({ minLength: 1 }) });

/** Optional body: without a position the section goes to the end of its siblings. */
export const MoveSectionBody = Nullable(
  Type.Object({ position: Type.Optional(Type.Object({ before: Type.Optional(SectionPointer), after: Type.Optional(SectionPointer) })) }),
);

export const AddGroupBody = Type.Object({
  title: GroupTitle,
  icon: Type.Optional(Nullable(Icon)),
  sections: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100, description: 'Sections that move into the group, in order' })),
});

export const UpdateGroupBody = Type.Object({ title: Type.Optional(GroupTitle), icon: Type.Optional(Nullable(Icon)) }, { minProperties: 1 });

export const AddSectionToGroupBody = Type.Object({ sectionId: Type.String({ minLength: 1 }) });

const GroupPointer = Type.Object({ type: StringEnum(['site-section', 'site-section-group'] as const), id: Type.String({ minLength: 1 }) });

/** Optional body: without a position the group goes to the end of the top level. */
export const MoveGroupBody = Nullable(
  Type.Object({ position: Type.Optional(Type.Object({ before: Type.Optional(GroupPointer), after: Type.Optional(GroupPointer) })) }),
);
