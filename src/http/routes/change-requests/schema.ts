import { Type } from 'typebox';
import { ListQuery, Nullable, StringEnum, Timestamp, Url, UserSchema } from '../../schemas.js';
import { CHANGE_REQUEST_STATUSES } from '../../../domain/change-requests/change-requests.js';

export const ChangeRequestsParams = Type.Object({ spaceId: Type.String() });
export const ChangeRequestParams = Type.Object({ spaceId: Type.String(), changeRequestId: Type.String({ description: 'The id or the number' }) });

export const Subject = Type.String({ maxLength: 100 });

export const ChangeRequestSchema = Type.Object({
  object: Type.Literal('change-request'),
  id: Type.String(),
  number: Type.Number(),
  status: StringEnum(CHANGE_REQUEST_STATUSES),
  subject: Type.String(),
  createdBy: UserSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  revision: Type.String(),
  revisionInitial: Type.String(),
  revisionMergedAncestor: Type.Optional(Type.String()),
  revisionMerged: Type.Optional(Type.String()),
  comments: Type.Number(),
  outdated: Type.Boolean(),
  urls: Type.Object({ app: Url, location: Url }),
});

export const ListChangeRequestsQuery = Type.Object({
  ...ListQuery,
  status: Type.Optional(StringEnum(CHANGE_REQUEST_STATUSES, { default: 'open' })),
  contributor: Type.Optional(Type.String({ minLength: 1 })),
});

/** The body is optional (no body, or null, opens one without a subject). */
export const CreateChangeRequestBody = Nullable(
  Type.Object({
    subject: Type.Optional(Subject),
    agentTaskId: Type.Optional(Type.String()),
  }),
);

export const UpdateChangeRequestBody = Type.Object(
  {
    subject: Type.Optional(Subject),
    status: Type.Optional(StringEnum(['draft', 'open', 'archived'] as const)),
  },
  { minProperties: 1 },
);

/** mergeChangeRequest and updateChangeRequest: the new head, or with `result: "conflicts"` the unchanged one and the conflicting files. */
export const MergeResultSchema = Type.Object({
  revision: Type.String(),
  result: StringEnum(['merge', 'update', 'conflicts'] as const),
  conflicts: Type.Optional(Type.Array(Type.Object({ path: Type.String() }))),
});

export const PdfQuery = Type.Object({
  only: Type.Optional(Type.Boolean({ description: 'true: only the page given by `page`' })),
  page: Type.Optional(Type.String({ minLength: 1, description: 'Id of a page of the change request' })),
});

export const PdfLinkSchema = Type.Object({ url: Url });

export const CreatedHeaders = Type.Object({ location: Type.String() });
