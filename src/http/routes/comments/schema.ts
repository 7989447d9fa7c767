import { Type, type Static } from 'typebox';
import { ListOf, ListQuery, NonBlankString, OrderQuery, StringEnum, Timestamp, Url, UserSchema } from '../../schemas.js';
import { MemberSchema } from '../members/schema.js';

/** `changeRequestId` (an id or a number) is there on the change-request variants of the routes. */
const Scope = { spaceId: Type.String(), changeRequestId: Type.Optional(Type.String()) };
export const SpaceCommentsParams = Type.Object(Scope);
export const CommentParams = Type.Object({ ...Scope, commentId: Type.String() });
export const ReplyParams = Type.Object({ ...Scope, commentId: Type.String(), commentReplyId: Type.String() });

export const FormatQuery = Type.Optional(StringEnum(['markdown', 'document'] as const, { description: 'Output format of bodies, default markdown' }));

export const ListCommentsQuery = Type.Object({
  ...ListQuery,
  order: OrderQuery,
  status: Type.Optional(StringEnum(['all', 'open', 'resolved'] as const, { default: 'all' })),
  format: FormatQuery,
  targetPage: Type.Optional(Type.String({ minLength: 1, description: 'Only comments on this page (id)' })),
  authors: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Only comments posted by these users (ids)' })),
});

export const FormatOnlyQuery = Type.Object({ format: FormatQuery });
export const ListRepliesQuery = Type.Object({ ...ListQuery, format: FormatQuery });
export const ListCommentersQuery = Type.Object({ ...ListQuery });

/** `{object: "document", data, nodes}`; the blocks are kept as given. */
export const JsonDocument = Type.Object({
  object: Type.Literal('document'),
  data: Type.Object({ schemaVersion: Type.Optional(Type.Integer()) }, { additionalProperties: true }),
  nodes: Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
});

/** A markdown body says something: blank text is refused (send `{}` for an empty body). */
const MarkdownBody = Type.Object({ markdown: NonBlankString({ description: 'Markdown text' }) });
const DocumentBody = Type.Object({ document: JsonDocument });
const EmptyBody = Type.Object({}, { additionalProperties: false });

/** The reference's `Document`: exactly one of `{markdown}`, `{document}` or `{}` (both members match two branches and fail). */
export const CommentBody = Type.Unsafe<Static<typeof MarkdownBody> | Static<typeof DocumentBody> | Record<string, never>>({
  oneOf: [MarkdownBody, DocumentBody, EmptyBody],
});

const Emoji = Type.String({ minLength: 1, maxLength: 50 });
const Reactions = Type.Array(Emoji, { maxItems: 100 });

export const PostCommentBody = Type.Object({
  node: Type.Optional(Type.String({ minLength: 1, description: 'The node the comment is attached to' })),
  page: Type.Optional(Type.String({ minLength: 1, description: 'Id of a page of the current revision' })),
  body: CommentBody,
});

export const UpdateCommentBody = Type.Object({
  resolved: Type.Optional(Type.Boolean()),
  body: Type.Optional(CommentBody),
  addedReactions: Type.Optional(Reactions),
  removedReactions: Type.Optional(Reactions),
});

export const PostReplyBody = Type.Object({ body: CommentBody });

export const UpdateReplyBody = Type.Object({
  body: Type.Optional(CommentBody),
  addedReactions: Type.Optional(Reactions),
  removedReactions: Type.Optional(Reactions),
});

const OutputBody = Type.Object({
  markdown: Type.Optional(Type.String()),
  document: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
});

const ReactionsSchema = Type.Array(
  Type.Object({
    emoji: Type.String(),
    count: Type.Number(),
    users: Type.Array(Type.Object({ user: UserSchema, reactedAt: Timestamp })),
  }),
);

const PermissionsSchema = Type.Object({
  view: Type.Boolean(),
  edit: Type.Boolean(),
  reply: Type.Boolean(),
  react: Type.Boolean(),
  delete: Type.Boolean(),
});

export const CommentSchema = Type.Object({
  object: Type.Literal('comment'),
  id: Type.String(),
  status: StringEnum(['open', 'resolved'] as const),
  resolvedAt: Type.Optional(Timestamp),
  resolvedBy: Type.Optional(UserSchema),
  postedBy: UserSchema,
  postedAt: Timestamp,
  editedAt: Type.Optional(Timestamp),
  reactions: ReactionsSchema,
  replies: Type.Number(),
  body: OutputBody,
  target: Type.Object({
    space: Type.String(),
    revision: Type.String(),
    changeRequest: Type.Optional(Type.String()),
    review: Type.Optional(Type.String({ description: 'The review the comment was posted with' })),
    node: Type.Optional(Type.Object({ id: Type.String() })),
    page: Type.Optional(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        path: Type.String(),
        emoji: Type.Optional(Type.String()),
        icon: Type.Optional(Type.String()),
        outdated: Type.Boolean(),
      }),
    ),
  }),
  urls: Type.Object({ location: Url }),
  permissions: PermissionsSchema,
});

export const ReplySchema = Type.Object({
  object: Type.Literal('comment-reply'),
  id: Type.String(),
  postedBy: UserSchema,
  postedAt: Timestamp,
  editedAt: Type.Optional(Timestamp),
  reactions: ReactionsSchema,
  body: OutputBody,
  urls: Type.Object({ location: Url }),
  permissions: PermissionsSchema,
});

/** The reference's list of commenters also requires `total`: the number of commenters over all pages. */
export const CommentersList = Type.Object({
  ...ListOf(MemberSchema).properties,
  total: Type.Number({ description: 'Number of commenters over all pages' }),
});
