import { Type } from 'typebox';
import { ListQuery, Url } from '../../schemas.js';
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from '../../../domain/content/revision-history.js';

export const RevisionHistoryParams = Type.Object({ spaceId: Type.String() });

export const RevisionHistoryQuery = Type.Object({
  page: ListQuery.page,
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_HISTORY_LIMIT, default: DEFAULT_HISTORY_LIMIT, description: `Items per page, default ${DEFAULT_HISTORY_LIMIT}` }),
  ),
  pageId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Only the commits that changed this page of main's revision (its file, followed back through renames git detects)",
    }),
  ),
});

/** One commit of main's history (a Quire extension; its full content: getRevisionById at `urls.location`). */
export const RevisionSummarySchema = Type.Object({
  object: Type.Literal('revision-summary'),
  id: Type.String({ description: 'The commit id; the revision id of getRevisionById' }),
  message: Type.String({ description: "The message's subject (its first paragraph), at most 16 KiB" }),
  description: Type.Optional(Type.String({ description: 'The rest of the message, when there is more; at most 16 KiB' })),
  author: Type.Object({ name: Type.String(), email: Type.String() }),
  createdAt: Type.String({ format: 'date-time', description: "The commit's author date" }),
  parents: Type.Array(Type.String()),
  merge: Type.Boolean({ description: 'The commit has more than one parent' }),
  changeRequest: Type.Optional(
    Type.Object({ id: Type.String(), number: Type.Number() }, { description: 'The change request this commit merged, when it is Quire merging one' }),
  ),
  urls: Type.Object({ location: Url, app: Url }),
});
