import { Type } from 'typebox';
import { ListOf, ListQuery, Url } from '../../schemas.js';

export const SearchQuery = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 512 }),
  ...ListQuery,
});

export const SpaceSearchParams = Type.Object({ spaceId: Type.String() });
export const OrganizationSearchParams = Type.Object({ organizationId: Type.String() });

export const SearchSectionResult = Type.Object({
  id: Type.String({ description: "The heading's anchor" }),
  title: Type.String(),
  path: Type.String({ description: "The page's path, '#', the anchor" }),
  body: Type.String({ description: "An excerpt of the section's text around the first match" }),
  urls: Type.Object({ app: Url }),
});

export const SearchPageResult = Type.Object({
  id: Type.String(),
  title: Type.String(),
  path: Type.String(),
  sections: Type.Array(SearchSectionResult),
  urls: Type.Object({ app: Url }),
});

export const SearchSpaceResult = Type.Object({
  id: Type.String(),
  title: Type.String(),
  pages: Type.Array(SearchPageResult),
});

export const SpaceSearchList = ListOf(SearchPageResult);
export const OrganizationSearchList = ListOf(SearchSpaceResult);
