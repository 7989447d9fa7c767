import { Type } from 'typebox';
import { ListOf, ListQuery, StringEnum } from '../../schemas.js';
import { LINK_STATUSES } from '../../../domain/content/link-lists.js';

/** `changeRequestId` is there on the change-request variants. */
const Target = { spaceId: Type.String(), changeRequestId: Type.Optional(Type.String()) };
export const SpaceLinksParams = Type.Object({ spaceId: Type.String() });
export const PageLinksParams = Type.Object({ ...Target, pageId: Type.String() });
export const FileBacklinksParams = Type.Object({ ...Target, fileId: Type.String() });

export const LinksQuery = Type.Object({ ...ListQuery, status: Type.Optional(StringEnum(LINK_STATUSES)) });
export const BacklinksQuery = Type.Object({ ...ListQuery });

/** A ContentLocation: `kind` and the full objects of that kind (organization, space, page, file, …). */
export const ContentLocation = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  required: ['kind'],
  properties: { kind: { type: 'string', enum: ['file', 'url', 'page', 'user', 'collection', 'space', 'reusable-content', 'openapi'] } },
  additionalProperties: true,
});

export const LinkRecord = Type.Object({
  status: StringEnum(LINK_STATUSES),
  relation: StringEnum(['reference', 'dependsOn'] as const),
  targetReference: Type.Optional(ContentLocation),
  locationReferences: Type.Array(ContentLocation),
});

export const LinkListSchema = Type.Object({
  ...ListOf(LinkRecord).properties,
  stats: Type.Object({
    total: Type.Number({ description: 'Targets in the list (before the status filter)' }),
    broken: Type.Object({
      total: Type.Number({ description: 'Broken targets' }),
      changeRequest: Type.Optional(Type.Number({ description: 'Broken in the change request and not where it started from; 0 on main' })),
    }),
  }),
});

export const BacklinkListSchema = ListOf(ContentLocation);
