import { Type } from 'typebox';
import { ListQuery, Nullable, StringEnum } from '../../schemas.js';
import { Condition, ShareKeyQuery, SiteSpacePath } from '../sites/schema.js';

export const SiteSpaceParams = Type.Object({ organizationId: Type.String(), siteId: Type.String(), siteSpaceId: Type.String() });

export const ListSiteSpacesQuery = Type.Object({
  ...ListQuery,
  shareKey: ShareKeyQuery,
  default: Type.Optional(Type.Boolean({ description: 'true: only the default site space of each section (or of the root); false: only the others' })),
});

export const AddSiteSpaceBody = Type.Object({
  spaceId: Type.String({ minLength: 1 }),
  sectionId: Type.Optional(Type.String({ minLength: 1, description: 'The section; the default section (or the root of a site without sections) when absent' })),
});

export const UpdateSiteSpaceBody = Type.Object(
  {
    path: Type.Optional(SiteSpacePath),
    condition: Type.Optional(Nullable(Condition)),
    spaceId: Type.Optional(Type.String({ minLength: 1 })),
  },
  { minProperties: 1 },
);

const SiteSpacePointer = Type.Object({ type: StringEnum(['site-space'] as const), siteSpace: Type.String({ minLength: 1 }) });

/** Optional body: without a position the site space goes to the end of its section (or root). */
export const MoveSiteSpaceBody = Nullable(
  Type.Object({ position: Type.Optional(Type.Object({ before: Type.Optional(SiteSpacePointer), after: Type.Optional(SiteSpacePointer) })) }),
);
