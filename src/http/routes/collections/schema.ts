import { Type } from 'typebox';
import { ListQuery, RoleOrNull, Url } from '../../schemas.js';

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

export const CreateCollectionBody = Type.Object({
  title: Type.Optional(CollectionTitle),
  parent: Type.Optional(Type.String({ minLength: 1 })),
});

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
