/**
 * Schema pieces shared by several resources. Resource schemas live beside their routes
 * (src/http/routes/<resource>/schema.ts).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { ROLES } from '../domain/permissions.js';

/** `schema` or null, written the OpenAPI 3.0 way (`nullable: true`). */
export function Nullable<T extends TSchema>(schema: T) {
  const base = schema as unknown as Record<string, unknown>;
  const copy: Record<string, unknown> = { ...base, nullable: true };
  if (Array.isArray(base.enum)) copy.enum = [...(base.enum as unknown[]), null];
  return Type.Unsafe<Static<T> | null>(copy);
}

/** A string enumeration as a plain `enum` (clearer validation messages than a union of literals). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Text with at least one character that is not white space (the validator says "must not be blank"). */
export const NOT_BLANK = '\\S';
export const NonBlankString = (options: Record<string, unknown> = {}) => Type.String({ ...options, pattern: NOT_BLANK });

export const Timestamp = Type.String({ format: 'date-time' });
export const Url = Type.String({ format: 'uri' });

export const Role = StringEnum(ROLES, { description: 'admin > create > review > edit > comment > read' });
export const RoleOrNull = Nullable(Role);

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Integer({ description: 'The HTTP status' }),
      message: Type.String({ description: 'What is wrong, starting with the field it is about' }),
    }),
  },
  { description: 'Error' },
);

/** `page` and `limit` of every list. */
export const ListQuery = {
  page: Type.Optional(Type.String({ description: 'The `next.page` of the previous response', minLength: 1 })),
  limit: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'Items per page, default 50' })),
};

export const OrderQuery = Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'desc' }));

/** The paged list envelope: `{items, count, next?}`. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    next: Type.Optional(Type.Object({ page: Type.String() })),
    count: Type.Number({ description: 'Number of items in this response' }),
    items: Type.Array(item),
  });
}

export const UserSchema = Type.Object({
  object: Type.Literal('user'),
  id: Type.String(),
  displayName: Type.String(),
  email: Type.Optional(Type.String()),
  photoURL: Type.Optional(Type.String()),
  urls: Type.Object({ location: Url }),
});

/** Declared error answers, so the published OpenAPI document shows them. */
export const ErrorResponses = {
  400: ErrorSchema,
  401: ErrorSchema,
  403: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
};

/** Body-less answers (204, 205) of deletions and membership changes. */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'No content' });

/**
 * Fields the reference's import and export take for its hosted Git Sync's bookkeeping (a cache id, URL prefixes, the
 * triggering event's time, the provider): accepted, so its clients' bodies pass, and not used.
 */
export const ReferenceGitBookkeeping = {
  repoCacheID: Type.Optional(Type.String()),
  repoTreeURL: Type.Optional(Type.String()),
  repoCommitURL: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.String()),
  gitInfo: Type.Optional(Type.Object({ provider: Type.Optional(Type.String()), url: Type.Optional(Type.String()) })),
};
