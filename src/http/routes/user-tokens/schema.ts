import { Type } from 'typebox';

export const PersonalTokenSchema = Type.Object({
  object: Type.Literal('api-token'),
  id: Type.String(),
  label: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreatedPersonalTokenSchema = Type.Intersect([
  PersonalTokenSchema,
  Type.Object({ token: Type.String({ description: 'The token: shown in this answer only.' }) }),
]);

export const PersonalTokensSchema = Type.Object({ items: Type.Array(PersonalTokenSchema) });

export const CreatePersonalTokenBody = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for, to tell it apart later.' }) },
  { additionalProperties: false },
);

export const TokenParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 100 }) });
