import { Type } from 'typebox';
import { ListQuery, Nullable, RoleOrNull, Url } from '../../schemas.js';

export const CollectionParams = Type.Object({ collectionId: Type.String() });

export const CollectionTitle = Type.String({ maxLength: 50 });
export const CollectionDescription = Type.String({ maxLength: 100 });

export const CollectionSchema = Type.Object({
  object: Type.Literal('collection'),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  organization: Type.String(),
  parent: Type.Optional(Type.String()),
  defaultLevel: RoleOrNull,
  urls: Type.Object({ location: Url, app: Url }),
  permissions: Type.Object({
    view: Type.Boolean(),
    admin: Type.Boolean(),
    viewInviteLinks: Type.Boolean(),
    create: Type.Boolean(),
  }),
});

/** The body is optional (the reference does not require it): no body, or `null`, creates an "Untitled" collection. */
export const CreateCollectionBody = Nullable(
  Type.Object({
    title: Type.Optional(CollectionTitle),
    parent: Type.Optional(Type.String({ minLength: 1, description: 'Id of the parent collection; the top level when absent' })),
  }),
);

/** Response headers of the 201, as @fastify/swagger wants them (a map of header name to schema). */
export const CreatedCollectionHeaders = { Location: Type.String({ format: 'uri', description: 'API URL of the new collection' }) };

export const UpdateCollectionBody = Type.Object(
  {
    title: Type.Optional(CollectionTitle),
    description: Type.Optional(CollectionDescription),
    defaultLevel: Type.Optional(RoleOrNull),
  },
  { minProperties: 1 },
);

export const ListCollectionsQuery = Type.Object({
  ...ListQuery,
  nested: Type.Optional(Type.Boolean({ default: true, description: 'false: top-level collections only' })),
});
