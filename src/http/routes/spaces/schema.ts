import { Type } from 'typebox';
import { ListQuery, Nullable, RoleOrNull, StringEnum, Timestamp, Url } from '../../schemas.js';
import { SPACE_VISIBILITIES } from '../../../domain/content/spaces.js';
import { GitSyncSchema } from '../git-sync/schema.js';

export const SpaceParams = Type.Object({ spaceId: Type.String() });

/**
 * The 205 of a deletion: no content at all (RFC 9110, 15.3.6 forbids it). `type: 'null'` makes the OpenAPI document
 * show a body-less answer; the handler sends `undefined`, so Fastify serializes nothing (`send(null)` through a
 * null schema would write the four bytes `null`).
 */

export const Visibility = StringEnum(SPACE_VISIBILITIES);
export const EditMode = StringEnum(['live', 'locked'] as const);
export const SpaceTitle = Type.String({ maxLength: 50 });
export const Emoji = Type.String({ maxLength: 50 });

export const SpaceSchema = Type.Object({
  object: Type.Literal('space'),
  id: Type.String(),
  title: Type.String(),
  emoji: Type.String(),
  visibility: Visibility,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: Type.Optional(Timestamp),
  editMode: Type.Optional(EditMode),
  urls: Type.Object({
    location: Url,
    app: Url,
    published: Type.Optional(Url),
    public: Type.Optional(Url),
    icon: Type.Optional(Url),
  }),
  organization: Type.String(),
  parent: Type.Optional(Type.String()),
  revision: Type.String(),
  defaultLevel: RoleOrNull,
  comments: Type.Number(),
  changeRequests: Type.Number(),
  changeRequestsOpen: Type.Number(),
  changeRequestsDraft: Type.Number(),
  gitSync: Type.Optional(GitSyncSchema),
  permissions: Type.Object({
    view: Type.Boolean(),
    access: Type.Boolean(),
    admin: Type.Boolean(),
    viewInviteLinks: Type.Boolean(),
    edit: Type.Boolean(),
    triggerGitSync: Type.Boolean(),
    comment: Type.Boolean(),
    merge: Type.Boolean(),
    review: Type.Boolean(),
  }),
});

/** A sibling a collection or space is placed before or after. */
export const ContentPointer = Type.Object({
  type: StringEnum(['space', 'collection'] as const),
  space: Type.Optional(Type.String({ minLength: 1 })),
  collection: Type.Optional(Type.String({ minLength: 1 })),
});

export const ContentPosition = Type.Object({
  before: Type.Optional(ContentPointer),
  after: Type.Optional(ContentPointer),
});

export const MoveBody = Type.Object(
  {
    parent: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    position: Type.Optional(ContentPosition),
  },
  { minProperties: 1 },
);

export const TransferBody = Type.Object({ organization: Type.String({ minLength: 1 }) });

export const GetSpaceQuery = Type.Object({ shareKey: Type.Optional(Type.String()) });

/**
 * The body is optional (the reference does not require it): no body, or `null`, creates an "Untitled" space at
 * the top level. The reference's `template` and `computedSource` alternatives are not supported and are ignored.
 */
export const CreateSpaceBody = Nullable(
  Type.Object({
    title: Type.Optional(SpaceTitle),
    emoji: Type.Optional(Emoji),
    parent: Type.Optional(Type.String({ minLength: 1, description: 'Id of the parent collection; the top level when absent' })),
    editMode: Type.Optional(EditMode),
  }),
);

/** Response headers of the 201, as @fastify/swagger wants them (a map of header name to schema). */
export const CreatedSpaceHeaders = { Location: Type.String({ format: 'uri', description: 'API URL of the new space' }) };

export const UpdateSpaceBody = Type.Object(
  {
    title: Type.Optional(SpaceTitle),
    emoji: Type.Optional(Nullable(Emoji)),
    editMode: Type.Optional(EditMode),
    defaultLevel: Type.Optional(RoleOrNull),
    visibility: Type.Optional(Visibility),
  },
  { minProperties: 1 },
);

export const ListSpacesQuery = Type.Object({ ...ListQuery });
